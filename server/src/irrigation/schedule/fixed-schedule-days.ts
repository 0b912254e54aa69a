import { getTimes } from 'suncalc';
import { parseScheduleStart, scheduleSlug } from '../../config/schedule-config';
import type { ScheduleConfig } from '../../config/schema';
import { localNoonMs, startOfLocalDate, weekdayOf } from './local-date';
import { seasonCovers } from './restriction-calendar';

/**
 * A fixed schedule's calendar: which local dates it runs on, when it starts
 * there, and how long each zone runs. Pure.
 *
 * - Days: an enabled schedule runs on a date inside its `season` (all year
 *   without one) that is one of its `weekdays`, or, with `interval_days`, a
 *   whole multiple of that many calendar days on or after `start_date`.
 * - Start: a local `"HH:MM"` on that date (a time in a spring-forward gap
 *   reads one hour later, a repeated one is its first occurrence), or
 *   sunrise / sunset there (suncalc, as the run window) plus the offset.
 * - Length: `minutes` (one for all zones or one per zone), or `depth_mm` at
 *   the zone's precipitation rate (rounded up to whole seconds; unknown when
 *   the zone has no rate).
 */

/**
 * How long after its start a fixed schedule's run may still begin (a restart,
 * an outage): the scheduler's catch-up, and the end of the run's own window
 * (`schedule_runs[].window_closed`).
 */
export const FIXED_LATE_S = 3600;

export function runsOn(schedule: ScheduleConfig, dateLocal: string): boolean {
  return schedule.enabled && onCalendar(schedule, dateLocal);
}

/** The calendar alone (the `enabled` switch aside): the floor rule's "previous day" reads it. */
export function onCalendar(schedule: ScheduleConfig, dateLocal: string): boolean {
  if (!seasonCovers(schedule.season, dateLocal)) return false;
  if (schedule.weekdays && schedule.weekdays.length > 0)
    return schedule.weekdays.includes(weekdayOf(dateLocal));
  const every = schedule.interval_days;
  const from = schedule.start_date;
  if (!every || !from || dateLocal < from) return false;
  return daysBetween(from, dateLocal) % every === 0;
}

/** The schedule's last calendar day before `dateLocal`, at most a year back; null when none. */
export function previousRunDay(schedule: ScheduleConfig, dateLocal: string): string | null {
  for (let back = 1; back <= 366; back += 1) {
    const date = shiftDate(dateLocal, -back);
    if (onCalendar(schedule, date)) return date;
  }
  return null;
}

/** Epoch seconds the schedule starts on the date; null for a sun time the date does not have (polar). */
export function scheduleStartEpoch(
  schedule: ScheduleConfig,
  dateLocal: string,
  timezone: string,
  lat: number,
  lon: number,
): number | null {
  const start = parseScheduleStart(schedule.start);
  if (!start) return null;
  if (start.kind === 'clock') {
    const midnight = startOfLocalDate(dateLocal, timezone);
    return Math.floor(
      midnight.set({ hour: Math.floor(start.minutes / 60), minute: start.minutes % 60 }).seconds,
    );
  }
  const times = getTimes(new Date(localNoonMs(dateLocal, timezone)), lat, lon);
  const sun: Date | null | undefined = start.kind === 'sunrise' ? times.sunrise : times.sunset;
  const ms = sun?.getTime();
  if (ms === undefined || !Number.isFinite(ms)) return null;
  return Math.floor(ms / 1000) + start.offset_minutes * 60;
}

/** Seconds the schedule runs `zone`; null when a depth cannot be sized (no precipitation rate). */
export function scheduleSeconds(
  schedule: ScheduleConfig,
  zone: string,
  precipRateMmHr: number | null,
): number | null {
  const index = schedule.zones.indexOf(zone);
  if (index < 0) return 0;
  const { minutes, depth_mm: depth } = schedule;
  if (typeof minutes === 'number') return Math.round(minutes * 60);
  if (Array.isArray(minutes)) {
    const m = minutes[index];
    return m === undefined ? null : Math.round(m * 60);
  }
  if (typeof depth === 'number') {
    if (precipRateMmHr === null || precipRateMmHr <= 0) return null;
    return Math.ceil((depth / precipRateMmHr) * 3600);
  }
  return null;
}

/** The run session of one schedule's zone on one date: `fixed-<schedule slug>-<date>-<zone>`. */
export function scheduleSessionId(schedule: ScheduleConfig, dateLocal: string, zone: string): string {
  return `${schedulePrefix(schedule)}${dateLocal}-${zone}`;
}

/** Every session id of the schedule starts so (slugs hold no "-": no schedule's prefix is another's). */
export function schedulePrefix(schedule: ScheduleConfig): string {
  return `fixed-${scheduleSlug(schedule.name)}-`;
}

function daysBetween(from: string, to: string): number {
  return Math.round((utcDay(to) - utcDay(from)) / 86_400_000);
}

function utcDay(date: string): number {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return Date.UTC(y, m - 1, d);
}

function shiftDate(date: string, days: number): string {
  return new Date(utcDay(date) + days * 86_400_000).toISOString().slice(0, 10);
}
