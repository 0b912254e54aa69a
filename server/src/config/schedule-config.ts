import type { ZodNamespace } from '../core/zod-lazy';
import { formatPath } from './json-walk';
import { parseClock, parseSeason } from './restriction-rule';
import type { ValidationEntry } from './validate';

/**
 * One `[[schedules]]` entry: a fixed schedule beside the smart one
 * (docs/configuration.md "Fixed schedules"; irrigation/schedule/fixed-*.ts
 * plan and run it).
 *
 * `start` is a local `"HH:MM"`, or `"sunrise"` / `"sunset"` with an optional
 * offset in minutes (`"sunrise-30"`, `"sunset+15"`, at most 720).
 * `minutes` is one number for every zone, or a list with one number per zone
 * (in `zones` order); `depth_mm` instead waters that depth at each zone's
 * precipitation rate.
 */

export const SCHEDULE_MODES = ['override', 'floor'] as const;

export type ScheduleStart =
  { kind: 'clock'; minutes: number } | { kind: 'sunrise' | 'sunset'; offset_minutes: number };

const SUN_START = /^(sunrise|sunset)(?:([+-])(\d{1,3}))?$/;

export function parseScheduleStart(text: string): ScheduleStart | null {
  const clock = parseClock(text);
  if (clock !== null) return { kind: 'clock', minutes: clock };
  const m = SUN_START.exec(text);
  if (!m) return null;
  const offset = m[3] === undefined ? 0 : Number(m[3]) * (m[2] === '-' ? -1 : 1);
  if (Math.abs(offset) > 720) return null;
  return { kind: m[1] as 'sunrise' | 'sunset', offset_minutes: offset };
}

export function scheduleShape(z: ZodNamespace) {
  const weekday = z.number().int().min(0).max(6);
  const runMinutes = z.number().gt(0).max(240);
  return z.strictObject({
    name: z.string().trim().min(1).max(60),
    enabled: z.boolean().default(true),
    zones: z.array(z.string().min(1)).min(1),
    weekdays: z.array(weekday).min(1).nullish(),
    interval_days: z.number().int().min(1).max(60).nullish(),
    start_date: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, 'expected a YYYY-MM-DD date')
      .nullish(),
    start: z
      .string()
      .refine(
        (s) => parseScheduleStart(s) !== null,
        'expected a local "HH:MM", or "sunrise" / "sunset" with an offset in minutes such as "sunrise-30"',
      ),
    minutes: z.union([runMinutes, z.array(runMinutes).min(1)]).nullish(),
    depth_mm: z.number().gt(0).max(100).nullish(),
    mode: z.enum(SCHEDULE_MODES),
    season: z
      .string()
      .refine((s) => parseSeason(s) !== null, 'expected "MM-DD..MM-DD", e.g. "04-01..10-31"')
      .nullish(),
    ignore_skip_rules: z.boolean().default(false),
  });
}

interface ScheduleLike {
  name: string;
  zones: string[];
  weekdays?: number[] | null;
  interval_days?: number | null;
  start_date?: string | null;
  minutes?: number | number[] | null;
  depth_mm?: number | null;
}

/**
 * Whole-document checks (validate.ts): `schedule_name_duplicate` (names key
 * the HA switches and the run sessions), `schedule_zone_unknown`,
 * `schedule_days` (exactly one of `weekdays` or `interval_days` with
 * `start_date`), `schedule_amount` (exactly one of `minutes` or `depth_mm`),
 * `schedule_minutes_count` (a list needs one number per zone).
 */
export function checkSchedules(
  schedules: readonly ScheduleLike[],
  zones: Record<string, unknown>,
  errors: ValidationEntry[],
): void {
  const names = new Set<string>();
  schedules.forEach((s, i) => {
    const at = (...path: (string | number)[]) => formatPath(['schedules', i, ...path]);
    const key = scheduleSlug(s.name);
    if (names.has(key)) {
      errors.push({
        code: 'schedule_name_duplicate',
        path: at('name'),
        message: `schedule name "${s.name}" is used twice (names are compared as slugs: "${key}")`,
      });
    }
    names.add(key);
    s.zones.forEach((zone, z) => {
      if (!(zone in zones)) {
        errors.push({
          code: 'schedule_zone_unknown',
          path: at('zones', z),
          message: `schedule "${s.name}" names zone "${zone}", which is not configured`,
        });
      }
    });
    const byWeekday = !!s.weekdays;
    const byInterval = s.interval_days !== null && s.interval_days !== undefined;
    if (byWeekday === byInterval || (byInterval && !s.start_date)) {
      errors.push({
        code: 'schedule_days',
        path: at(),
        message: `schedule "${s.name}" needs either weekdays or interval_days with a start_date`,
      });
    }
    const hasMinutes = s.minutes !== null && s.minutes !== undefined;
    const hasDepth = s.depth_mm !== null && s.depth_mm !== undefined;
    if (hasMinutes === hasDepth) {
      errors.push({
        code: 'schedule_amount',
        path: at(),
        message: `schedule "${s.name}" needs either minutes or depth_mm`,
      });
    }
    if (Array.isArray(s.minutes) && s.minutes.length !== s.zones.length) {
      errors.push({
        code: 'schedule_minutes_count',
        path: at('minutes'),
        message: `schedule "${s.name}" lists ${s.minutes.length} minutes for ${s.zones.length} zones: one number for each zone, or one for all`,
      });
    }
  });
}

/** The schedule's key in session ids, HA entity ids and MQTT topics. */
export function scheduleSlug(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return slug || 'schedule';
}
