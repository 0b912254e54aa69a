import { LocalTime } from '../../core/tz/local-time';
import { timeZone } from '../../core/tz/time-zone';

/**
 * Local calendar arithmetic for the schedule and the controls, through the
 * service's TZif-backed zones and luxon's wall-time rules (core/tz/local-time.ts). Pure; dates are ISO `YYYY-MM-DD`
 * strings in the deployment's time zone. A bad zone name or date is a caller
 * bug (config validation resolves the zone) and throws a RangeError.
 */

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

function checked(t: LocalTime, what: string): LocalTime {
  if (t.isValid) return t;
  const why = t.zone.isValid ? 'no such date or instant' : `the zone "${t.zone.name}" is not supported`;
  throw new RangeError(`${what}: ${why}`);
}

/** Local midnight of `dateLocal` in `timezone`. */
export function startOfLocalDate(dateLocal: string, timezone: string): LocalTime {
  if (!ISO_DATE.test(dateLocal))
    throw new RangeError(`expected a YYYY-MM-DD date, got ${JSON.stringify(dateLocal)}`);
  return checked(LocalTime.fromIsoDate(dateLocal, timeZone(timezone)), `date ${dateLocal} in ${timezone}`);
}

/** The local calendar date of an epoch (seconds). */
export function localDateOf(epoch: number, timezone: string): string {
  return checked(LocalTime.fromSeconds(epoch, timeZone(timezone)), `epoch ${epoch} in ${timezone}`)
    .isoDate as string;
}

/** `dateLocal` plus `days` calendar days (DST-safe: calendar days, not 24-hour steps). */
export function addLocalDays(dateLocal: string, days: number, timezone: string): string {
  return startOfLocalDate(dateLocal, timezone).plus({ days }).isoDate as string;
}

/** 12:00 local on `dateLocal`, in milliseconds: the instant that names the day to the sun calculator. */
export function localNoonMs(dateLocal: string, timezone: string): number {
  return startOfLocalDate(dateLocal, timezone).set({ hour: 12 }).ms;
}

/** Weekday of a calendar date, Sun=0..Sat=6 (independent of any zone). */
export function weekdayOf(dateLocal: string): number {
  if (!ISO_DATE.test(dateLocal))
    throw new RangeError(`expected a YYYY-MM-DD date, got ${JSON.stringify(dateLocal)}`);
  const [y, m, d] = dateLocal.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d)).getUTCDay();
}

/** ISO 8601 local time with offset, e.g. 2026-03-09T06:00:00-04:00 (no Intl involved). */
export function localIsoOf(epoch: number, timezone: string): string {
  return checked(
    LocalTime.fromSeconds(epoch, timeZone(timezone)),
    `epoch ${epoch} in ${timezone}`,
  ).isoWithOffset() as string;
}
