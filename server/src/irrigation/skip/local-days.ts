import { LocalTime } from '../../core/tz/local-time';
import { timeZone, type TimeZone } from '../../core/tz/time-zone';
import { addCalendarDays, isoDateOfDay } from './civil-date';

/**
 * Local calendar days of the deployment's time zone (pure: `now` is an input).
 * Days are looked up by `date_local` (YYYY-MM-DD), never by array position, so
 * a missing day stays missing instead of shifting the next one into its place.
 * DST days have 23 or 25 hours.
 */
export interface LocalCalendar {
  readonly timezone: string;
  /** Today's local date at `now`. */
  readonly today: string;
  /** The local date holding `epoch`. */
  dateOf(epoch: number): string;
  /** `date` plus `days` calendar days (negative goes back). */
  addDays(date: string, days: number): string;
  /** Epoch of local midnight starting `date`. */
  dayStart(date: string): number;
  /** Epoch of local midnight ending `date` (the next day's start). */
  dayEnd(date: string): number;
  /** "Mon Jun 16, 14:00" in local time, for reasons. */
  formatLocal(epoch: number): string;
}

export function localCalendar(timezone: string, nowEpoch: number): LocalCalendar {
  const zone: TimeZone = timeZone(timezone);
  if (!zone.isValid) throw new RangeError(`unknown time zone ${JSON.stringify(timezone)}`);
  if (!Number.isFinite(nowEpoch)) throw new RangeError(`now must be a finite epoch, got ${nowEpoch}`);

  const day = (date: string): LocalTime => {
    const dt = LocalTime.fromIsoDate(date, zone);
    if (!dt.isValid || !/^\d{4}-\d{2}-\d{2}$/.test(date)) {
      throw new RangeError(`expected a YYYY-MM-DD date, got ${JSON.stringify(date)}`);
    }
    return dt.startOfDay();
  };
  // One recompute asks for the same few dates thousands of times (every zone, every pass):
  // the answers never change for a calendar, so each is computed once.
  const dateOf = memo((epoch: number): string => localDateAt(zone, epoch));
  const dayStart = memo((date: string): number => day(date).seconds);
  const dayEnd = memo((date: string): number => day(date).plus({ days: 1 }).seconds);

  return {
    timezone,
    today: dateOf(nowEpoch),
    dateOf,
    addDays: addCalendarDays,
    dayStart,
    dayEnd,
    formatLocal: (epoch) => LocalTime.fromSeconds(epoch, zone).formatShort() ?? 'Invalid DateTime',
  };
}

/** Date's limit (and luxon's): beyond it an instant is invalid and its date ''. */
const MAX_MS = 8.64e15;
const DAY_MS = 86_400_000;

/**
 * The local date holding `epoch`: the UTC date of the instant shifted by the
 * zone's offset there, as luxon computed `toISODate()` (without building a
 * LocalTime: a run ledger asks this for every run's start).
 */
function localDateAt(zone: TimeZone, epoch: number): string {
  const ms = epoch * 1000;
  if (!Number.isFinite(ms) || Math.abs(ms) > MAX_MS) return '';
  const local = Math.trunc(ms + zone.offset(ms) * 60_000);
  return Math.abs(local) > MAX_MS ? '' : isoDateOfDay(Math.floor(local / DAY_MS));
}

function memo<K, V>(compute: (key: K) => V): (key: K) => V {
  const cache = new Map<K, V>();
  return (key) => {
    if (cache.has(key)) return cache.get(key) as V;
    const value = compute(key);
    cache.set(key, value);
    return value;
  };
}
