import { ManualClock } from '../../../server/src/core/clock';
import type { DailyEntry, HourlyEntry } from '../../../server/src/forecast/types';
import {
  applied,
  configDocument,
  DEFAULT_DAILY,
  DEFAULT_HOURLY,
  forecastHarness,
  HOUR,
  localEpoch,
  NwsPeer,
  OpenMeteoPeer,
  type Series,
} from './peers';

/**
 * Spec 1.5 and 2.4 through the service: a value the provider did not give is
 * null in the snapshot, in its own slot, never 0 and never borrowed from a
 * neighbour; `et0_in` is 0 only when `et0_reported` is true.
 */

const h = forecastHarness();
const T0 = localEpoch('2026-07-15T12:20:00');
const TODAY = localEpoch('2026-07-15T00:00:00');
const day = (date: string) => localEpoch(`${date}T00:00:00`);

/** The default series with nulls (or other values) at some times. */
function withValues(base: Series | undefined, at: Record<number, number | null>): Series {
  return (t) => (t in at ? (at[t] as number | null) : (base?.(t) ?? null));
}

/** Open-Meteo states amounts and probabilities at the END of their hour: the hour starting at t is the step at t + 1 h. */
const STEP_AFTER = (hourStart: number) => hourStart + HOUR;

const NULL_TEMP = TODAY + 30 * HOUR;
const NULL_HUMIDITY = TODAY + 31 * HOUR;
const NULL_WIND = TODAY + 32 * HOUR;
const NULL_PRECIP = TODAY + 33 * HOUR;
const NULL_ET0 = TODAY + 35 * HOUR;
const ZERO_ET0 = TODAY + 36 * HOUR;

function peerOptions() {
  return {
    hourly: {
      temperature_2m: withValues(DEFAULT_HOURLY.temperature_2m, { [NULL_TEMP]: null }),
      relative_humidity_2m: withValues(DEFAULT_HOURLY.relative_humidity_2m, { [NULL_HUMIDITY]: null }),
      wind_speed_10m: withValues(DEFAULT_HOURLY.wind_speed_10m, { [NULL_WIND]: null }),
      precipitation: withValues(DEFAULT_HOURLY.precipitation, { [STEP_AFTER(NULL_PRECIP)]: null }),
      precipitation_probability: withValues(DEFAULT_HOURLY.precipitation_probability, {
        [STEP_AFTER(NULL_PRECIP)]: null,
      }),
      et0_fao_evapotranspiration: withValues(DEFAULT_HOURLY.et0_fao_evapotranspiration, {
        [STEP_AFTER(NULL_ET0)]: null,
        [STEP_AFTER(ZERO_ET0)]: 0,
      }),
    },
    daily: {
      temperature_2m_min: withValues(DEFAULT_DAILY.temperature_2m_min, { [day('2026-07-13')]: null }),
      temperature_2m_max: withValues(DEFAULT_DAILY.temperature_2m_max, { [day('2026-07-17')]: null }),
      precipitation_sum: withValues(DEFAULT_DAILY.precipitation_sum, { [day('2026-07-17')]: null }),
      relative_humidity_2m_mean: withValues(DEFAULT_DAILY.relative_humidity_2m_mean, {
        [day('2026-07-18')]: null,
      }),
      wind_speed_10m_max: withValues(DEFAULT_DAILY.wind_speed_10m_max, { [day('2026-07-18')]: null }),
      wind_speed_10m_mean: withValues(DEFAULT_DAILY.wind_speed_10m_mean, { [day('2026-07-19')]: null }),
      et0_fao_evapotranspiration: withValues(DEFAULT_DAILY.et0_fao_evapotranspiration, {
        [day('2026-07-19')]: 0,
        [day('2026-07-20')]: null,
      }),
    },
  };
}

function hourAt(hourly: HourlyEntry[], t: number): HourlyEntry {
  const entry = hourly.find((e) => e.time_epoch === t);
  if (!entry) throw new Error(`no hourly entry at ${t}`);
  return entry;
}

function dayOf(days: DailyEntry[], date: string): DailyEntry {
  const entry = days.find((d) => d.date_local === date);
  if (!entry) throw new Error(`no daily entry ${date}`);
  return entry;
}

function expectEt0Honest(entries: (HourlyEntry | DailyEntry)[]): void {
  for (const e of entries) {
    if (e.et0_in === 0) expect(e.et0_reported).toBe(true);
    if (!e.et0_reported) expect(e.et0_in).toBeNull();
    if (e.et0_reported) expect(e.et0_in).toEqual(expect.any(Number));
  }
}

