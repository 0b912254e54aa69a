import fs from 'node:fs';
import path from 'node:path';
import { DateTime } from 'luxon';
import { ManualClock } from '../../../server/src/core/clock';
import { zoneFor } from '../../../server/src/core/tz/zone';
import { NwsForecastProvider, NWS_OUTSIDE_COVERAGE } from '../../../server/src/forecast/providers/nws';
import {
  ForecastUnavailable,
  type ForecastRequest,
  type HourlyEntry,
} from '../../../server/src/forecast/types';
import { NWS_DEFAULT_USER_AGENT } from '../../../server/src/weather/sources/nws/observation';
import {
  json,
  LoopbackPeer,
  rejection,
  type PeerHandler,
  type PeerReply,
  type SeenRequest,
} from '../../helpers/loopback-peer';
import { httpFetch } from '../../../server/src/core/http-fetch';

/**
 * api.weather.gov forecast flow against a loopback peer.
 *
 * - `/points/30,-85` and `/gridpoints/TAE/58,65/forecast/hourly`: the shared
 *   fixtures verbatim (real answers kept by MatthewFlamm/pynws), with
 *   `https://api.weather.gov` rewritten to the peer.
 * - Longer hourly answers (DST days) are built here in the period shape of
 *   those fixtures and of nws.md's 2024 period (tr1pm/weather-forecaster);
 *   some periods use the quantitative `{value, unitCode}` temperature and
 *   `{value | minValue, maxValue, unitCode}` windSpeed that the API's
 *   `forecast_temperature_qv` / `forecast_wind_speed_qv` feature flags give
 *   (the API's QuantitativeValue schema; the API team announced them in
 *   weather-gov/api issue #6). nws.md itself only shows the string forms.
 * - Errors: problem+json documents from nws-errors-sample.json; the 404
 *   InvalidPoint body has no captured sample (nws.md), so its title is the one
 *   nws.md quotes and the rest follows the problem shape of the others.
 */

const FIXTURES = path.join(__dirname, 'fixtures');
const POINTS_TEXT = fs.readFileSync(path.join(FIXTURES, 'nws-points-sample.json'), 'utf8');
const HOURLY_TEXT = fs.readFileSync(path.join(FIXTURES, 'nws-forecast-hourly-sample.json'), 'utf8');
const PROBLEMS = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'nws-errors-sample.json'), 'utf8')) as {
  status: number;
  detail: string;
  type: string;
}[];
const GEO = 'application/geo+json';
const PROBLEM = 'application/problem+json';
const NY = 'America/New_York';
const POINTS_PATH = '/points/30,-85';
const HOURLY_PATH = '/gridpoints/TAE/58,65/forecast/hourly';

type Json = Record<string, unknown>;
const rewrite = (text: string, base: string) => text.split('https://api.weather.gov').join(base);
const problem = (status: number, name: string, title: string, detail: string): PeerReply =>
  json(
    status,
    {
      correlationId: '0f3c1a2b',
      title,
      type: `https://api.weather.gov/problems/${name}`,
      status,
      detail,
      instance: 'https://api.weather.gov/requests/0f3c1a2b',
    },
    PROBLEM,
  );

const REQUEST: ForecastRequest = {
  lat: 30,
  lon: -85,
  elevationM: 8,
  timezone: NY,
  pastDays: 1,
  forecastDays: 7,
};

/** An hourly forecast document (2022+ shape: plain Polygon geometry) around `periods`. */
function hourlyDoc(periods: Json[]): Json {
  return {
    type: 'Feature',
    geometry: {
      type: 'Polygon',
      coordinates: [
        [
          [-84.97, 30.01],
          [-84.97, 29.98],
          [-84.94, 29.98],
          [-84.97, 30.01],
        ],
      ],
    },
    properties: {
      units: 'us',
      forecastGenerator: 'HourlyForecastGenerator',
      generatedAt: '2025-03-08T16:40:00+00:00',
      updateTime: '2025-03-08T16:20:00+00:00',
      validTimes: '2025-03-08T10:00:00+00:00/P7DT15H',
      elevation: { unitCode: 'wmoUnit:m', value: 7.9248 },
      periods,
    },
  };
}

