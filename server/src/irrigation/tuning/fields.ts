import { SOIL_TEXTURES } from '../../config/schema';
import type { JsonValue } from '../../store/json';

/**
 * The zone fields a tuning recommendation may set (spec 4.5 "Accepted
 * fields") and the band each accepts: the config schema's ranges (spec 2.6,
 * spec 8). A value outside its band is refused on apply (422). Null is
 * accepted where the config field is nullable: it clears the override.
 */

export const TUNABLE_FIELDS = [
  'soil_texture',
  'precip_rate_mm_hr',
  'precip_rate_source',
  'root_depth_mm',
  'mad_pct_override',
  'weekly_budget_in',
  'sessions_per_week',
  'max_run_minutes',
  'rain_credit_cap_in',
] as const;

export type TunableField = (typeof TUNABLE_FIELDS)[number];

export type Band =
  | { kind: 'number'; min: number; max: number; minExclusive?: boolean; integer?: boolean; unit: string }
  | { kind: 'enum'; values: readonly string[] };

export const BANDS: Record<TunableField, Band> = {
  soil_texture: { kind: 'enum', values: SOIL_TEXTURES },
  precip_rate_mm_hr: { kind: 'number', min: 0, max: 500, minExclusive: true, unit: 'mm/h' },
  precip_rate_source: { kind: 'enum', values: ['measured', 'catalog'] },
  root_depth_mm: { kind: 'number', min: 0, max: 3000, minExclusive: true, unit: 'mm' },
  mad_pct_override: { kind: 'number', min: 1, max: 100, unit: '%' },
  weekly_budget_in: { kind: 'number', min: 0, max: 20, unit: 'in' },
  sessions_per_week: { kind: 'number', min: 1, max: 7, integer: true, unit: 'sessions' },
  max_run_minutes: { kind: 'number', min: 5, max: 360, integer: true, unit: 'min' },
  rain_credit_cap_in: { kind: 'number', min: 0.05, max: 5.0, unit: 'in' },
};

type NumberBand = Extract<Band, { kind: 'number' }>;

/** The numeric band of a numeric field. */
export function numberBand(
  field: 'max_run_minutes' | 'sessions_per_week' | 'rain_credit_cap_in',
): NumberBand {
  return BANDS[field] as NumberBand;
}

export function isTunableField(field: unknown): field is TunableField {
  return typeof field === 'string' && (TUNABLE_FIELDS as readonly string[]).includes(field);
}

/** The band as words, for error messages: `5..360 (whole min)`, `one of sand, loam`. */
export function describeBand(band: Band): string {
  if (band.kind === 'enum') return `one of ${band.values.join(', ')}`;
  const low = band.minExclusive ? `above ${band.min}` : `${band.min}`;
  return `${low}..${band.max}${band.integer ? ' (whole' : ' ('}${band.unit})`;
}

/** Null when the value fits the field's band (null itself clears the override). */
export function outOfBand(field: TunableField, value: JsonValue): string | null {
  if (value === null) return null;
  const band = BANDS[field];
  if (band.kind === 'enum') {
    return typeof value === 'string' && band.values.includes(value)
      ? null
      : `${field} must be ${describeBand(band)}`;
  }
  const fits =
    typeof value === 'number' &&
    Number.isFinite(value) &&
    (band.minExclusive ? value > band.min : value >= band.min) &&
    value <= band.max &&
    (!band.integer || Number.isInteger(value));
  return fits ? null : `${field} must be ${describeBand(band)}`;
}
