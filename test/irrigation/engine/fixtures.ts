import { configSchema, type RaincheckConfig } from '../../../server/src/config/schema';
import { demoConfig } from '../../../server/src/config/demo-config';
import { DateTime } from 'luxon';
import { zoneFor } from '../../../server/src/core/tz/zone';
import type { DailyEntry, HourlyEntry } from '../../../server/src/forecast/types';
import type { ForecastSnapshot } from '../../../server/src/forecast/types';
import { neutralControls, type ControlsState } from '../../../server/src/irrigation/controls/types';
import type { EngineInput } from '../../../server/src/irrigation/engine/types';
import type { RunRecord } from '../../../server/src/store/runs';
import { day, hour, hours, NOW, stationWeather, TZ } from '../skip/fixtures';

export { NOW, TZ, TODAY, dateAt, local, day, hours, HOUR } from '../skip/fixtures';

/** The demo config (Orlando, six soil-model zones), parsed with defaults. */
export function demo(patch: (raw: Record<string, unknown>) => void = () => undefined): RaincheckConfig {
  const raw = demoConfig(null, null) as Record<string, unknown>;
  patch(raw);
  return configSchema.parse(raw);
}

/** Past days -count..-1, dry by default, as the forecast archive reports them. */
export function pastDays(count = 7, values: Partial<DailyEntry> = {}): DailyEntry[] {
  return Array.from({ length: count }, (_, i) => day(i - count, values));
}

export function forecast(values: Partial<ForecastSnapshot> = {}): ForecastSnapshot {
  return {
    last_refresh_epoch: NOW - 600,
    source_reachable: true,
    source_label: 'test model',
    source_is_backup: false,
    timezone: TZ,
    daily: Array.from({ length: 8 }, (_, i) => day(i)),
    past_daily: pastDays(),
    hourly: hours(8),
    ...values,
  };
}

export function run(
  values: Partial<RunRecord> & Pick<RunRecord, 'zone' | 'start_epoch' | 'duration_s'>,
): RunRecord {
  return {
    session_id: null,
    skip_reason: null,
    source: 'ha_refresher',
    status: 'completed',
    controller_id: 'demo_controller',
    applied_mm: null,
    volume_gal: null,
    note: null,
    cycle_index: null,
    cycle_count: null,
    ...values,
  };
}

export function controls(values: Partial<ControlsState> = {}): ControlsState {
  return { ...neutralControls(), ...values };
}

/** A dry, calm June week in Orlando: every skip rule has evidence and none skips. */
export function input(values: Partial<EngineInput> = {}): EngineInput {
  return {
    nowEpoch: NOW,
    config: demo(),
    timezone: TZ,
    weather: stationWeather(),
    currentWeather: null,
    forecast: forecast(),
    bias: { multiplier: 1, sample_count: 0, trained: false },
    runs: [],
    gaugeDailyRain: new Map(),
    controls: controls(),
    controlsPersisted: false,
    ...values,
  };
}

/**
 * A windy morning before a wet day, in the given display units: the forecast
 * wind skips today (due zones are held), tomorrow's rain and the 3-day rain
 * would skip, and the soil zones' reasons carry depths, ranges and triggers.
 */
export function windyMorning(units: 'imperial' | 'metric'): EngineInput {
  return input({
    config: demo((raw) => {
      (raw['deployment'] as Record<string, unknown>)['units'] = units;
    }),
    forecast: forecast({
      daily: Array.from({ length: 8 }, (_, i) =>
        day(i, i === 1 ? { precip_sum_in: 0.6, precip_probability_max: 90, wind_max_mph: 25 } : {}),
      ),
      hourly: hours(8, { wind_mph: 18 }),
    }),
  });
}

/** The dry, calm week of `input`, moved to start on `today` at 10:30 local (live readings then); `weatherAt` changes some hours. */
export function inputOn(
  today: string,
  config: RaincheckConfig,
  weatherAt: (local: DateTime) => Partial<HourlyEntry> = () => ({}),
): EngineInput {
  const zone = zoneFor(TZ);
  const midnight = DateTime.fromISO(today, { zone });
  const dayOn = (offset: number): DailyEntry => {
    const date = midnight.plus({ days: offset });
    return { ...day(offset), date_local: date.toISODate() ?? '', time_epoch: date.toSeconds() };
  };
  const hours = [];
  for (let t = midnight.toSeconds(); t < midnight.plus({ days: 8 }).toSeconds(); t += 3600)
    hours.push(hour(t, weatherAt(DateTime.fromSeconds(t, { zone }))));
  const now = midnight.set({ hour: 10, minute: 30 }).toSeconds();
  const live = now - 60;
  return input({
    nowEpoch: now,
    config,
    weather: stationWeather({
      last_packet_epoch: live,
      air_temp_live_epoch: live,
      wind_live_epoch: live,
      rh_live_epoch: live,
      rain_live_epoch: live,
    }),
    forecast: forecast({
      last_refresh_epoch: now - 600,
      daily: Array.from({ length: 8 }, (_, i) => dayOn(i)),
      past_daily: Array.from({ length: 7 }, (_, i) => dayOn(i - 7)),
      hourly: hours,
    }),
  });
}
