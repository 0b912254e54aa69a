import type { FieldSpec, JsonValue } from '../../components/schema-form-model';
import type { IrrigationSnapshot, ScheduleRun } from '../zones/irrigation-types';

/**
 * The Schedules page and the dashboard's word on fixed schedules, pure:
 * rows of the configured `[[schedules]]`, the part of the config form that
 * edits them, and which zones a schedule suppresses today.
 */

export interface ScheduleRow {
  index: number;
  name: string;
  /** As the server keys it (config/schedule-config.ts scheduleSlug). */
  slug: string;
  enabled: boolean;
  mode: string;
  zones: string;
  days: string;
  start: string;
  amount: string;
  season: string | null;
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** The server's slug of a schedule name: lower case, runs of anything else as one "_". */
export function scheduleSlug(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return slug || 'schedule';
}

export function weekdayText(days: readonly number[]): string {
  return days.map((d) => WEEKDAYS[d] ?? String(d)).join(', ');
}

export function scheduleRows(config: JsonValue | null): ScheduleRow[] {
  const list = isObject(config) && Array.isArray(config.schedules) ? config.schedules : [];
  return list.filter(isObject).map((s, index) => {
    const name = typeof s.name === 'string' ? s.name : `Schedule ${index + 1}`;
    return {
      index,
      name,
      slug: scheduleSlug(name),
      enabled: s.enabled !== false,
      mode: s.mode === 'floor' ? 'Floor (tops up smart watering)' : 'Override (replaces smart watering)',
      zones: Array.isArray(s.zones) ? s.zones.join(', ') : '',
      days: daysText(s),
      start: typeof s.start === 'string' ? s.start : '',
      amount: amountText(s),
      season: typeof s.season === 'string' ? s.season.replace('..', ' to ') : null,
    };
  });
}

function daysText(s: { [key: string]: JsonValue }): string {
  if (Array.isArray(s.weekdays))
    return weekdayText(s.weekdays.filter((d): d is number => typeof d === 'number'));
  if (typeof s.interval_days === 'number') {
    const from = typeof s.start_date === 'string' ? ` from ${s.start_date}` : '';
    return s.interval_days === 1 ? `every day${from}` : `every ${s.interval_days} days${from}`;
  }
  return 'no days set';
}

function amountText(s: { [key: string]: JsonValue }): string {
  if (typeof s.minutes === 'number') return `${s.minutes} min each`;
  if (Array.isArray(s.minutes)) return `${s.minutes.join(', ')} min`;
  if (typeof s.depth_mm === 'number') return `${s.depth_mm} mm each`;
  return 'no amount set';
}

/** The config form's spec cut down to the `schedules` list (paths stay those of the whole document). */
export function schedulesSpec(root: FieldSpec): FieldSpec | null {
  if (root.kind !== 'object') return null;
  const property = root.properties.find((p) => p.key === 'schedules');
  return property ? { ...root, properties: [property] } : null;
}

export interface SuppressedZone {
  zone: string;
  name: string;
  schedules: string[];
}

/** Zones whose smart watering an override schedule suppresses today (spec `smart_suppressed.active_today`). */
export function suppressedToday(snapshot: IrrigationSnapshot | null): SuppressedZone[] {
  return (snapshot?.zones ?? [])
    .filter((z) => z.smart_suppressed?.active_today === true)
    .map((z) => ({ zone: z.slug, name: z.name, schedules: z.smart_suppressed?.schedules ?? [] }));
}

/** Today's runs of one schedule (water_plan[0].schedule_runs). */
export function todayRuns(snapshot: IrrigationSnapshot | null, slug: string): ScheduleRun[] {
  return (snapshot?.water_plan?.[0]?.schedule_runs ?? []).filter((r) => r.schedule_slug === slug);
}

function isObject(value: JsonValue | null | undefined): value is { [key: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
