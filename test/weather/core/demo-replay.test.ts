import { DateTime } from 'luxon';
import { ManualClock } from '../../../server/src/core/clock';
import { silentLogger } from '../../../server/src/core/logger';
import type { SourceBatch, WeatherSource } from '../../../server/src/weather/source';
import {
  DEMO_FIELDS,
  demoReplayKind,
  demoWeatherAt,
  strikesBetween,
} from '../../../server/src/weather/sources/demo/demo-replay';
import { appliedConfig, makeHarness, TZ, type Harness } from './harness';

/**
 * The demo replay: deterministic, storms 14:00-15:30 on days 0, 3 and 6 of
 * every 16-day cycle (a showery week, then nine dry days), plausible values.
 */

const STORM_START_H = 14;
const STORM_END_H = 15.5;

function localEpoch(day: number, hour: number, minute = 0): number {
  return DateTime.fromObject({ year: 2025, month: 6, day, hour, minute }, { zone: TZ }).toSeconds();
}

function localHour(epoch: number): number {
  const t = DateTime.fromSeconds(epoch, { zone: TZ });
  return t.hour + t.minute / 60 + t.second / 3600;
}

function isStormDay(day: number): boolean {
  return demoWeatherAt(localEpoch(day, 17), TZ).rain_in_today! > 0;
}

/** The storm days among 2025-06-01..30, found from the replay's own rain. */
const DAYS = Array.from({ length: 30 }, (_, i) => i + 1);
const STORM_DAYS = DAYS.filter(isStormDay);
const CALM_DAYS = DAYS.filter((d) => !isStormDay(d));

