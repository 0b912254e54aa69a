import type { ZodNamespace } from '../core/zod-lazy';

/**
 * One `[[restrictions]]` rule as water utilities write them (docs/configuration.md
 * "Watering restrictions"), and the parsers of its text forms. A rule holds a
 * `name` and any of the keys below; every rule applies, together with every
 * other, to every run. The evaluation lives in irrigation/schedule/
 * (restriction-calendar.ts for the days, restriction-gate.ts for the runs).
 *
 * Text forms, all local time:
 * - `season`: `"MM-DD..MM-DD"`, both ends included; a start after the end
 *   wraps the new year (`"11-01..03-31"`).
 * - `forbidden_hours`: `"HH:MM-HH:MM"`, start included, end excluded; an end
 *   at or before the start wraps midnight (`"22:00-06:00"`); `"24:00"` ends a day.
 * - `no_watering`: `"YYYY-MM-DD..YYYY-MM-DD"` (both ends included) or one `"YYYY-MM-DD"`.
 */

export const DAY_PARITIES = ['odd', 'even', 'house_number'] as const;

export interface MonthDayRange {
  /** Month * 100 + day, e.g. 1101 for November 1. */
  from: number;
  to: number;
}

/** Minutes after local midnight; `to` may be 1440. */
export interface MinuteRange {
  from: number;
  to: number;
}

export interface DateRange {
  from: string;
  to: string;
}

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function monthDay(text: string): number | null {
  const m = /^(\d{2})-(\d{2})$/.exec(text);
  if (!m) return null;
  const month = Number(m[1]);
  const day = Number(m[2]);
  if (month < 1 || month > 12 || day < 1 || day > (DAYS_IN_MONTH[month - 1] as number)) return null;
  return month * 100 + day;
}

export function parseSeason(text: string): MonthDayRange | null {
  const [a, b, extra] = text.split('..');
  if (a === undefined || b === undefined || extra !== undefined) return null;
  const from = monthDay(a);
  const to = monthDay(b);
  return from === null || to === null ? null : { from, to };
}

function clockMinutes(text: string, allowEndOfDay: boolean): number | null {
  const m = /^(\d{2}):(\d{2})$/.exec(text);
  if (!m) return null;
  const hours = Number(m[1]);
  const minutes = Number(m[2]);
  if (allowEndOfDay && hours === 24 && minutes === 0) return 1440;
  if (hours > 23 || minutes > 59) return null;
  return hours * 60 + minutes;
}

export function parseHours(text: string): MinuteRange | null {
  const [a, b, extra] = text.split('-');
  if (a === undefined || b === undefined || extra !== undefined) return null;
  const from = clockMinutes(a, false);
  const to = clockMinutes(b, true);
  if (from === null || to === null || from === to) return null;
  return { from, to };
}

/** A local "HH:MM" as minutes after midnight; null when it is not one. */
export function parseClock(text: string): number | null {
  return clockMinutes(text, false);
}

function isoDate(text: string): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return null;
  const date = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return date.toISOString().slice(0, 10) === text ? text : null;
}

export function parseDateRange(text: string): DateRange | null {
  const parts = text.split('..');
  if (parts.length > 2) return null;
  const from = isoDate(parts[0] as string);
  const to = isoDate((parts[1] ?? parts[0]) as string);
  if (from === null || to === null || from > to) return null;
  return { from, to };
}

export function restrictionRuleShape(z: ZodNamespace) {
  const weekday = z.number().int().min(0).max(6);
  const minutes = z.number().int().min(1).max(1440);
  return z
    .strictObject({
      name: z.string().trim().min(1).max(80),
      /** Weekdays (Sun=0) watering is allowed on. */
      weekdays: z.array(weekday).min(1).nullish(),
      /** Days of the month: odd, even, or the parity of `house_number`. */
      day_parity: z.enum(DAY_PARITIES).nullish(),
      house_number: z.number().int().min(0).nullish(),
      season: z
        .string()
        .refine((s) => parseSeason(s) !== null, 'expected "MM-DD..MM-DD", e.g. "11-01..03-31"')
        .nullish(),
      forbidden_hours: z
        .array(z.string().refine((s) => parseHours(s) !== null, 'expected "HH:MM-HH:MM", e.g. "10:00-18:00"'))
        .nullish(),
      max_minutes_per_day: minutes.nullish(),
      max_minutes_per_session: minutes.nullish(),
      no_watering: z
        .array(
          z
            .string()
            .refine(
              (s) => parseDateRange(s) !== null,
              'expected "YYYY-MM-DD..YYYY-MM-DD" (start not after end) or one "YYYY-MM-DD"',
            ),
        )
        .nullish(),
    })
    .superRefine((rule, ctx) => {
      if (rule.day_parity === 'house_number' && (rule.house_number ?? null) === null) {
        ctx.addIssue({
          code: 'custom',
          path: ['house_number'],
          message: 'day_parity "house_number" needs the house_number whose parity picks the days',
        });
      }
    });
}
