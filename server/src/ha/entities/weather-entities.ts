import type { EntityDescriptor, StateClass } from './descriptor';

/**
 * The live weather fields offered as sensors, with Home Assistant's device
 * classes and units (the snapshot's own units: F, %, inHg, mph, in). Only
 * fields the merged snapshot currently has a value for are offered; fast
 * per-minute fields (rapid wind, rain last minute) are left out.
 */

interface WeatherSensor {
  name: string;
  device_class?: string;
  unit?: string;
  state_class?: StateClass;
  precision?: number;
  entity_category?: 'diagnostic';
}

export const WEATHER_SENSORS: Record<string, WeatherSensor> = {
  air_temp_f: {
    name: 'Temperature',
    device_class: 'temperature',
    unit: '°F',
    state_class: 'measurement',
    precision: 1,
  },
  rh_pct: { name: 'Humidity', device_class: 'humidity', unit: '%', state_class: 'measurement', precision: 0 },
  pressure_inhg: {
    name: 'Pressure',
    device_class: 'atmospheric_pressure',
    unit: 'inHg',
    state_class: 'measurement',
    precision: 2,
  },
  wind_avg_mph: {
    name: 'Wind speed',
    device_class: 'wind_speed',
    unit: 'mph',
    state_class: 'measurement',
    precision: 1,
  },
  wind_gust_mph: {
    name: 'Wind gust',
    device_class: 'wind_speed',
    unit: 'mph',
    state_class: 'measurement',
    precision: 1,
  },
  wind_lull_mph: {
    name: 'Wind lull',
    device_class: 'wind_speed',
    unit: 'mph',
    state_class: 'measurement',
    precision: 1,
  },
  // measurement_angle: HA keeps circular long-term statistics for it (the mean of 350° and 10° is 0°).
  wind_dir_deg: {
    name: 'Wind direction',
    device_class: 'wind_direction',
    unit: '°',
    state_class: 'measurement_angle',
    precision: 0,
  },
  illuminance_lx: {
    name: 'Illuminance',
    device_class: 'illuminance',
    unit: 'lx',
    state_class: 'measurement',
    precision: 0,
  },
  uv_index: { name: 'UV index', unit: 'UV index', state_class: 'measurement', precision: 1 },
  solar_w_m2: {
    name: 'Solar radiation',
    device_class: 'irradiance',
    unit: 'W/m²',
    state_class: 'measurement',
    precision: 0,
  },
  rain_in_today: {
    name: 'Rain today',
    device_class: 'precipitation',
    unit: 'in',
    state_class: 'total_increasing',
    precision: 2,
  },
  rain_intensity_in_hr: {
    name: 'Rain rate',
    device_class: 'precipitation_intensity',
    unit: 'in/h',
    state_class: 'measurement',
    precision: 2,
  },
  lightning_strikes_last_hour: {
    name: 'Lightning strikes (last hour)',
    state_class: 'measurement',
    precision: 0,
  },
  lightning_avg_dist_mi: {
    name: 'Lightning distance',
    device_class: 'distance',
    unit: 'mi',
    state_class: 'measurement',
    precision: 1,
  },
  battery_v: {
    name: 'Station battery',
    device_class: 'voltage',
    unit: 'V',
    state_class: 'measurement',
    precision: 2,
    entity_category: 'diagnostic',
  },
  battery_pct: {
    name: 'Station battery level',
    device_class: 'battery',
    unit: '%',
    state_class: 'measurement',
    precision: 0,
    entity_category: 'diagnostic',
  },
  pop_pct: { name: 'Chance of rain', unit: '%', state_class: 'measurement', precision: 0 },
  leaf_wetness_pct: { name: 'Leaf wetness', unit: '%', state_class: 'measurement', precision: 0 },
};

export function weatherEntities(fields: readonly string[]): EntityDescriptor[] {
  return fields
    .filter((field) => field in WEATHER_SENSORS)
    .sort()
    .map((field) => {
      const spec = WEATHER_SENSORS[field] as WeatherSensor;
      return {
        key: `weather_${field}`,
        platform: 'sensor' as const,
        name: spec.name,
        device: { kind: 'service' as const },
        requires: `weather:${field}`,
        ...(spec.device_class ? { device_class: spec.device_class } : {}),
        ...(spec.unit ? { unit_of_measurement: spec.unit } : {}),
        ...(spec.state_class ? { state_class: spec.state_class } : {}),
        ...(spec.entity_category ? { entity_category: spec.entity_category } : {}),
        ...(spec.precision === undefined ? {} : { suggested_display_precision: spec.precision }),
        state: (view) => {
          const sample = view.weather?.[field];
          return sample ? String(sample.value) : null;
        },
      };
    });
}
