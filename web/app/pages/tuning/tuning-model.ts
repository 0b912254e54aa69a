/**
 * The tuning report as the app reads it (spec 2.5; server/src/irrigation/
 * tuning/) and the words it shows for it. Pure, unit tested in
 * test/web-app/tuning-model.test.ts.
 */

export type JsonScalar = string | number | boolean | null;

export interface Recommendation {
  id: string;
  field: string;
  current_value: JsonScalar;
  suggested_value: JsonScalar;
  companion_fields: { field: string; value: JsonScalar }[];
  headline: string;
  evidence: string[];
  confidence: string;
}

export interface ZoneEntry {
  slug: string;
  display_name: string;
  status: 'recommendation' | 'ok' | 'insufficient_data';
  lines: string[];
  recommendation: Recommendation | null;
  dismissed: boolean;
  dismissed_fields: string[];
}

export interface Scorecard {
  window_days: number;
  scored_days: number | null;
  confirmed_days: number | null;
  min_scored_days: number;
  line: string;
  reactive_days: number;
  reactive_line: string | null;
}

export interface TuningReport {
  generated_epoch: number;
  window_days: number;
  zones: ZoneEntry[];
  scorecard: Scorecard;
}

export interface ApplyResult {
  applied: boolean;
  zone: string;
  field: string;
  old_value: JsonScalar;
  new_value: JsonScalar;
  restart_required: boolean;
  restart_reasons: string[];
}

/** The windows the report can be read at (spec 8: 7..30 days). */
export const WINDOWS = [7, 14, 30] as const;

const FIELD_LABELS: Record<string, string> = {
  max_run_minutes: 'Run cap',
  sessions_per_week: 'Sessions per week',
  weekly_budget_in: 'Weekly budget',
  rain_credit_cap_in: 'Rain credit cap',
  precip_rate_mm_hr: 'Sprinkler rate',
  precip_rate_source: 'Sprinkler rate source',
  root_depth_mm: 'Root depth',
  mad_pct_override: 'Allowed depletion',
  soil_texture: 'Soil texture',
};

const UNITS: Record<string, string> = {
  max_run_minutes: 'min',
  sessions_per_week: 'a week',
  weekly_budget_in: 'in',
  rain_credit_cap_in: 'in',
  precip_rate_mm_hr: 'mm/h',
  root_depth_mm: 'mm',
  mad_pct_override: '%',
};

export function fieldLabel(field: string): string {
  return FIELD_LABELS[field] ?? field;
}

/** A field's value in words: `30 min`, `3 a week`; null is the default the field falls back to. */
export function valueText(field: string, value: JsonScalar): string {
  if (value === null) return field === 'max_run_minutes' ? 'default (60 min)' : 'default';
  const unit = UNITS[field];
  return unit ? `${value} ${unit}` : String(value);
}

export const STATUS_LABELS: Record<ZoneEntry['status'], string> = {
  recommendation: 'Suggestion',
  ok: 'No change needed',
  insufficient_data: 'Not enough evidence yet',
};

/** The body of POST /config/zones/apply: the suggestion as shown, echoing the window it came from. */
export function applyBody(zone: string, rec: Recommendation, windowDays: number) {
  return {
    zone_slug: zone,
    recommendation_id: rec.id,
    field: rec.field,
    value: rec.suggested_value,
    window_days: windowDays,
  };
}

export function appliedMessage(result: ApplyResult): string {
  const change = `${fieldLabel(result.field)}: ${valueText(result.field, result.old_value)} → ${valueText(result.field, result.new_value)}`;
  const restart = result.restart_required
    ? ` A restart is needed: ${result.restart_reasons.join('; ') || 'a controller changed'}.`
    : '';
  return `Saved. ${change}; a snapshot of the previous config was kept.${restart}`;
}

/** When the zone's last line is the muted annotation of a silenced suggestion, split it off. */
export function splitMuted(entry: ZoneEntry): { lines: string[]; muted: string | null } {
  if (!entry.dismissed || entry.lines.length === 0) return { lines: entry.lines, muted: null };
  return { lines: entry.lines.slice(0, -1), muted: entry.lines[entry.lines.length - 1] ?? null };
}
