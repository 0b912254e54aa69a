import { DateTime } from 'luxon';
import { zoneFor } from '../../../server/src/core/tz/zone';
import {
  POST_SUNRISE_BUFFER_S,
  runWindow,
  sunriseEpoch,
  type RunWindowInput,
} from '../../../server/src/irrigation/schedule/run-window';

const NY = { lat: 40.7128, lon: -74.006, timezone: 'America/New_York' };
const SVALBARD = { lat: 78.22, lon: 15.65, timezone: 'Arctic/Longyearbyen' };
const HOUR = 3600;

function input(overrides: Partial<RunWindowInput>): RunWindowInput {
  return {
    ...NY,
    dateLocal: '2026-06-15',
    totalRunSeconds: 2 * HOUR,
    minTempF: 60,
    minTempThresholdF: 38,
    ...overrides,
  };
}

function ok(result: ReturnType<typeof runWindow>) {
  if (result.state !== 'ok') throw new Error(`expected a window, got ${result.state}`);
  return result;
}

function local(epoch: number, timezone = NY.timezone): string {
  return DateTime.fromSeconds(epoch, { zone: zoneFor(timezone) }).toFormat('yyyy-MM-dd HH:mm ZZ');
}

describe('runWindow', () => {
  it('finishes a pre-dawn run at sunrise', () => {
    const result = ok(runWindow(input({})));
    expect(result.window.kind).toBe('pre_dawn');
    expect(result.window.finish).toBe(result.sunrise_epoch);
    expect(result.window.finish - result.window.start).toBe(2 * HOUR);
    expect(result.window.min_temp_f).toBe(60);
    expect(result.date_local).toBe('2026-06-15');
    // NYC mid-June sunrise is about 05:25 EDT.
    expect(local(result.window.finish)).toMatch(/^2026-06-15 05:2\d -04:00$/);
    expect(local(result.window.start)).toMatch(/^2026-06-15 03:2\d -04:00$/);
  });

  it('waters after sunrise plus the buffer when the night is colder than the threshold', () => {
    const result = ok(runWindow(input({ minTempF: 35 })));
    expect(result.window).toEqual({
      kind: 'post_sunrise',
      start: result.sunrise_epoch + POST_SUNRISE_BUFFER_S,
      finish: result.sunrise_epoch + POST_SUNRISE_BUFFER_S + 2 * HOUR,
      min_temp_f: 35,
    });
    expect(POST_SUNRISE_BUFFER_S).toBe(HOUR);
  });

  it('keeps pre-dawn at exactly the threshold and when the minimum is unknown', () => {
    expect(ok(runWindow(input({ minTempF: 38 }))).window.kind).toBe('pre_dawn');
    expect(ok(runWindow(input({ minTempF: 37.9 }))).window.kind).toBe('post_sunrise');
    const unknown = ok(runWindow(input({ minTempF: null })));
    expect(unknown.window.kind).toBe('pre_dawn');
    expect(unknown.window.min_temp_f).toBeNull();
  });

  it('gives a zero-length window at sunrise for zero seconds', () => {
    const result = ok(runWindow(input({ totalRunSeconds: 0 })));
    expect(result.window.start).toBe(result.window.finish);
  });

  it('takes the local date of an epoch instead of a date', () => {
    // 2026-06-16 01:30 UTC is still 2026-06-15 in New York.
    const epoch = Date.UTC(2026, 5, 16, 1, 30) / 1000;
    const byEpoch = ok(runWindow(input({ dateLocal: undefined, epoch })));
    expect(byEpoch.date_local).toBe('2026-06-15');
    expect(byEpoch).toEqual(ok(runWindow(input({}))));
  });

  it.each([
    ['2026-03-07', '2026-03-07 06:20 -05:00', '2026-03-07 00:20 -05:00'],
    // Spring forward at 02:00: sunrise moves to 07:18 EDT, the 6 h window starts at 00:18 EST.
    ['2026-03-08', '2026-03-08 07:18 -04:00', '2026-03-08 00:18 -05:00'],
    ['2026-03-09', '2026-03-09 07:17 -04:00', '2026-03-09 01:17 -04:00'],
    ['2026-10-31', '2026-10-31 07:25 -04:00', '2026-10-31 01:25 -04:00'],
    // Fall back at 02:00: sunrise 06:26 EST, the window starts at the first 01:26 (EDT).
    ['2026-11-01', '2026-11-01 06:26 -05:00', '2026-11-01 01:26 -04:00'],
    ['2026-11-02', '2026-11-02 06:27 -05:00', '2026-11-02 00:27 -05:00'],
  ])('across DST, %s: sunrise %s, 6 h window from %s', (dateLocal, finish, start) => {
    const result = ok(runWindow(input({ dateLocal, totalRunSeconds: 6 * HOUR })));
    expect(local(result.window.finish)).toBe(finish);
    expect(local(result.window.start)).toBe(start);
    expect(result.window.finish - result.window.start).toBe(6 * HOUR);
  });

  it('follows the sun across spring forward: the local start jumps an hour, the real gap stays a day', () => {
    const before = ok(runWindow(input({ dateLocal: '2026-03-07', minTempF: 30 })));
    const after = ok(runWindow(input({ dateLocal: '2026-03-08', minTempF: 30 })));
    expect(local(before.window.start)).toBe('2026-03-07 07:20 -05:00');
    expect(local(after.window.start)).toBe('2026-03-08 08:18 -04:00');
    // One solar day minus the ~1.5 minutes sunrise advances in early March.
    expect(after.window.start - before.window.start).toBeLessThan(24 * HOUR);
    expect(after.window.start - before.window.start).toBeGreaterThan(24 * HOUR - 5 * 60);
  });

  it('has no sunrise at 78N in polar day (June) and polar night (December)', () => {
    expect(runWindow(input({ ...SVALBARD, dateLocal: '2026-06-21' }))).toEqual({
      state: 'no_sunrise',
      date_local: '2026-06-21',
    });
    expect(runWindow(input({ ...SVALBARD, dateLocal: '2026-12-21' }))).toEqual({
      state: 'no_sunrise',
      date_local: '2026-12-21',
    });
    expect(sunriseEpoch('2026-06-21', SVALBARD.timezone, SVALBARD.lat, SVALBARD.lon)).toBeNull();
  });

  it('has a sunrise at 78N in early March and at 78S in June (southern winter is dark, summer is not)', () => {
    const march = ok(runWindow(input({ ...SVALBARD, dateLocal: '2026-03-01' })));
    expect(local(march.window.finish, SVALBARD.timezone)).toMatch(/^2026-03-01 08:\d\d \+01:00$/);
    const southWinter = runWindow(
      input({ lat: -78, lon: 166, timezone: 'Antarctica/McMurdo', dateLocal: '2026-06-21' }),
    );
    expect(southWinter.state).toBe('no_sunrise');
  });

  it.each([
    [null, -74],
    [40.7, null],
    [undefined, undefined],
    [Number.NaN, -74],
  ])('answers no_location for lat %p lon %p', (lat, lon) => {
    expect(runWindow(input({ lat, lon }))).toEqual({ state: 'no_location' });
  });

  it('refuses a negative or non-finite run length, an unknown zone and a missing date', () => {
    expect(() => runWindow(input({ totalRunSeconds: -1 }))).toThrow(RangeError);
    expect(() => runWindow(input({ totalRunSeconds: Number.NaN }))).toThrow(RangeError);
    expect(() => runWindow(input({ timezone: 'Mars/Olympus_Mons' }))).toThrow(RangeError);
    expect(() => runWindow(input({ dateLocal: '2026-02-30' }))).toThrow(RangeError);
    expect(() => runWindow(input({ dateLocal: undefined }))).toThrow(/dateLocal or epoch/);
  });
});
