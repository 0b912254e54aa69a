import type { TimeZone } from './time-zone';

/**
 * A wall-clock time in a zone (time-zone.ts), with exactly the operations
 * the service's local-day code needs, computed as luxon's DateTime computes
 * them (luxon 3, `src/datetime.js`) so that every date, day start and wall
 * time stays what it was when they went through luxon; without luxon's
 * 0.5 MB of source, which an idle service would otherwise keep in its heap.
 *
 * The rules that decide DST edge cases, as luxon's:
 * - a wall time is turned into an instant from a guessed offset, corrected
 *   once (`fixOffset`); a wall time inside a spring-forward gap moves
 *   forward by the gap (02:30 -> 03:30); a repeated wall time takes the
 *   occurrence whose offset is the guess;
 * - the guess is the offset of the time being changed (`set`, `plus`,
 *   `startOfDay`), or, for a time built from fields (`fromIsoDate`,
 *   `fromFields`), the zone's offset at the real current instant (luxon's
 *   `Settings.now()`, i.e. `Date.now()`): that only matters for a wall time
 *   that occurs twice;
 * - `plus` adds calendar days and months on the wall clock, and minutes as
 *   elapsed time;
 * - anything invalid (an unknown zone, a date that does not exist, an
 *   instant out of Date's range) gives an invalid time: NaN seconds, null
 *   dates, and every operation on it stays invalid.
 */

export interface WallFields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
}

const INVALID_FIELDS: WallFields = {
  year: NaN,
  month: NaN,
  day: NaN,
  hour: NaN,
  minute: NaN,
  second: NaN,
  millisecond: NaN,
};

export class LocalTime {
  private constructor(
    readonly zone: TimeZone,
    /** Epoch milliseconds (NaN when invalid). */
    readonly ms: number,
    /** Minutes east of UTC in force (NaN when invalid). */
    readonly offset: number,
    private readonly c: WallFields,
    readonly isValid: boolean,
  ) {}

  /** The wall time at epoch seconds `seconds` (luxon `DateTime.fromSeconds`). */
  static fromSeconds(seconds: number, zone: TimeZone): LocalTime {
    return LocalTime.atInstant(seconds * 1000, zone);
  }

  /** The wall time at epoch milliseconds `ms`, with the zone's offset there. */
  static atInstant(ms: number, zone: TimeZone, offset?: number): LocalTime {
    if (Number.isNaN(ms) || !zone.isValid) return LocalTime.invalid(zone);
    const o = offset ?? zone.offset(ms);
    const c = fieldsOf(ms, o);
    return Number.isNaN(c.year) ? LocalTime.invalid(zone) : new LocalTime(zone, ms, o, c, true);
  }

  /**
   * Local midnight starting a `YYYY-MM-DD` date (luxon `DateTime.fromISO(date,
   * { zone })` for a calendar date); invalid for anything else.
   */
  static fromIsoDate(date: string, zone: TimeZone): LocalTime {
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
    if (!m) return LocalTime.invalid(zone);
    return LocalTime.fromFields({ year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) }, zone);
  }

  /**
   * The wall time with these fields (luxon `DateTime.fromObject`): missing
   * smaller units are 0; out-of-range fields (Feb 30, 25:00) give an invalid
   * time, 24:00:00 is the next day's midnight.
   */
  static fromFields(
    fields: Pick<WallFields, 'year' | 'month' | 'day'> & Partial<WallFields>,
    zone: TimeZone,
  ): LocalTime {
    if (!zone.isValid) return LocalTime.invalid(zone);
    const c: WallFields = { hour: 0, minute: 0, second: 0, millisecond: 0, ...fields };
    if (!fieldsInRange(c)) return LocalTime.invalid(zone);
    const [ms, o] = fixOffset(localMs(c), zone.offset(Date.now()), zone);
    return LocalTime.atInstant(ms, zone, o);
  }

  private static invalid(zone: TimeZone): LocalTime {
    return new LocalTime(zone, NaN, NaN, INVALID_FIELDS, false);
  }

  get year(): number {
    return this.c.year;
  }

  get month(): number {
    return this.c.month;
  }

  get day(): number {
    return this.c.day;
  }

  get hour(): number {
    return this.c.hour;
  }

  get minute(): number {
    return this.c.minute;
  }

  get second(): number {
    return this.c.second;
  }

  /** Epoch seconds (NaN when invalid). */
  get seconds(): number {
    return this.ms / 1000;
  }

  /** Day of the week, Monday 1 .. Sunday 7 (luxon's `weekday`). */
  get weekday(): number {
    return this.isValid ? isoWeekdayOf(this.c) : NaN;
  }

  /** The local calendar date as luxon's `toISODate()`; null when invalid. */
  get isoDate(): string | null {
    if (!this.isValid) return null;
    const { year, month, day } = this.c;
    const long = year > 9999 || year < 0;
    return `${long && year >= 0 ? '+' : ''}${pad(year, long ? 6 : 4)}-${pad(month)}-${pad(day)}`;
  }

  /** The same wall time with some fields replaced (luxon `set`). */
  set(fields: Partial<WallFields>): LocalTime {
    if (!this.isValid) return this;
    const mixed: WallFields = { ...this.c, ...fields };
    if (fields.day === undefined) mixed.day = Math.min(daysInMonth(mixed.year, mixed.month), mixed.day);
    const [ms] = fixOffset(localMs(mixed), this.offset, this.zone);
    return this.moved(ms);
  }

  /** Local midnight of this time's date (luxon `startOf('day')`). */
  startOfDay(): LocalTime {
    return this.set({ hour: 0, minute: 0, second: 0, millisecond: 0 });
  }

  /**
   * Calendar months and days on the wall clock, then minutes of elapsed time
   * (luxon `plus`; `minus` is `plus` of the negated amounts).
   */
  plus(amount: { months?: number; days?: number; minutes?: number }): LocalTime {
    if (!this.isValid) return this;
    const months = amount.months ?? 0;
    const days = amount.days ?? 0;
    const year = this.c.year;
    const month = this.c.month + Math.trunc(months);
    const c: WallFields = {
      ...this.c,
      year,
      month,
      day: Math.min(this.c.day, daysInMonth(year, month)) + Math.trunc(days),
    };
    const elapsed =
      (months - Math.trunc(months)) * 30 * DAY_MS +
      (days - Math.trunc(days)) * DAY_MS +
      (amount.minutes ?? 0) * 60_000;
    const [ms] = fixOffset(localMs(c), this.offset, this.zone);
    return this.moved(ms + elapsed);
  }

  /** "Mon Jun 16, 14:00" (luxon `toFormat('ccc LLL d, HH:mm')` in en-US); null when invalid. */
  formatShort(): string | null {
    if (!this.isValid) return null;
    const { month, day, hour, minute } = this.c;
    return `${WEEKDAYS[this.weekday - 1]} ${MONTHS[month - 1]} ${day}, ${pad(hour)}:${pad(minute)}`;
  }

  /**
   * ISO 8601 with the offset, e.g. 2026-03-09T06:00:00-04:00 (luxon
   * `toISO({ suppressMilliseconds: true })`); null when invalid.
   */
  isoWithOffset(): string | null {
    if (!this.isValid) return null;
    const { hour, minute, second, millisecond } = this.c;
    const fraction = millisecond !== 0 ? `.${pad(millisecond, 3)}` : '';
    const o = this.offset;
    const sign = o < 0 ? '-' : '+';
    const offset = `${sign}${pad(Math.trunc(Math.abs(o) / 60))}:${pad(Math.trunc(Math.abs(o) % 60))}`;
    return `${this.isoDate}T${pad(hour)}:${pad(minute)}:${pad(second)}${fraction}${offset}`;
  }

  /** luxon's `clone`: an unchanged instant keeps its fields and offset; a moved one takes the zone's offset there. */
  private moved(ms: number): LocalTime {
    if (ms === this.ms) return this;
    return LocalTime.atInstant(ms, this.zone);
  }
}