describe('demoWeatherAt', () => {
  it('is deterministic: the same epoch gives the same values', () => {
    for (const epoch of [localEpoch(3, 9, 17), localEpoch(11, 14, 40), localEpoch(20, 23, 59)]) {
      expect(demoWeatherAt(epoch, TZ)).toEqual(demoWeatherAt(epoch, TZ));
      expect(strikesBetween(epoch - 3600, epoch, TZ)).toEqual(strikesBetween(epoch - 3600, epoch, TZ));
    }
  });

  it('provides a value for every field it declares', () => {
    const values = demoWeatherAt(localEpoch(5, 12), TZ);
    for (const field of DEMO_FIELDS) expect(Number.isFinite(values[field])).toBe(true);
  });

  it('storms on days 0, 3 and 6 of each 16-day cycle, then stays dry for nine days', () => {
    // 2025-06-01 is day 20240 since 1970-01-01, a multiple of 16: the first day of a cycle.
    expect(STORM_DAYS).toEqual([1, 4, 7, 17, 20, 23]);
    const gaps = STORM_DAYS.slice(1).map((day, i) => day - STORM_DAYS[i]!);
    expect(gaps).toEqual([3, 3, 10, 3, 3]);
  });

  it("on a storm day, today's rain is 0 before 14:00, grows through 15:30, then holds until midnight", () => {
    const day = STORM_DAYS[3]!;
    for (let minute = 0; minute < STORM_START_H * 60; minute += 10) {
      const values = demoWeatherAt(localEpoch(day, 0) + minute * 60, TZ);
      expect(values.rain_in_today).toBe(0);
      expect(values.rain_intensity_in_hr).toBe(0);
      expect(values.precip_type).toBe(0);
    }
    let previous = 0;
    for (let minute = STORM_START_H * 60 + 5; minute < STORM_END_H * 60; minute += 5) {
      const values = demoWeatherAt(localEpoch(day, 0) + minute * 60, TZ);
      expect(values.rain_in_today).toBeGreaterThan(previous);
      expect(values.rain_intensity_in_hr).toBeGreaterThan(0);
      expect(values.precip_type).toBe(1);
      previous = values.rain_in_today!;
    }
    // The half-sine storm integrates to 0.6 in/h * 1.5 h * 2 / pi.
    const total = (0.6 * 1.5 * 2) / Math.PI;
    for (const [h, m] of [
      [15, 30],
      [18, 0],
      [23, 59],
    ] as const) {
      const values = demoWeatherAt(localEpoch(day, h, m), TZ);
      expect(values.rain_in_today).toBeCloseTo(total, 3);
      expect(values.rain_intensity_in_hr).toBe(0);
    }
    // Local midnight resets it.
    expect(demoWeatherAt(localEpoch(day + 1, 0, 5), TZ).rain_in_today).toBe(0);
  });

  it('has no rain at all on the other days', () => {
    for (const day of CALM_DAYS.slice(0, 6)) {
      for (let hour = 0; hour < 24; hour += 0.5) {
        const values = demoWeatherAt(localEpoch(day, 0) + hour * 3600, TZ);
        expect(values.rain_in_today).toBe(0);
        expect(values.rain_intensity_in_hr).toBe(0);
        expect(values.lightning_count_last_min).toBe(0);
      }
    }
  });

  it('stays within plausible ranges over a month, every 10 minutes', () => {
    const from = localEpoch(1, 0);
    for (let epoch = from; epoch < from + 30 * 86400; epoch += 600) {
      const v = demoWeatherAt(epoch, TZ);
      expect(v.air_temp_f).toBeGreaterThanOrEqual(50);
      expect(v.air_temp_f).toBeLessThanOrEqual(110);
      expect(v.rh_pct).toBeGreaterThanOrEqual(0);
      expect(v.rh_pct).toBeLessThanOrEqual(100);
      expect(v.pressure_inhg).toBeGreaterThan(29);
      expect(v.pressure_inhg).toBeLessThan(31);
      expect(v.wind_lull_mph).toBeGreaterThanOrEqual(0);
      expect(v.wind_avg_mph).toBeGreaterThanOrEqual(v.wind_lull_mph!);
      expect(v.wind_gust_mph).toBeGreaterThanOrEqual(v.wind_avg_mph!);
      expect(v.wind_dir_deg).toBeGreaterThanOrEqual(0);
      expect(v.wind_dir_deg).toBeLessThan(360);
      expect(v.solar_w_m2).toBeGreaterThanOrEqual(0);
      expect(v.uv_index).toBeGreaterThanOrEqual(0);
      expect(v.rain_in_today).toBeGreaterThanOrEqual(0);
    }
  });

  it('is dark at night', () => {
    const v = demoWeatherAt(localEpoch(7, 2), TZ);
    expect(v.solar_w_m2).toBe(0);
    expect(v.illuminance_lx).toBe(0);
    expect(v.uv_index).toBe(0);
  });
});

describe('strikesBetween', () => {
  it('strikes only during the storm, closing in', () => {
    for (const day of [...STORM_DAYS.slice(0, 3), ...CALM_DAYS.slice(0, 3)]) {
      const strikes = strikesBetween(localEpoch(day, 0), localEpoch(day + 1, 0), TZ);
      if (!STORM_DAYS.includes(day)) {
        expect(strikes).toEqual([]);
        continue;
      }
      expect(strikes.length).toBeGreaterThan(5);
      for (const strike of strikes) {
        const hour = localHour(strike.epoch);
        expect(hour).toBeGreaterThanOrEqual(STORM_START_H);
        expect(hour).toBeLessThan(STORM_END_H);
        expect(strike.distanceMi).toBeGreaterThan(0);
        expect(strike.distanceMi).toBeLessThanOrEqual(12);
      }
      const distances = strikes.map((s) => s.distanceMi as number);
      expect([...distances].sort((a, b) => b - a)).toEqual(distances);
    }
  });

  it('covers (from, to] exactly once when split into ticks', () => {
    const day = STORM_DAYS[0]!;
    const from = localEpoch(day, 13, 55);
    const whole = strikesBetween(from, from + 3600, TZ);
    const pieces = [0, 1, 2, 3, 4, 5].flatMap((i) =>
      strikesBetween(from + i * 600, from + (i + 1) * 600, TZ),
    );
    expect(pieces).toEqual(whole);
  });

  it('agrees with lightning_count_last_min', () => {
    const day = STORM_DAYS[0]!;
    for (let epoch = localEpoch(day, 14); epoch < localEpoch(day, 15); epoch += 60) {
      expect(demoWeatherAt(epoch, TZ).lightning_count_last_min).toBe(
        strikesBetween(epoch - 60, epoch, TZ).length,
      );
    }
  });
});

