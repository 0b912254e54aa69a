/**
 * The numeric fields of the weather snapshot (spec 2.2) a source can provide,
 * each with how long one reading stays live and the observation-time group
 * that reports its age. Units are the snapshot's: F, %, inHg, mph, degrees,
 * lux, W/m2, inches, miles, volts. Adapters convert at the edge.
 */

export type LiveGroup =
  'air_temp' | 'rh' | 'wind' | 'rain' | 'pressure' | 'solar' | 'lightning' | 'power' | 'other';

/** What a field measures: the unit check for mappings from other systems (HA, webhooks). */
export type Quantity =
  | 'temperature'
  | 'percent'
  | 'pressure'
  | 'speed'
  | 'direction'
  | 'illuminance'
  | 'irradiance'
  | 'uv'
  | 'depth'
  | 'rate'
  | 'count'
  | 'distance'
  | 'voltage';

export interface FieldSpec {
  quantity: Quantity;
  /** Seconds a reading stays live; after that the field falls through to the next source. */
  maxAgeS: number;
  group: LiveGroup;
  integer?: boolean;
  /** One of the headline fields kept in the per-minute weather history. */
  headline?: boolean;
}

export const FIELD_SPECS = {
  air_temp_f: { maxAgeS: 1800, group: 'air_temp', quantity: 'temperature', headline: true },
  rh_pct: { maxAgeS: 1800, group: 'rh', quantity: 'percent', headline: true },
  pressure_inhg: { maxAgeS: 1800, group: 'pressure', quantity: 'pressure', headline: true },
  wind_lull_mph: { maxAgeS: 1200, group: 'wind', quantity: 'speed' },
  wind_avg_mph: { maxAgeS: 1200, group: 'wind', quantity: 'speed', headline: true },
  wind_gust_mph: { maxAgeS: 1200, group: 'wind', quantity: 'speed', headline: true },
  wind_dir_deg: { maxAgeS: 1200, group: 'wind', quantity: 'direction' },
  rapid_wind_mph: { maxAgeS: 60, group: 'wind', quantity: 'speed' },
  rapid_wind_dir: { maxAgeS: 60, group: 'wind', quantity: 'direction' },
  illuminance_lx: { maxAgeS: 900, group: 'solar', quantity: 'illuminance' },
  uv_index: { maxAgeS: 900, group: 'solar', quantity: 'uv' },
  solar_w_m2: { maxAgeS: 900, group: 'solar', quantity: 'irradiance', headline: true },
  rain_in_last_min: { maxAgeS: 180, group: 'rain', quantity: 'depth' },
  rain_in_today: { maxAgeS: 3600, group: 'rain', quantity: 'depth', headline: true },
  rain_intensity_in_hr: { maxAgeS: 900, group: 'rain', quantity: 'rate', headline: true },
  precip_type: { maxAgeS: 900, group: 'rain', quantity: 'count', integer: true },
  lightning_count_last_min: { maxAgeS: 180, group: 'lightning', quantity: 'count', integer: true },
  lightning_strikes_last_hour: { maxAgeS: 1800, group: 'lightning', quantity: 'count', integer: true },
  lightning_avg_dist_mi: { maxAgeS: 180, group: 'lightning', quantity: 'distance' },
  battery_v: { maxAgeS: 3600, group: 'power', quantity: 'voltage' },
  battery_pct: { maxAgeS: 3600, group: 'power', quantity: 'percent' },
  pop_pct: { maxAgeS: 3600, group: 'other', quantity: 'percent' },
  leaf_wetness_pct: { maxAgeS: 1800, group: 'other', quantity: 'percent' },
} as const satisfies Record<string, FieldSpec>;

export type WeatherField = keyof typeof FIELD_SPECS;

export const WEATHER_FIELDS = Object.keys(FIELD_SPECS) as WeatherField[];

export function isWeatherField(name: string): name is WeatherField {
  return Object.prototype.hasOwnProperty.call(FIELD_SPECS, name);
}

export function fieldQuantity(field: WeatherField): Quantity {
  return FIELD_SPECS[field].quantity;
}

export function fieldSpec(field: WeatherField): FieldSpec {
  return FIELD_SPECS[field];
}

/** Unit conversions used by the adapters at the edge. */
export const convert = {
  cToF: (c: number) => (c * 9) / 5 + 32,
  msToMph: (ms: number) => ms * 2.2369362920544,
  kmhToMph: (kmh: number) => kmh * 0.621371192237334,
  kmToMi: (km: number) => km * 0.621371192237334,
  mmToIn: (mm: number) => mm / 25.4,
  hpaToInhg: (hpa: number) => hpa * 0.0295299830714,
  paToInhg: (pa: number) => pa * 0.000295299830714,
} as const;
