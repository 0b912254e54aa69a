import { DateTime } from 'luxon';
import {
  FORECAST_QUERY_ERRORS,
  parseWindowQuery,
  WINDOW_MAX_SPAN_S,
} from '../../server/src/forecast/archive-query';
import type { HourlyEntry } from '../../server/src/forecast/types';
import { buildForecastWindow, type ForecastWindowInput } from '../../server/src/forecast/window';
import { ApiError } from '../../server/src/http/errors';

const HOUR = 3600;
const T0 = 1_750_000_000 - (1_750_000_000 % HOUR);
const NOW = T0 + 30 * 60;

function hour(time_epoch: number, values: Partial<HourlyEntry> = {}): HourlyEntry {
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

function input(hourly: HourlyEntry[], from: number, to: number, extra: Partial<ForecastWindowInput> = {}) {
  return {
    track: 'merged',
    model: null,
    providerLabel: 'Open-Meteo',
    fetchedAt: T0 - 600,
    nowEpoch: NOW,
    hourly,
    from,
    to,
    ...extra,
  };
}

/** `n` consecutive hours from `start`. */
function hours(start: number, n: number, values: (i: number) => Partial<HourlyEntry> = () => ({})) {
  return [...Array(n).keys()].map((i) => hour(start + i * HOUR, values(i)));
}

describe('buildForecastWindow', () => {
  it('gives every spec field for a full window, and only the four Window hour fields per hour', () => {
    const w = buildForecastWindow(
      input(
        hours(T0, 3, (i) => ({ temp_f: 60 + i, precip_in: [0.1, 0.2, 0][i], precip_probability: 20 * i })),
        T0,
        T0 + 2 * HOUR,
        { track: 'gfs', model: 'gfs_seamless', providerLabel: 'Open-Meteo GFS' },
      ),
    );
    expect(w).toEqual({
      track: 'gfs',
      model: 'gfs_seamless',
      provider_label: 'Open-Meteo GFS',
      fetched_at: T0 - 600,
      age_s: NOW - (T0 - 600),
      from: T0,
      to: T0 + 2 * HOUR,
      complete: true,
      hourly: [
        { time_epoch: T0, temp_f: 60, precip_in: 0.1, precip_probability: 0 },
        { time_epoch: T0 + HOUR, temp_f: 61, precip_in: 0.2, precip_probability: 20 },
        { time_epoch: T0 + 2 * HOUR, temp_f: 62, precip_in: 0, precip_probability: 40 },
      ],
      hours: 3,
      expected_hours: 3,
      precipitation_hours: 3,
      probability_hours: 3,
      temperature_hours: 3,
      precip_max_in: 0.2,
      // 0.1 + 0.2 without float noise
      precip_sum_in: 0.3,
      temp_max_f: 62,
      temp_min_f: 60,
      pop_max_pct: 40,
    });
  });

  it('counts coverage on partial data: missing hours and null fields in present hours', () => {
    // 6 expected hours; hours 1 and 4 missing; hour 2 has no precip, hour 3 no temperature or probability.
    const present = hours(T0, 6, (i) => ({
      temp_f: i === 3 ? null : 50 + i,
      precip_in: i === 2 ? null : 0.05,
      precip_probability: i === 3 ? null : 30 + i,
    })).filter((_, i) => i !== 1 && i !== 4);
    const w = buildForecastWindow(input(present, T0, T0 + 5 * HOUR));
    expect(w).toMatchObject({
      complete: false,
      hours: 4,
      expected_hours: 6,
      precipitation_hours: 3,
      temperature_hours: 3,
      probability_hours: 3,
      precip_max_in: 0.05,
      precip_sum_in: null,
      temp_max_f: 55,
      temp_min_f: 50,
      pop_max_pct: 35,
    });
    expect(w.hourly.map((h) => h.time_epoch)).toEqual([0, 2, 3, 5].map((i) => T0 + i * HOUR));
    expect(w.hourly[1]).toEqual({
      time_epoch: T0 + 2 * HOUR,
      temp_f: 52,
      precip_in: null,
      precip_probability: 32,
    });
  });

  it('is complete on timestamps alone, yet gives no precipitation sum when a present hour lacks an amount', () => {
    const w = buildForecastWindow(
      input(
        hours(T0, 4, (i) => ({ precip_in: i === 3 ? null : 0 })),
        T0,
        T0 + 3 * HOUR,
      ),
    );
    expect(w.complete).toBe(true);
    expect(w.precipitation_hours).toBe(3);
    expect(w.precip_sum_in).toBeNull();
    expect(w.precip_max_in).toBe(0);
  });

  it('sums to a measured zero, not null, when every hour reports zero', () => {
    const w = buildForecastWindow(input(hours(T0, 4), T0, T0 + 3 * HOUR));
    expect(w.precip_sum_in).toBe(0);
  });

  it('gives nulls, not zeros, when no hour carries a value', () => {
    const blank = hours(T0, 2, () => ({ temp_f: null, precip_in: null, precip_probability: null }));
    const w = buildForecastWindow(input(blank, T0, T0 + HOUR));
    expect(w).toMatchObject({
      complete: true,
      hours: 2,
      precipitation_hours: 0,
      probability_hours: 0,
      temperature_hours: 0,
      precip_max_in: null,
      precip_sum_in: null,
      temp_max_f: null,
      temp_min_f: null,
      pop_max_pct: null,
    });
  });

  it('handles from == to as a single hour', () => {
    const one = buildForecastWindow(input(hours(T0 - HOUR, 3), T0, T0));
    expect(one).toMatchObject({ expected_hours: 1, hours: 1, complete: true, precip_sum_in: 0 });
    expect(one.hourly.map((h) => h.time_epoch)).toEqual([T0]);

    const none = buildForecastWindow(input(hours(T0 + HOUR, 3), T0, T0));
    expect(none).toMatchObject({
      expected_hours: 1,
      hours: 0,
      complete: false,
      hourly: [],
      precip_sum_in: null,
      precip_max_in: null,
      temp_max_f: null,
      pop_max_pct: null,
    });
  });

  it('ignores entries outside the bounds, off the hour grid and repeated, and sorts the rest', () => {
    const entries = [
      hour(T0 + 2 * HOUR, { temp_f: 3 }),
      hour(T0 - HOUR, { temp_f: 99 }),
      hour(T0 + 3 * HOUR, { temp_f: 99 }),
      hour(T0 + 1800, { temp_f: 99 }),
      hour(T0, { temp_f: 1 }),
      hour(T0, { temp_f: 98 }),
      hour(T0 + HOUR, { temp_f: 2 }),
    ];
    const w = buildForecastWindow(input(entries, T0, T0 + 2 * HOUR));
    expect(w.hourly.map((h) => [h.time_epoch, h.temp_f])).toEqual([
      [T0, 1],
      [T0 + HOUR, 2],
      [T0 + 2 * HOUR, 3],
    ]);
    expect(w).toMatchObject({ hours: 3, complete: true, temp_max_f: 3 });
  });

  it('keeps the probability an integer 0..100 and drops non-finite values', () => {
    const w = buildForecastWindow(
      input(
        [
          hour(T0, { precip_probability: 42.6, temp_f: Number.NaN }),
          hour(T0 + HOUR, { precip_probability: 140, precip_in: Number.POSITIVE_INFINITY }),
          hour(T0 + 2 * HOUR, { precip_probability: -3 }),
        ],
        T0,
        T0 + 2 * HOUR,
      ),
    );
    expect(w.hourly.map((h) => h.precip_probability)).toEqual([43, 100, 0]);
    expect(w.pop_max_pct).toBe(100);
    expect(w.hourly[0]?.temp_f).toBeNull();
    expect(w.hourly[1]?.precip_in).toBeNull();
    expect(w).toMatchObject({ temperature_hours: 2, precipitation_hours: 2, precip_sum_in: null });
  });

  it('gives age_s from the fetch, null without one, never negative', () => {
    expect(buildForecastWindow(input([], T0, T0, { fetchedAt: NOW - 125 })).age_s).toBe(125);
    expect(buildForecastWindow(input([], T0, T0, { fetchedAt: null }))).toMatchObject({
      fetched_at: null,
      age_s: null,
    });
    expect(buildForecastWindow(input([], T0, T0, { fetchedAt: NOW + 5 })).age_s).toBe(0);
  });

  it('counts real hours across DST changes: epochs, not local clock hours', () => {
    const zone = 'America/New_York';
    const at = (iso: string) => DateTime.fromISO(iso, { zone }).toSeconds();
    // Spring forward: local 01:00 to 04:00 is 2 real hours, 3 hour starts.
    const springFrom = at('2025-03-09T01:00');
    const springTo = at('2025-03-09T04:00');
    const spring = buildForecastWindow(input(hours(springFrom, 3), springFrom, springTo));
    expect(spring).toMatchObject({ expected_hours: 3, hours: 3, complete: true });
    // Fall back: local 00:00 to 03:00 is 4 real hours (01:00 twice), 5 hour starts.
    const fallFrom = at('2025-11-02T00:00');
    const fallTo = at('2025-11-02T03:00');
    const fall = buildForecastWindow(input(hours(fallFrom, 5), fallFrom, fallTo));
    expect(fall).toMatchObject({ expected_hours: 5, hours: 5, complete: true, precip_sum_in: 0 });
    expect(new Set(fall.hourly.map((h) => h.time_epoch)).size).toBe(5);
  });

  it('refuses bounds a validated query cannot produce', () => {
    expect(() => buildForecastWindow(input([], T0 + 1, T0 + HOUR + 1))).toThrow(RangeError);
    expect(() => buildForecastWindow(input([], T0 + HOUR, T0))).toThrow(RangeError);
  });
});

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(400);
    return (err as ApiError).code;
  }
  throw new Error('expected an ApiError');
}

