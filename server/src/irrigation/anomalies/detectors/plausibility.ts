/**
 * What a weather field can physically read, in the snapshot's units, and how
 * fast it can change between readings a few minutes apart. Wide on purpose:
 * only values no weather produces are flagged.
 */

export interface FieldLimits {
  label: string;
  min: number;
  max: number;
  /** Largest believable change between readings at most STEP_WINDOW_S apart. */
  maxStep?: number;
  /** Hours a real sensor never holds one exact value; absent: not checked. */
  stuckHours?: number;
  /** Values that may legitimately hold (saturated humidity in fog). */
  stuckExempt?: readonly number[];
}

export const STEP_WINDOW_S = 15 * 60;

export const FIELD_LIMITS: Record<string, FieldLimits> = {
  air_temp_f: { label: 'air temperature (F)', min: -80, max: 140, maxStep: 20, stuckHours: 6 },
  rh_pct: {
    label: 'relative humidity (%)',
    min: 0,
    max: 100,
    maxStep: 60,
    stuckHours: 12,
    stuckExempt: [100],
  },
  pressure_inhg: { label: 'pressure (inHg)', min: 15, max: 32.5, maxStep: 0.5, stuckHours: 6 },
  wind_avg_mph: { label: 'wind (mph)', min: 0, max: 200 },
  wind_gust_mph: { label: 'wind gust (mph)', min: 0, max: 250 },
  solar_w_m2: { label: 'solar radiation (W/m2)', min: 0, max: 1600 },
  rain_in_today: { label: 'rain today (in)', min: 0, max: 40 },
};

export const CHECKED_FIELDS = Object.keys(FIELD_LIMITS);