/** A period starting at `start` (epoch) in the shape of the fixtures, `fields` replacing any value. */
function period(number: number, start: number, fields: Json): Json {
  const zone = zoneFor(NY);
  const iso = (t: number) => DateTime.fromSeconds(t, { zone }).toISO({ suppressMilliseconds: true });
  return {
    number,
    name: '',
    startTime: iso(start),
    endTime: iso(start + 3600),
    isDaytime: true,
    temperature: 50,
    temperatureUnit: 'F',
    temperatureTrend: '',
    probabilityOfPrecipitation: { unitCode: 'wmoUnit:percent', value: 0 },
    dewpoint: { unitCode: 'wmoUnit:degC', value: 2.2 },
    relativeHumidity: { unitCode: 'wmoUnit:percent', value: 50 },
    windSpeed: '5 mph',
    windDirection: 'SW',
    icon: 'https://api.weather.gov/icons/land/day/few?size=small',
    shortForecast: 'Sunny',
    detailedForecast: '',
    ...fields,
  };
}

/**
 * Hourly periods from `from` to `to`: temperature 40 + local hour (°F), rain
 * chance 2 x local hour, wind 5 + hour % 5 mph, humidity 50 %. Odd periods use
 * the quantitative forms (°C, km/h), even ones the strings.
 */
function periodsBetween(from: number, to: number, override: (local: DateTime) => Json = () => ({})): Json[] {
  const zone = zoneFor(NY);
  const out: Json[] = [];
  for (let t = from, i = 0; t < to; t += 3600, i += 1) {
    const local = DateTime.fromSeconds(t, { zone });
    const tempF = 40 + local.hour;
    const windMph = 5 + (local.hour % 5);
    const quantitative = i % 2 === 1;
    out.push(
      period(i + 1, t, {
        ...(quantitative
          ? {
              temperature: { unitCode: 'wmoUnit:degC', value: ((tempF - 32) * 5) / 9 },
              windSpeed: { unitCode: 'wmoUnit:km_h-1', value: windMph * 1.609344 },
            }
          : { temperature: tempF, temperatureUnit: 'F', windSpeed: `${windMph} mph` }),
        probabilityOfPrecipitation: { unitCode: 'wmoUnit:percent', value: 2 * local.hour },
        ...override(local),
      }),
    );
  }
  return out;
}

function hoursPerLocalDay(hourly: HourlyEntry[]): Record<string, number> {
  const zone = zoneFor(NY);
  const out: Record<string, number> = {};
  for (const h of hourly) {
    const date = DateTime.fromSeconds(h.time_epoch, { zone }).toISODate() ?? '';
    out[date] = (out[date] ?? 0) + 1;
  }
  return out;
}