describe('ForecastService: nulls stay null, zero ET0 only when reported', () => {
  it('keeps the nulls in the middle of the Open-Meteo series in their own slots', async () => {
    const clock = new ManualClock(T0 * 1000);
    const om = h.track(await new OpenMeteoPeer(clock, peerOptions()).start());
    const config = applied(configDocument(om.baseUrl, null));
    const service = h.service(clock, () => config);
    await service.refresh();
    // The snapshot goes out as JSON: the nulls must survive that too.
    const snap = JSON.parse(JSON.stringify(service.snapshot())) as ReturnType<typeof service.snapshot>;
    expect(snap.source_label).toBe('Open-Meteo forecast');

    const at = (t: number) => hourAt(snap.hourly, t);
    expect(at(NULL_TEMP).temp_f).toBeNull();
    expect(at(NULL_TEMP - HOUR).temp_f).toEqual(expect.any(Number));
    expect(at(NULL_TEMP + HOUR).temp_f).toEqual(expect.any(Number));
    expect(at(NULL_TEMP).humidity_pct).toEqual(expect.any(Number));
    expect(at(NULL_HUMIDITY).humidity_pct).toBeNull();
    expect(at(NULL_HUMIDITY).temp_f).toEqual(expect.any(Number));
    expect(at(NULL_WIND).wind_mph).toBeNull();
    expect(at(NULL_WIND - HOUR).wind_mph).toEqual(expect.any(Number));
    expect(at(NULL_PRECIP)).toMatchObject({ precip_in: null, precip_probability: null });
    expect(at(NULL_PRECIP - HOUR).precip_in).toEqual(expect.any(Number));
    expect(at(NULL_PRECIP + HOUR).precip_in).toEqual(expect.any(Number));
    expect(at(NULL_PRECIP).temp_f).toEqual(expect.any(Number));
    expect(at(NULL_ET0)).toMatchObject({ et0_in: null, et0_reported: false });
    expect(at(ZERO_ET0)).toMatchObject({ et0_in: 0, et0_reported: true });
    // A measured zero stays zero: dry hours of the default series.
    expect(snap.hourly.some((e) => e.precip_in === 0)).toBe(true);
    // Nothing else went missing.
    const nullTemps = snap.hourly.filter((e) => e.temp_f === null).map((e) => e.time_epoch);
    expect(nullTemps).toEqual([NULL_TEMP]);
    // Only the last hour of the series has no following step, so no amount.
    const nullPrecip = snap.hourly.filter((e) => e.precip_in === null).map((e) => e.time_epoch);
    expect(nullPrecip).toEqual([NULL_PRECIP, (snap.hourly.at(-1) as HourlyEntry).time_epoch]);

    expect(dayOf(snap.past_daily, '2026-07-13')).toMatchObject({ temp_min_f: null, temp_max_f: 84.2 });
    expect(dayOf(snap.daily, '2026-07-17')).toMatchObject({
      temp_max_f: null,
      precip_sum_in: null,
      temp_min_f: 61.5,
    });
    expect(dayOf(snap.daily, '2026-07-16')).toMatchObject({ temp_max_f: 84.2, precip_sum_in: 0.12 });
    expect(dayOf(snap.daily, '2026-07-18')).toMatchObject({
      humidity_pct: null,
      humidity_mean_pct: null,
      wind_max_mph: null,
      temp_max_f: 84.2,
    });
    expect(dayOf(snap.daily, '2026-07-19')).toMatchObject({
      wind_mean_2m_ms: null,
      wind_max_mph: 14.3,
      et0_in: 0,
      et0_reported: true,
    });
    expect(dayOf(snap.daily, '2026-07-20')).toMatchObject({ et0_in: null, et0_reported: false });
    expect(dayOf(snap.daily, '2026-07-21')).toMatchObject({ et0_in: 0.18, et0_reported: true });

    expectEt0Honest([...snap.hourly, ...snap.daily, ...snap.past_daily]);
  });

  it('gives no ET0 and no daily sums from the NWS backup, and no max/min for a day it covers in part', async () => {
    const clock = new ManualClock(T0 * 1000);
    const om = h.track(await new OpenMeteoPeer(clock, { mode: 'fail' }).start());
    const nws = h.track(await new NwsPeer(clock).start());
    const config = applied(configDocument(om.baseUrl, nws.baseUrl));
    const service = h.service(clock, () => config);
    await service.refresh();
    const snap = service.snapshot();
    expect(snap.source_is_backup).toBe(true);
    expectEt0Honest([...snap.hourly, ...snap.daily, ...snap.past_daily]);
    for (const e of snap.hourly) expect(e.et0_reported).toBe(false);
    // Today from 12:00 on is 12 of 24 hours: no honest max or mean for the whole day.
    expect(dayOf(snap.daily, '2026-07-15')).toMatchObject({
      temp_max_f: null,
      temp_min_f: null,
      humidity_pct: null,
      wind_max_mph: null,
      precip_sum_in: null,
    });
    expect(dayOf(snap.daily, '2026-07-16')).toMatchObject({
      temp_max_f: expect.any(Number),
      humidity_mean_pct: expect.any(Number),
      precip_sum_in: null,
      precip_probability_max: expect.any(Number),
    });
  });
});
