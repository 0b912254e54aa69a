import { formatAge } from '../../lib/time';
import type { CurrentWeatherSample } from '../zones/irrigation-types';
import type { Format } from '../zones/zone-model';
import type { WeatherSnapshot } from './weather-types';

/**
 * The dashboard's live weather tiles (pure). One tile per headline field the
 * snapshot carries; a null value is unknown (the tile says so), never 0.
 * Each tile names where its value came from and how old it is: the per-field
 * sample of the irrigation snapshot's `current_weather` when there is one,
 * else the weather snapshot's per-group observation time and source label.
 */

export interface Tile {
  key: string;
  label: string;
  /** The value in display units, or null = unknown. */
  value: string | null;
  /** A second fact shown under the value (wind direction, pressure trend). */
  detail: string | null;
  /** Where the value came from, in words. */
  source: string;
  observedEpoch: number | null;
}

type Group = 'air' | 'wind' | 'rh' | 'rain' | null;

interface Spec {
  key: string;
  label: string;
  group: Group;
  show: (value: number, fmt: Format, metric: boolean) => string;
  /** Fields a derived value is computed from (its age is the oldest input's). */
  from?: string[];
}

const SPECS: Spec[] = [
  { key: 'air_temp_f', label: 'Temperature', group: 'air', show: (v, f) => f('temp_f', v) },
  {
    key: 'feels_like_f',
    label: 'Feels like',
    group: 'air',
    show: (v, f) => f('temp_f', v),
    from: ['air_temp_f', 'rh_pct', 'wind_avg_mph'],
  },
  { key: 'rh_pct', label: 'Humidity', group: 'rh', show: (v, f) => f('pct', v) },
  {
    key: 'dew_point_f',
    label: 'Dew point',
    group: 'air',
    show: (v, f) => f('temp_f', v),
    from: ['air_temp_f', 'rh_pct'],
  },
  { key: 'wind_avg_mph', label: 'Wind', group: 'wind', show: (v, f) => f('wind_mph', v) },
  { key: 'wind_gust_mph', label: 'Gust', group: 'wind', show: (v, f) => f('wind_mph', v) },
  { key: 'rain_in_today', label: 'Rain today', group: 'rain', show: (v, f) => f('rain_in', v) },
  { key: 'rain_intensity_in_hr', label: 'Rain rate', group: 'rain', show: (v, f) => `${f('rain_in', v)}/h` },
  { key: 'pop_pct', label: 'Chance of rain', group: null, show: (v, f) => f('pct', v) },
  { key: 'pressure_inhg', label: 'Pressure', group: null, show: (v, f) => f('pressure_inhg', v) },
  { key: 'uv_index', label: 'UV index', group: null, show: (v) => v.toFixed(1) },
  { key: 'solar_w_m2', label: 'Solar radiation', group: null, show: (v) => `${Math.round(v)} W/m²` },
  { key: 'leaf_wetness_pct', label: 'Leaf wetness', group: null, show: (v, f) => f('pct', v) },
  {
    key: 'lightning_strikes_last_hour',
    label: 'Lightning (1 h)',
    group: null,
    show: (v) => `${Math.round(v)} ${Math.round(v) === 1 ? 'strike' : 'strikes'}`,
  },
];

const GROUP_EPOCH: Record<Exclude<Group, null>, string> = {
  air: 'air_temp_live_epoch',
  wind: 'wind_live_epoch',
  rh: 'rh_live_epoch',
  rain: 'rain_live_epoch',
};

const COMPASS = [
  'N',
  'NNE',
  'NE',
  'ENE',
  'E',
  'ESE',
  'SE',
  'SSE',
  'S',
  'SSW',
  'SW',
  'WSW',
  'W',
  'WNW',
  'NW',
  'NNW',
];

export function compass(deg: number): string {
  const i = Math.round((((deg % 360) + 360) % 360) / 22.5) % 16;
  return COMPASS[i] ?? 'N';
}

/** Rising / falling / steady from the pressure trend series (inHg, oldest first); null when too short. */
export function pressureTrend(trend: readonly number[] | undefined): string | null {
  if (!trend || trend.length < 2) return null;
  const first = trend[0] as number;
  const last = trend[trend.length - 1] as number;
  const change = last - first;
  if (Math.abs(change) < 0.02) return 'steady';
  return change > 0 ? 'rising' : 'falling';
}

function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function sourceOf(sample: CurrentWeatherSample): string {
  return sample.measured ? sample.source_id : `${sample.source_id} (modelled, not measured)`;
}

export function buildTiles(
  weather: WeatherSnapshot,
  current: Record<string, CurrentWeatherSample> | null | undefined,
  fmt: Format,
  metric: boolean,
): Tile[] {
  const tiles: Tile[] = [];
  for (const spec of SPECS) {
    if (!(spec.key in weather)) continue;
    const value = num(weather[spec.key]);
    let source = weather.source_label ?? 'unknown source';
    let observedEpoch: number | null = null;
    const sample = current?.[spec.key];
    if (sample) {
      source = sourceOf(sample);
      observedEpoch = sample.observed_epoch;
    } else if (spec.from) {
      const inputs = spec.from.map((k) => current?.[k]).filter((s): s is CurrentWeatherSample => !!s);
      if (inputs.length > 0) {
        const names = [...new Set(inputs.map(sourceOf))].join(', ');
        source = `computed from ${names}`;
        observedEpoch = Math.min(...inputs.map((s) => s.observed_epoch));
      }
    }
    if (observedEpoch === null && spec.group) observedEpoch = num(weather[GROUP_EPOCH[spec.group]]);
    if (observedEpoch === null) observedEpoch = num(weather.last_packet_epoch);
    if (value === null) {
      observedEpoch = null;
      source = 'no live reading';
    }

    let detail: string | null = null;
    if (spec.key === 'wind_avg_mph') {
      const dir = num(weather.wind_dir_deg);
      detail = dir === null ? null : `from ${compass(dir)} (${Math.round(dir)}°)`;
    } else if (spec.key === 'pressure_inhg') {
      const trend = pressureTrend(weather.pressure_trend_inhg);
      detail = trend;
    } else if (spec.key === 'feels_like_f' || spec.key === 'dew_point_f') {
      detail = 'computed';
    } else if (spec.key === 'lightning_strikes_last_hour') {
      const mi = num(weather.last_strike_distance_mi);
      if (mi !== null)
        detail = `last ${metric ? `${Math.round(mi * 1.609344)} km` : `${Math.round(mi)} mi`} away`;
    }

    tiles.push({
      key: spec.key,
      label: spec.label,
      value: value === null ? null : spec.show(value, fmt, metric),
      detail,
      source,
      observedEpoch,
    });
  }
  return tiles;
}

/** "demo · 12 s ago" for the tile's meta line and title. */
export function tileProvenance(tile: Tile, nowMs: number): string {
  if (tile.value === null) return 'No live reading';
  return `Source: ${tile.source}; observed ${formatAge(tile.observedEpoch, nowMs)}`;
}