describe('NwsForecastProvider', () => {
  let peer: LoopbackPeer;
  let points: PeerHandler;
  let hourly: PeerHandler;
  const clock = new ManualClock(Date.UTC(2019, 9, 15, 0, 5)); // 2019-10-14 20:05 EDT

  beforeEach(async () => {
    clock.set(Date.UTC(2019, 9, 15, 0, 5));
    points = (_req, base) => ({ status: 200, body: rewrite(POINTS_TEXT, base), contentType: GEO });
    hourly = (_req, base) => ({ status: 200, body: rewrite(HOURLY_TEXT, base), contentType: GEO });
    peer = await new LoopbackPeer((req: SeenRequest, base: string) => {
      if (req.path.startsWith('/points/')) return points(req, base);
      if (req.path === HOURLY_PATH) return hourly(req, base);
      return problem(404, 'NotFound', 'Not Found', 'no such resource');
    }).start();
  });
  afterEach(async () => {
    await peer.close();
  });

  const provider = (extra: { userAgent?: string; timeoutMs?: number } = {}) =>
    new NwsForecastProvider({ id: 'nws', baseUrl: peer.baseUrl, fetch: httpFetch, clock, ...extra });

  it('follows points -> forecastHourly and maps the real periods; no amounts, no ET0', async () => {
    const forecast = await provider().fetch(REQUEST);
    expect(peer.requests.map((r) => r.path)).toEqual([POINTS_PATH, HOURLY_PATH]);
    for (const seen of peer.requests) {
      expect(seen.headers['user-agent']).toBe(NWS_DEFAULT_USER_AGENT);
      expect(seen.headers.accept).toBe(GEO);
    }
    expect(forecast.provider).toBe('nws');
    expect(forecast.model).toBeNull();
    expect(forecast.fetched_at).toBe(Date.UTC(2019, 9, 15, 0, 5) / 1000);
    expect(forecast.hourly).toEqual<HourlyEntry[]>([
      {
        time_epoch: Date.UTC(2019, 9, 15, 0) / 1000, // 2019-10-14T20:00:00-04:00
        temp_f: 78,
        precip_in: null, // the hourly product has no QPF: unknown, never 0
        precip_probability: 20,
        wind_mph: 0,
        humidity_pct: 63,
        et0_in: null,
        et0_reported: false,
      },
      {
        time_epoch: Date.UTC(2019, 9, 15, 1) / 1000,
        temp_f: 77,
        precip_in: null,
        precip_probability: 20,
        wind_mph: 0,
        humidity_pct: 63,
        et0_in: null,
        et0_reported: false,
      },
    ]);
    // Two hours of a local day: only the rain chance (max of what is there) is given.
    expect(forecast.daily).toEqual([
      {
        date_local: '2019-10-14',
        time_epoch: Date.UTC(2019, 9, 14, 4) / 1000,
        temp_max_f: null,
        temp_min_f: null,
        precip_sum_in: null,
        precip_probability_max: null, // the fixture covers two hours of the day
        wind_max_mph: null,
        wind_mean_2m_ms: null,
        humidity_pct: null,
        humidity_mean_pct: null,
        humidity_max_pct: null,
        humidity_min_pct: null,
        et0_in: null,
        et0_reported: false,
        sunrise_epoch: null,
        sunset_epoch: null,
        radiation_mj_m2: null,
      },
    ]);
  });

  it('keeps the forecastHourly URL per point, and looks again after a 404', async () => {
    const p = provider({ userAgent: '(raincheck test, ops@example.org)' });
    await p.fetch(REQUEST);
    await p.fetch(REQUEST);
    expect(peer.requests.map((r) => r.path)).toEqual([POINTS_PATH, HOURLY_PATH, HOURLY_PATH]);
    expect(peer.requests[0]!.headers['user-agent']).toBe('(raincheck test, ops@example.org)');

    hourly = () => problem(404, 'NotFound', 'Not Found', 'Gridpoint no longer exists');
    await expect(p.fetch(REQUEST)).rejects.toThrow(
      'NWS hourly forecast: HTTP 404: Gridpoint no longer exists',
    );
    hourly = (_req, base) => ({ status: 200, body: rewrite(HOURLY_TEXT, base), contentType: GEO });
    await p.fetch(REQUEST);
    expect(peer.requests.slice(3).map((r) => r.path)).toEqual([HOURLY_PATH, POINTS_PATH, HOURLY_PATH]);
  });

  it('sends at most 4 decimals of the coordinates', async () => {
    points = () => problem(404, 'InvalidPoint', 'Data Unavailable For Requested Point', 'x');
    await rejection(provider().fetch({ ...REQUEST, lat: 30.123456, lon: -85.000049 }));
    expect(peer.requests[0]!.path).toBe('/points/30.1235,-85');
  });

  describe('periods', () => {
    beforeEach(() => clock.set(Date.UTC(2025, 2, 8, 17, 10))); // 2025-03-08 12:10 EST

    const serve = (periods: Json[]) => {
      hourly = () => json(200, hourlyDoc(periods), GEO);
    };

    it('reads both the string and the quantitative forms, ranges as their midpoint', async () => {
      const t0 = Date.UTC(2025, 2, 8, 17) / 1000; // 12:00 EST
      serve([
        period(1, t0, { temperature: 45, temperatureUnit: 'F', windSpeed: '10 mph' }),
        period(2, t0 + 3600, { temperature: 10, temperatureUnit: 'C', windSpeed: '16 km/h' }), // units=si
        period(3, t0 + 7200, { windSpeed: '5 to 10 mph' }),
        period(4, t0 + 3 * 3600, {
          temperature: { unitCode: 'wmoUnit:degF', value: 47 },
          windSpeed: { unitCode: 'wmoUnit:km_h-1', minValue: 10, maxValue: 20 },
        }),
        period(5, t0 + 4 * 3600, {
          temperature: { unitCode: 'wmoUnit:degC', value: -1.5 },
          windSpeed: { unitCode: 'wmoUnit:km_h-1', value: 24.14 },
        }),
        period(6, t0 + 5 * 3600, { temperature: null, windSpeed: '', relativeHumidity: undefined }),
      ]);
      const { hourly: hours } = await provider().fetch({ ...REQUEST, lat: 30, lon: -85 });
      expect(hours.map((h) => [h.temp_f, h.wind_mph])).toEqual([
        [45, 10],
        [50, 9.9],
        [50, 7.5],
        [47, 9.3],
        [29.3, 15],
        [null, null],
      ]);
      expect(hours[5]!.humidity_pct).toBeNull();
    });

    it('keeps nulls in the middle of the series in their slot', async () => {
      const t0 = Date.UTC(2025, 2, 8, 17) / 1000;
      serve(
        periodsBetween(t0, t0 + 6 * 3600, (local) => {
          if (local.hour === 14)
            return { probabilityOfPrecipitation: { unitCode: 'wmoUnit:percent', value: null } };
          if (local.hour === 15) return { relativeHumidity: { unitCode: 'wmoUnit:percent', value: null } };
          if (local.hour === 16) return { temperature: null };
          return {};
        }),
      );
      const { hourly: hours } = await provider().fetch(REQUEST);
      expect(hours.map((h) => h.time_epoch)).toEqual([0, 1, 2, 3, 4, 5].map((i) => t0 + i * 3600));
      expect(hours.map((h) => h.precip_probability)).toEqual([24, 26, null, 30, 32, 34]);
      expect(hours.map((h) => h.humidity_pct)).toEqual([50, 50, 50, null, 50, 50]);
      expect(hours.map((h) => h.temp_f)).toEqual([52, 53, 54, 55, null, 57]);
      expect(hours.every((h) => h.precip_in === null && h.et0_in === null && !h.et0_reported)).toBe(true);
    });

    it('spring forward (2025-03-09): a 23-hour local day, aggregated only where covered', async () => {
      const from = Date.UTC(2025, 2, 8, 17) / 1000; // 03-08 12:00 EST
      const to = Date.UTC(2025, 2, 11, 4) / 1000; // 03-11 00:00 EDT
      serve(
        periodsBetween(from, to, (local) =>
          local.day === 9 && local.hour === 15 ? { windSpeed: '10 to 20 mph' } : {},
        ),
      );
      const forecast = await provider().fetch({ ...REQUEST, forecastDays: 3 });
      expect(hoursPerLocalDay(forecast.hourly)).toEqual({
        '2025-03-08': 12,
        '2025-03-09': 23,
        '2025-03-10': 24,
      });
      const [mar8, mar9, mar10] = forecast.daily;
      expect(mar8).toMatchObject({
        date_local: '2025-03-08',
        time_epoch: Date.UTC(2025, 2, 8, 5) / 1000,
        temp_max_f: null, // 12 of 24 hours: not the day's
        temp_min_f: null,
        precip_probability_max: null, // a max over half the day is not the day's
        wind_max_mph: null,
      });
      expect(mar9).toMatchObject({
        date_local: '2025-03-09',
        time_epoch: Date.UTC(2025, 2, 9, 5) / 1000,
        temp_max_f: 63,
        temp_min_f: 40,
        precip_sum_in: null,
        precip_probability_max: 46,
        wind_max_mph: 15,
        humidity_pct: 50,
        humidity_mean_pct: 50,
        et0_in: null,
        et0_reported: false,
        sunrise_epoch: null,
        sunset_epoch: null,
      });
      expect(mar9!.wind_mean_2m_ms).not.toBeNull();
      expect(mar10).toMatchObject({
        date_local: '2025-03-10',
        time_epoch: Date.UTC(2025, 2, 10, 4) / 1000,
        temp_max_f: 63,
        temp_min_f: 40,
      });
    });

    it('fall back (2025-11-02): a 25-hour local day', async () => {
      clock.set(Date.UTC(2025, 10, 1, 16, 10)); // 11-01 12:10 EDT
      const from = Date.UTC(2025, 10, 1, 16) / 1000;
      const to = Date.UTC(2025, 10, 4, 5) / 1000; // 11-04 00:00 EST
      serve(periodsBetween(from, to));
      const forecast = await provider().fetch({ ...REQUEST, forecastDays: 3 });
      expect(hoursPerLocalDay(forecast.hourly)).toEqual({
        '2025-11-01': 12,
        '2025-11-02': 25,
        '2025-11-03': 24,
      });
      expect(forecast.daily.map((d) => [d.date_local, d.time_epoch, d.temp_max_f, d.temp_min_f])).toEqual([
        ['2025-11-01', Date.UTC(2025, 10, 1, 4) / 1000, null, null],
        ['2025-11-02', Date.UTC(2025, 10, 2, 4) / 1000, 63, 40],
        ['2025-11-03', Date.UTC(2025, 10, 3, 5) / 1000, 63, 40],
      ]);
    });

    it('keeps only the days asked for', async () => {
      const from = Date.UTC(2025, 2, 8, 17) / 1000;
      serve(periodsBetween(from, from + 156 * 3600));
      const forecast = await provider().fetch({ ...REQUEST, forecastDays: 2 });
      expect(forecast.daily.map((d) => d.date_local)).toEqual(['2025-03-08', '2025-03-09']);
      expect(forecast.hourly).toHaveLength(12 + 23);
    });

    it('refuses a unit it does not know rather than mislabel it', async () => {
      const t0 = Date.UTC(2025, 2, 8, 17) / 1000;
      for (const fields of [
        { temperature: 283, temperatureUnit: 'K' },
        { temperature: { unitCode: 'wmoUnit:K', value: 283 } },
        { windSpeed: { unitCode: 'wmoUnit:furlong_fortnight-1', value: 3 } },
        { relativeHumidity: { unitCode: 'wmoUnit:g_kg-1', value: 5 } },
      ]) {
        serve([period(1, t0, fields)]);
        const err = await rejection(provider().fetch(REQUEST));
        expect(err).toBeInstanceOf(ForecastUnavailable);
        expect(err.message).toMatch(/unknown unit/);
      }
    });

    it('refuses a stale answer whose periods are all past', async () => {
      const t0 = Date.UTC(2025, 2, 7, 17) / 1000; // a day before the clock
      serve(periodsBetween(t0, t0 + 12 * 3600));
      const err = await rejection(provider().fetch(REQUEST));
      expect(err).toBeInstanceOf(ForecastUnavailable);
      expect(err.message).toMatch(/stale/);
    });
  });

  describe('failures', () => {
    it('outside the US: 404 InvalidPoint', async () => {
      points = () =>
        problem(
          404,
          'InvalidPoint',
          'Data Unavailable For Requested Point',
          'Unable to provide data for requested point 51.5,-0.12',
        );
      const err = await rejection(
        provider().fetch({ ...REQUEST, lat: 51.5, lon: -0.12, timezone: 'Europe/London' }),
      );
      expect(err).toBeInstanceOf(ForecastUnavailable);
      expect(err.message).toBe(NWS_OUTSIDE_COVERAGE);
      expect(err.message).toBe('NWS covers the United States only');
      // A 404 without a problem document is taken the same way.
      points = () => ({ status: 404, body: '', contentType: 'text/plain' });
      expect((await rejection(provider().fetch(REQUEST))).message).toBe(NWS_OUTSIDE_COVERAGE);
    });

    it('problem documents: their detail is the message', async () => {
      const marine = PROBLEMS.find((p) => p.type.endsWith('/MarineForecastNotSupported'))!;
      points = () => json(marine.status, marine, PROBLEM);
      expect((await rejection(provider().fetch(REQUEST))).message).toBe(
        'NWS point: HTTP 404: Forecasts for marine areas are not yet supported by this API.',
      );

      const invalid = PROBLEMS.find((p) => p.type.endsWith('/InvalidParameter'))!;
      points = () => json(invalid.status, invalid, PROBLEM);
      expect((await rejection(provider().fetch(REQUEST))).message).toBe(
        `NWS point: HTTP 400: ${invalid.detail}`,
      );

      points = (_req, base) => ({ status: 200, body: rewrite(POINTS_TEXT, base), contentType: GEO });
      hourly = () =>
        problem(500, 'UnexpectedProblem', 'Unexpected Problem', 'An unexpected problem has occurred.');
      const err = await rejection(provider().fetch(REQUEST));
      expect(err).toBeInstanceOf(ForecastUnavailable);
      expect(err.message).toBe('NWS hourly forecast: HTTP 500: An unexpected problem has occurred.');
    });

    it('403 HTML page (refused User-Agent)', async () => {
      points = () => ({
        status: 403,
        body: '<HTML><HEAD><TITLE>Access Denied</TITLE></HEAD></HTML>',
        contentType: 'text/html',
      });
      expect((await rejection(provider().fetch(REQUEST))).message).toMatch(/HTTP 403 \(access denied/);
    });

    it('garbage', async () => {
      for (const reply of [
        { status: 200, body: '<html>maintenance</html>', contentType: 'text/html' },
        json(200, { type: 'Feature', properties: {} }, GEO),
        json(200, { type: 'Feature', properties: { periods: 'none' } }, GEO),
      ]) {
        hourly = () => reply;
        const err = await rejection(provider().fetch(REQUEST));
        expect(err).toBeInstanceOf(ForecastUnavailable);
        expect(err.message).toMatch(/^NWS hourly forecast: answer is not a JSON object$|no periods/);
      }
      points = () => json(200, { properties: { forecastHourly: 'not a url' } }, GEO);
      expect((await rejection(provider().fetch(REQUEST))).message).toBe(
        'NWS: point 30,-85 has no hourly forecast',
      );
    });

    it('no answer within the timeout (the whole fetch shares one deadline)', async () => {
      hourly = () => ({ status: 200, body: '', hang: true });
      const err = await rejection(provider({ timeoutMs: 200 }).fetch(REQUEST));
      expect(err).toBeInstanceOf(ForecastUnavailable);
      expect(err.message).toBe('NWS: no answer within 0.2 s');
      expect(peer.requests.map((r) => r.path)).toEqual([POINTS_PATH, HOURLY_PATH]);
    });
  });
});
