import { dewPointF, feelsLikeF, wetBulbF } from './derived';
import type { WeatherField } from './fields';
import type { Selection } from './merge';
import type { RecentStrike } from './trackers/lightning';
import { compareText } from '../core/compare';

/**
 * The weather snapshot (spec 2.2), built from the merged selections (pure).
 * Every key is always present; a value without live evidence is null. Derived
 * fields are computed only from live inputs.
 */

export interface WeatherSnapshot {
  last_packet_epoch: number | null;
  air_temp_f: number | null;
  feels_like_f: number | null;
  dew_point_f: number | null;
  wet_bulb_f: number | null;
  rh_pct: number | null;
  pressure_inhg: number | null;
  pressure_trend_inhg: number[];
  wind_lull_mph: number | null;
  wind_avg_mph: number | null;
  wind_gust_mph: number | null;
  rapid_wind_mph: number | null;
  wind_dir_deg: number | null;
  rapid_wind_dir: number | null;
  illuminance_lx: number | null;
  uv_index: number | null;
  solar_w_m2: number | null;
  rain_in_last_min: number | null;
  rain_in_today: number | null;
  rain_intensity_in_hr: number | null;
  precip_type: number | null;
  lightning_count_last_min: number | null;
  lightning_strikes_last_hour: number | null;
  lightning_recent: RecentStrike[];
  lightning_avg_dist_mi: number | null;
  last_strike_distance_mi: number | null;
  last_strike_epoch: number | null;
  battery_v: number | null;
  battery_pct: number | null;
  station_serial: string | null;
  hub_serial: string | null;
  pop_pct: number | null;
  leaf_wetness_pct: number | null;
  air_temp_live_epoch: number | null;
  wind_live_epoch: number | null;
  rh_live_epoch: number | null;
  rain_live_epoch: number | null;
  source_label: string;
  has_live_station: boolean;
}

export interface SnapshotInput {
  selections: ReadonlyMap<WeatherField, Selection>;
  lastPacketEpoch: number | null;
  pressureTrend: number[];
  lightningRecent: RecentStrike[];
  lastStrike: { epoch: number; distanceMi: number | null } | null;
  stationSerial: string | null;
  hubSerial: string | null;
  /** Display label per source id, for `source_label`. */
  labels: ReadonlyMap<string, string>;
  /** Source ids that are local stations (not cloud or model). */
  stations: ReadonlySet<string>;
}

const ROUND = 2;

export function buildWeatherSnapshot(input: SnapshotInput): WeatherSnapshot {
  const v = (field: WeatherField): number | null => input.selections.get(field)?.value ?? null;
  const at = (...fields: WeatherField[]): number | null => {
    for (const field of fields) {
      const selection = input.selections.get(field);
      if (selection) return selection.observedEpoch;
    }
    return null;
  };
  const air = v('air_temp_f');
  const rh = v('rh_pct');
  const owners = [...input.selections.values()].map((s) => s.sourceId);
  return {
    last_packet_epoch: input.lastPacketEpoch,
    air_temp_f: air,
    feels_like_f: round(feelsLikeF(air, rh, v('wind_avg_mph'))),
    dew_point_f: round(dewPointF(air, rh)),
    wet_bulb_f: round(wetBulbF(air, rh)),
    rh_pct: rh,
    pressure_inhg: v('pressure_inhg'),
    pressure_trend_inhg: input.pressureTrend,
    wind_lull_mph: v('wind_lull_mph'),
    wind_avg_mph: v('wind_avg_mph'),
    wind_gust_mph: v('wind_gust_mph'),
    rapid_wind_mph: v('rapid_wind_mph'),
    wind_dir_deg: v('wind_dir_deg'),
    rapid_wind_dir: v('rapid_wind_dir'),
    illuminance_lx: v('illuminance_lx'),
    uv_index: v('uv_index'),
    solar_w_m2: v('solar_w_m2'),
    rain_in_last_min: v('rain_in_last_min'),
    rain_in_today: v('rain_in_today'),
    rain_intensity_in_hr: v('rain_intensity_in_hr'),
    precip_type: v('precip_type'),
    lightning_count_last_min: v('lightning_count_last_min'),
    lightning_strikes_last_hour: v('lightning_strikes_last_hour'),
    lightning_recent: input.lightningRecent,
    lightning_avg_dist_mi: v('lightning_avg_dist_mi'),
    last_strike_distance_mi: input.lastStrike?.distanceMi ?? null,
    last_strike_epoch: input.lastStrike?.epoch ?? null,
    battery_v: v('battery_v'),
    battery_pct: v('battery_pct'),
    station_serial: input.stationSerial,
    hub_serial: input.hubSerial,
    pop_pct: v('pop_pct'),
    leaf_wetness_pct: v('leaf_wetness_pct'),
    air_temp_live_epoch: at('air_temp_f'),
    wind_live_epoch: at('wind_avg_mph', 'rapid_wind_mph', 'wind_gust_mph'),
    rh_live_epoch: at('rh_pct'),
    rain_live_epoch: at('rain_in_today', 'rain_in_last_min', 'rain_intensity_in_hr'),
    source_label: sourceLabel(owners, input.labels),
    has_live_station: owners.some((id) => input.stations.has(id)),
  };
}

/** The source owning the most fields names the snapshot; others are counted. */
function sourceLabel(owners: string[], labels: ReadonlyMap<string, string>): string {
  if (owners.length === 0) return 'no live source';
  const counts = new Map<string, number>();
  for (const id of owners) counts.set(id, (counts.get(id) ?? 0) + 1);
  const ranked = [...counts.entries()].sort((a, b) => b[1] - a[1] || compareText(a[0], b[0]));
  const [top] = ranked[0] as [string, number];
  const name = labels.get(top) ?? top;
  return ranked.length === 1 ? name : `${name} + ${ranked.length - 1} more`;
}

function round(value: number | null): number | null {
  return value === null ? null : Number(value.toFixed(ROUND));
}
