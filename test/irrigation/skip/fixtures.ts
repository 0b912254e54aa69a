import { DateTime } from 'luxon';
import { zoneFor } from '../../../server/src/core/tz/zone';
import type { DailyEntry, HourlyEntry } from '../../../server/src/forecast/types';
import type { SkipCheckInput } from '../../../server/src/irrigation/skip';
import type { WeatherSnapshot } from '../../../server/src/weather/snapshot';

export const TZ = 'America/New_York';
export const HOUR = 3600;
const zone = zoneFor(TZ);

/** Epoch of a local wall-clock time in TZ. */
export function local(iso: string): number {
  return DateTime.fromISO(iso, { zone }).toSeconds();
}

/** Monday 2025-06-16 10:30 EDT. */
export const NOW = local('2025-06-16T10:30:00');
export const TODAY = '2025-06-16';
export const MIDNIGHT = local('2025-06-16T00:00:00');

export function dateAt(offset: number): string {
  return DateTime.fromISO(TODAY, { zone }).plus({ days: offset }).toISODate() ?? '';
}

export function hour(time_epoch: number, values: Partial<HourlyEntry> = {}): HourlyEntry {
  return {
    time_epoch,
    temp_f: 70,
    precip_in: 0,
    precip_probability: 10,
    wind_mph: 5,
    humidity_pct: 50,
    et0_in: 0.01,
    et0_reported: true,
    ...values,
  };
}

/** Every hour from today's local midnight for `days` days, dry and mild. */
export function hours(days = 8, values: Partial<HourlyEntry> = {}): HourlyEntry[] {
  const out: HourlyEntry[] = [];
  const end = DateTime.fromISO(TODAY, { zone }).plus({ days }).toSeconds();
  for (let t = MIDNIGHT; t < end; t += HOUR) out.push(hour(t, values));
  return out;
}

export function day(offset: number, values: Partial<DailyEntry> = {}): DailyEntry {
  const date = dateAt(offset);
  return {
    date_local: date,
    time_epoch: DateTime.fromISO(date, { zone }).toSeconds(),
    temp_max_f: 80,
    temp_min_f: 60,
    precip_sum_in: 0,
    precip_probability_max: 10,
    wind_max_mph: 8,
    wind_mean_2m_ms: 2,
    humidity_pct: 50,
    humidity_mean_pct: 50,
    et0_in: 0.2,
    et0_reported: true,
    sunrise_epoch: null,
    sunset_epoch: null,
    radiation_mj_m2: null,
    ...values,
  };
}

/** Today and the 7 days after it. */
export function days(count = 8): DailyEntry[] {
  return Array.from({ length: count }, (_, i) => day(i));
}

/** A snapshot with every key null, as with no live source. */
export function emptyWeather(): WeatherSnapshot {
  return {
    last_packet_epoch: null,
    air_temp_f: null,
    feels_like_f: null,
    dew_point_f: null,
    wet_bulb_f: null,
    rh_pct: null,
    pressure_inhg: null,
    pressure_trend_inhg: [],
    wind_lull_mph: null,
    wind_avg_mph: null,
    wind_gust_mph: null,
    rapid_wind_mph: null,
    wind_dir_deg: null,
    rapid_wind_dir: null,
    illuminance_lx: null,
    uv_index: null,
    solar_w_m2: null,
    rain_in_last_min: null,
    rain_in_today: null,
    rain_intensity_in_hr: null,
    precip_type: null,
    lightning_count_last_min: null,
    lightning_strikes_last_hour: null,
    lightning_recent: [],
    lightning_avg_dist_mi: null,
    last_strike_distance_mi: null,
    last_strike_epoch: null,
    battery_v: null,
    battery_pct: null,
    station_serial: null,
    hub_serial: null,
    pop_pct: null,
    leaf_wetness_pct: null,
    air_temp_live_epoch: null,
    wind_live_epoch: null,
    rh_live_epoch: null,
    rain_live_epoch: null,
    source_label: 'no live source',
    has_live_station: false,
  };
}

/** A live station: mild, calm, dry, measured a minute ago. */
export function stationWeather(values: Partial<WeatherSnapshot> = {}): WeatherSnapshot {
  return {
    ...emptyWeather(),
    last_packet_epoch: NOW - 60,
    air_temp_f: 72,
    rh_pct: 55,
    wind_avg_mph: 4,
    rain_in_today: 0,
    rain_intensity_in_hr: 0,
    air_temp_live_epoch: NOW - 60,
    wind_live_epoch: NOW - 60,
    rh_live_epoch: NOW - 60,
    rain_live_epoch: NOW - 60,
    source_label: 'Backyard station',
    has_live_station: true,
    ...values,
  };
}

/** Dry past days, newest being yesterday. */
export function dryPast(count = 5, rain = 0): { date_local: string; rain_in: number | null }[] {
  return Array.from({ length: count }, (_, i) => ({ date_local: dateAt(-(i + 1)), rain_in: rain }));
}

/** A clear morning: every rule has evidence and none skips. */
export function clearInput(overrides: Partial<SkipCheckInput> = {}): SkipCheckInput {
  return {
    now_epoch: NOW,
    timezone: TZ,
    weather: stationWeather(),
    hourly: hours(),
    daily: days(),
    past_rain: dryPast(),
    pause_until_epoch: 0,
    run_window: null,
    soil_temp_probe: null,
    zones: ['front_lawn', 'back_beds'],
    ...overrides,
  };
}

/** Replace the hourly entries at the given hour starts. */
export function patchHours(
  list: HourlyEntry[],
  patch: Record<number, Partial<HourlyEntry> | null>,
): HourlyEntry[] {
  return list.flatMap((h) => {
    if (!(h.time_epoch in patch)) return [h];
    const p = patch[h.time_epoch];
    return p === null || p === undefined ? [] : [{ ...h, ...p }];
  });
}

/** Replace the daily entries at the given day offsets (null removes the day). */
export function patchDays(
  list: DailyEntry[],
  patch: Record<number, Partial<DailyEntry> | null>,
): DailyEntry[] {
  return list.flatMap((d, i) => {
    if (!(i in patch)) return [d];
    const p = patch[i];
    return p === null || p === undefined ? [] : [{ ...d, ...p }];
  });
}