describe('parseWindowQuery', () => {
  const from = String(T0);
  const to = String(T0 + 3 * HOUR);

  it('parses the bounds and defaults the track to merged', () => {
    expect(parseWindowQuery({ from, to })).toEqual({ track: 'merged', from: T0, to: T0 + 3 * HOUR });
    expect(parseWindowQuery({ track: 'gfs', from, to: from })).toEqual({ track: 'gfs', from: T0, to: T0 });
    expect(parseWindowQuery({ from: ` ${from} `, to, track: '' }).track).toBe('merged');
  });

  it('allows exactly 48 hours between the bounds', () => {
    const q = parseWindowQuery({ from, to: String(T0 + WINDOW_MAX_SPAN_S) });
    expect(q.to - q.from).toBe(48 * HOUR);
  });

  it.each([
    ['window_from_missing', { to }],
    ['window_from_missing', { from: '  ', to }],
    ['window_to_missing', { from }],
    ['window_to_missing', { from, to: '' }],
    ['window_bound_invalid', { from: '-3600', to }],
    ['window_bound_invalid', { from, to: '3600.5' }],
    ['window_bound_invalid', { from: 'soon', to }],
    ['window_bound_invalid', { from: '1e9', to }],
    ['window_bound_invalid', { from: '0x10', to }],
    ['window_bound_invalid', { from, to: '99999999999999999' }],
    ['window_bound_invalid', { from: [from, from], to }],
    ['window_not_hour_start', { from: String(T0 + 60), to }],
    ['window_not_hour_start', { from, to: String(T0 + 3 * HOUR + 1) }],
    ['window_inverted', { from: to, to: from }],
    ['window_too_long', { from, to: String(T0 + WINDOW_MAX_SPAN_S + HOUR) }],
    ['track_unknown', { track: ['merged', 'gfs'], from, to }],
  ])('answers 400 %s (case %#)', (code, query) => {
    expect(codeOf(() => parseWindowQuery(query))).toBe(code);
    expect(Object.keys(FORECAST_QUERY_ERRORS)).toContain(code);
  });
});