describe('demo_replay source', () => {
  let source: WeatherSource | null = null;
  let h: Harness | null = null;

  afterEach(async () => {
    await source?.stop();
    await h?.service.stop();
    source = null;
    h = null;
    jest.useRealTimers();
  });

  it('reports contact and serials at start, readings at any time, and strikes each minute tick', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask', 'setImmediate'] });
    const day = STORM_DAYS[1]!;
    const clock = new ManualClock(localEpoch(day, 13, 58) * 1000);
    const batches: SourceBatch[] = [];
    const contacts: boolean[] = [];
    source = demoReplayKind.create({
      id: 'demo',
      config: {},
      clock,
      logger: silentLogger(),
      location: { lat: 30.27, lon: -97.74, elevationM: 150, timezone: TZ },
      sink: { publish: (b) => batches.push(b), contact: (ok) => contacts.push(ok) },
      fetch,
    });
    await source.start();
    expect(contacts).toEqual([true]);
    expect(batches).toEqual([{ strikes: [], stationSerial: 'ST-DEMO0001', hubSerial: 'HB-DEMO0001' }]);

    const now = localEpoch(day, 14, 30);
    const readings = source.readingsAt?.(now) ?? [];
    expect(readings.map((r) => r.field)).toEqual([...DEMO_FIELDS]);
    expect(readings.every((r) => r.observedEpoch === now && r.value !== null)).toBe(true);

    clock.set(now * 1000);
    jest.advanceTimersByTime(60_000);
    expect(batches).toHaveLength(2);
    const strikes = batches[1]?.strikes ?? [];
    expect(strikes).toEqual(strikesBetween(localEpoch(day, 13, 58), now, TZ));
    expect(strikes.length).toBeGreaterThan(3);

    // Stopped: no more ticks.
    await source.stop();
    jest.advanceTimersByTime(10 * 60_000);
    expect(batches).toHaveLength(2);
  });

  it('drives the service snapshot through a storm: rain, then lightning that decays', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask', 'setImmediate'] });
    const day = STORM_DAYS[2]!;
    h = makeHarness(appliedConfig([]), { demo: true, startEpoch: localEpoch(day, 13, 50) });
    await h.service.start();
    let s = h.service.snapshot();
    expect(s.rain_in_today).toBe(0);
    expect(s.lightning_strikes_last_hour).toBeNull();

    h.advance(40 * 60); // 14:30
    jest.advanceTimersByTime(60_000);
    s = h.service.snapshot();
    expect(s.rain_in_today).toBeGreaterThan(0);
    expect(s.precip_type).toBe(1);
    expect(s.lightning_strikes_last_hour).toBeGreaterThan(3);
    expect(s.last_strike_distance_mi).not.toBeNull();
    expect(h.service.currentWeather()?.rain_in_today?.measured).toBe(false);

    h.advance(3 * 3600); // 17:30: the storm is over and its strikes have aged out
    jest.advanceTimersByTime(60_000);
    s = h.service.snapshot();
    expect(s.lightning_strikes_last_hour).toBe(0);
    expect(s.last_strike_epoch).not.toBeNull();
    expect(s.rain_in_today).toBeCloseTo((0.6 * 1.5 * 2) / Math.PI, 3);
    expect(s.precip_type).toBe(0);
  });
});