const DAY_MS = 86_400_000;
const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * luxon's `fixOffset`: the instant of local wall time `local` (milliseconds,
 * the fields read as UTC) from guessed offset `o` (minutes), and its offset.
 */
function fixOffset(local: number, o: number, zone: TimeZone): [number, number] {
  let utcGuess = local - o * 60_000;
  const o2 = zone.offset(utcGuess);
  if (o === o2) return [utcGuess, o];
  utcGuess -= (o2 - o) * 60_000;
  const o3 = zone.offset(utcGuess);
  if (o2 === o3) return [utcGuess, o2];
  // A wall time in a gap: the offset changed; keep the wall time's distance from the earlier offset.
  return [local - Math.min(o2, o3) * 60_000, Math.max(o2, o3)];
}

/** luxon's `tsToObj`. */
function fieldsOf(ms: number, offset: number): WallFields {
  const d = new Date(ms + offset * 60_000);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    millisecond: d.getUTCMilliseconds(),
  };
}

/** luxon's `objToLocalTS`: the fields read as a UTC time (years 0-99 are not 19xx). */
function localMs(c: WallFields): number {
  let ms = Date.UTC(c.year, c.month - 1, c.day, c.hour, c.minute, c.second, c.millisecond);
  if (c.year < 100 && c.year >= 0) {
    const d = new Date(ms);
    d.setUTCFullYear(c.year, c.month - 1, c.day);
    ms = +d;
  }
  return ms;
}

/** luxon's `hasInvalidGregorianData` and `hasInvalidTimeData`, both false. */
function fieldsInRange(c: WallFields): boolean {
  const between = (n: number, lo: number, hi: number) => Number.isInteger(n) && n >= lo && n <= hi;
  const hourOk =
    between(c.hour, 0, 23) || (c.hour === 24 && c.minute === 0 && c.second === 0 && c.millisecond === 0);
  return (
    Number.isInteger(c.year) &&
    between(c.month, 1, 12) &&
    between(c.day, 1, daysInMonth(c.year, c.month)) &&
    hourOk &&
    between(c.minute, 0, 59) &&
    between(c.second, 0, 59) &&
    between(c.millisecond, 0, 999)
  );
}

/** luxon's `daysInMonth`: months past 12 (or before 1) roll into the next (previous) year. */
function daysInMonth(year: number, month: number): number {
  const modMonth = month - 1 - 12 * Math.floor((month - 1) / 12) + 1;
  const modYear = year + (month - modMonth) / 12;
  if (modMonth === 2) return isLeapYear(modYear) ? 29 : 28;
  return [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][modMonth - 1] as number;
}

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

/** Monday 1 .. Sunday 7 of a date, years 0-99 included (Date.UTC reads those as 19xx). */
function isoWeekdayOf(c: WallFields): number {
  const d = new Date(localMs({ ...c, hour: 0, minute: 0, second: 0, millisecond: 0 })).getUTCDay();
  return d === 0 ? 7 : d;
}

/** luxon's `padStart` (a minus sign before the zeros). */
function pad(n: number, width = 2): string {
  return n < 0 ? `-${String(-n).padStart(width, '0')}` : String(n).padStart(width, '0');
}
