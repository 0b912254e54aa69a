import { DateTime } from 'luxon';
import { ManualClock } from '../../../server/src/core/clock';
import { zoneFor } from '../../../server/src/core/tz/zone';
import {
  MET_NORWAY_DEFAULT_USER_AGENT,
  MetNorwayProvider,
} from '../../../server/src/forecast/providers/met-norway';
import {
  ForecastUnavailable,
  type ForecastRequest,
  type HourlyEntry,
} from '../../../server/src/forecast/types';
import { json, LoopbackPeer, rejection, type PeerHandler } from '../../helpers/loopback-peer';
import { httpFetch } from '../../../server/src/core/http-fetch';

/**
 * MET Norway Locationforecast 2.0 `compact` against a loopback peer.
 *
 * There is no shared fixture. The bodies are built here from MET Norway's
 * published format: the "General forecast JSON format" page
 * (https://docs.api.met.no/doc/ForecastJSON, also developer.yr.no/doc/ForecastJSON:
 * GeoJSON Feature, `properties.meta.units`, `properties.timeseries[]` with
 * `time` in UTC, `data.instant.details`, `next_1_hours` / `next_6_hours` /
 * `next_12_hours` with `summary.symbol_code` and `details`), checked against a
 * real compact answer seen through the search tool
 * (api.met.no/weatherapi/locationforecast/2.0/compact?lat=55.4545&lon=-133.0333,
 * 2026-09-20: the compact units list air_pressure_at_sea_level hPa,
 * air_temperature celsius, cloud_area_fraction %, precipitation_amount mm,
 * relative_humidity %, wind_from_direction degrees, wind_speed m/s, and no
 * probability_of_precipitation; `next_12_hours.details` is `{}`). The step
 * pattern (hourly for about 2.5 days, then every 6 hours with only
 * `next_6_hours`, the last step instant-only) follows the Locationforecast
 * HOWTO and third-party notes ("early entries are hourly; later ones are
 * six-hourly"). `probability_of_precipitation` in `next_1_hours` is the
 * `complete` product's (ForecastJSON example). Numbers are synthetic.
 */

const COMPACT_UNITS = {
  air_pressure_at_sea_level: 'hPa',
  air_temperature: 'celsius',
  cloud_area_fraction: '%',
  precipitation_amount: 'mm',
  relative_humidity: '%',
  wind_from_direction: 'degrees',
  wind_speed: 'm/s',
};

type Json = Record<string, unknown>;

interface StepValues {
  tempC?: number | null;
  humidity?: number | null;
  windMs?: number | null;
  /** next_1_hours amount; undefined = the key is left out of `details`. */
  precipMm?: number | null;
  pop?: number;
  /** Leave next_1_hours out (as in the 6-hourly part). */
  noNextHour?: boolean;
}

const iso = (t: number) => new Date(t * 1000).toISOString().replace('.000Z', 'Z');

function step(t: number, v: StepValues, sixHourly: boolean, last: boolean): Json {
  const instant: Json = {
    air_pressure_at_sea_level: 1016.2,
    cloud_area_fraction: 40.1,
    wind_from_direction: 210.4,
  };
  if (v.tempC !== undefined) instant.air_temperature = v.tempC;
  if (v.humidity !== undefined) instant.relative_humidity = v.humidity;
  if (v.windMs !== undefined) instant.wind_speed = v.windMs;
  const data: Json = { instant: { details: instant } };
  if (last) return { time: iso(t), data };
  data.next_12_hours = { summary: { symbol_code: 'partlycloudy_day' }, details: {} };
  data.next_6_hours = { summary: { symbol_code: 'lightrain' }, details: { precipitation_amount: 2.4 } };
  if (!sixHourly && !v.noNextHour) {
    const details: Json = {};
    if (v.precipMm !== undefined) details.precipitation_amount = v.precipMm;
    if (v.pop !== undefined) details.probability_of_precipitation = v.pop;
    data.next_1_hours = { summary: { symbol_code: 'cloudy' }, details };
  }
  return { time: iso(t), data };
}

/**
 * A compact answer: hourly steps from `start` for `hourlySteps`, then steps at
 * 00/06/12/18 UTC until `end` (the last instant-only). `values` per step time.
 */
function compact(
  start: number,
  hourlySteps: number,
  end: number,
  values: (t: number, i: number) => StepValues,
  units: Json = COMPACT_UNITS,
): Json {
  const times: [number, boolean][] = [];
  for (let i = 0; i < hourlySteps; i += 1) times.push([start + i * 3600, false]);
  let t = Math.ceil((start + hourlySteps * 3600) / 21600) * 21600;
  for (; t <= end; t += 21600) times.push([t, true]);
  return {
    type: 'Feature',
    geometry: { type: 'Point', coordinates: [10.75, 59.9123, 24] },
    properties: {
      meta: { updated_at: iso(start - 1200), units },
      timeseries: times.map(([time, six], i) => step(time, values(time, i), six, i === times.length - 1)),
    },
  };
}

/** 10 °C + 0.5 °C per UTC hour, 70 %, 3 m/s, no rain. */
const plain = (t: number): StepValues => ({
  tempC: 10 + new Date(t * 1000).getUTCHours() * 0.5,
  humidity: 70,
  windMs: 3,
  precipMm: 0,
});

const OSLO: ForecastRequest = {
  lat: 59.91234567,
  lon: 10.75004999,
  elevationM: 23.6,
  timezone: 'Europe/Oslo',
  pastDays: 1,
  forecastDays: 7,
};

function hoursPerLocalDay(hourly: HourlyEntry[], timezone: string): Record<string, number> {
  const zone = zoneFor(timezone);
  const out: Record<string, number> = {};
  for (const h of hourly) {
    const date = DateTime.fromSeconds(h.time_epoch, { zone }).toISODate() ?? '';
    out[date] = (out[date] ?? 0) + 1;
  }
  return out;
}

describe('MetNorwayProvider', () => {
  let peer: LoopbackPeer;
  let reply: PeerHandler;
  const clock = new ManualClock(0);
  const JUL15_10Z = Date.UTC(2025, 6, 15, 10) / 1000;

  beforeEach(async () => {
    clock.set(Date.UTC(2025, 6, 15, 10, 20)); // 12:20 CEST
    reply = () => json(200, compact(JUL15_10Z, 60, JUL15_10Z + 9 * 86400, plain));
    peer = await new LoopbackPeer((req, base) => reply(req, base)).start();
  });
  afterEach(async () => {
    await peer.close();
  });

  const provider = (extra: { userAgent?: string; timeoutMs?: number } = {}) =>
    new MetNorwayProvider({ id: 'met', baseUrl: peer.baseUrl, fetch: httpFetch, clock, ...extra });

  it('asks the compact product with 4-decimal coordinates, whole-metre altitude and a User-Agent', async () => {
    await provider().fetch(OSLO);
    const seen = peer.requests[0]!;
    expect(seen.path).toBe('/weatherapi/locationforecast/2.0/compact');
    expect(seen.url).toBe('/weatherapi/locationforecast/2.0/compact?lat=59.9123&lon=10.75&altitude=24');
    expect(seen.headers['user-agent']).toBe(MET_NORWAY_DEFAULT_USER_AGENT);
    expect(MET_NORWAY_DEFAULT_USER_AGENT).toMatch(/^raincheck\/\S+ https:\/\//);

    await provider({ userAgent: 'acmeweather.example support@acmeweather.example' }).fetch({
      ...OSLO,
      elevationM: null,
    });
    expect(peer.requests[1]!.url).toBe('/weatherapi/locationforecast/2.0/compact?lat=59.9123&lon=10.75');
    expect(peer.requests[1]!.headers['user-agent']).toBe('acmeweather.example support@acmeweather.example');
  });

  it('maps hourly steps; 6-hourly steps keep their instant values but no hourly amount, nothing spread', async () => {
    reply = () =>
      json(
        200,
        compact(JUL15_10Z, 60, JUL15_10Z + 9 * 86400, (t, i) => ({
          ...plain(t),
          precipMm: i === 3 ? 1.2 : 0,
        })),
      );
    const forecast = await provider().fetch(OSLO);
    expect(forecast).toMatchObject({ provider: 'met_norway', model: null, fetched_at: JUL15_10Z + 1200 });
    expect(forecast.hourly[0]).toEqual<HourlyEntry>({
      time_epoch: JUL15_10Z,
      temp_f: 59, // 15 °C
      precip_in: 0, // a forecast zero for the hour: a value, not a gap
      precip_probability: null, // compact has none
      wind_mph: 6.71, // 3 m/s
      humidity_pct: 70,
      et0_in: null,
      et0_reported: false,
    });
    expect(forecast.hourly[3]).toMatchObject({ time_epoch: JUL15_10Z + 3 * 3600, precip_in: 0.047244 }); // 1.2 mm

    // Hourly for 60 steps (to 07-17 21:00Z), then 00/06/12/18Z up to the 7th local day's end.
    const hourlyPart = forecast.hourly.slice(0, 60);
    const sixHourly = forecast.hourly.slice(60);
    expect(hourlyPart.every((h, i) => h.time_epoch === JUL15_10Z + i * 3600)).toBe(true);
    expect(sixHourly[0]!.time_epoch).toBe(Date.UTC(2025, 6, 18, 0) / 1000);
    expect(sixHourly.at(-1)!.time_epoch).toBe(Date.UTC(2025, 6, 21, 18) / 1000); // 07-21 20:00 CEST
    expect(sixHourly).toHaveLength(16);
    expect(sixHourly.every((h, i) => h.time_epoch === sixHourly[0]!.time_epoch + i * 21600)).toBe(true);
    expect(sixHourly.every((h) => h.precip_in === null && h.temp_f !== null && h.wind_mph !== null)).toBe(
      true,
    );

    const byDate = new Map(forecast.daily.map((d) => [d.date_local, d]));
    expect([...byDate.keys()]).toEqual([
      '2025-07-15',
      '2025-07-16',
      '2025-07-17',
      '2025-07-18',
      '2025-07-19',
      '2025-07-20',
      '2025-07-21',
    ]);
    expect(byDate.get('2025-07-15')).toMatchObject({ temp_max_f: null, precip_sum_in: null }); // from 12:00 only
    expect(byDate.get('2025-07-16')).toMatchObject({
      time_epoch: Date.UTC(2025, 6, 15, 22) / 1000,
      temp_max_f: 70.7, // 21.5 °C at 23Z
      temp_min_f: 50, // 10 °C at 00Z
      precip_sum_in: 0, // every hour forecast dry
      humidity_mean_pct: 70,
      wind_max_mph: 6.71,
      et0_in: null,
      et0_reported: false,
      sunrise_epoch: null,
    });
    expect(byDate.get('2025-07-17')).toMatchObject({ temp_max_f: 70.7, precip_sum_in: 0 });
    // Four 6-hourly steps: not a day's worth, and a 6-hour amount is never an hour's.
    expect(byDate.get('2025-07-18')).toMatchObject({
      temp_max_f: null,
      temp_min_f: null,
      precip_sum_in: null,
      wind_max_mph: null,
    });
  });

  it('keeps nulls in the middle of the series in their slot', async () => {
    reply = () =>
      json(
        200,
        compact(JUL15_10Z, 60, JUL15_10Z + 9 * 86400, (t, i) => {
          if (i === 5) return { ...plain(t), tempC: undefined };
          if (i === 6) return { ...plain(t), precipMm: undefined };
          if (i === 7) return { ...plain(t), noNextHour: true };
          if (i === 8) return { ...plain(t), windMs: null, humidity: undefined };
          if (i === 20) return { ...plain(t), precipMm: null }; // 07-16 06Z
          return plain(t);
        }),
      );
    const { hourly, daily } = await provider().fetch(OSLO);
    expect(
      hourly
        .slice(4, 10)
        .map((h) => [h.time_epoch - JUL15_10Z, h.temp_f, h.precip_in, h.wind_mph, h.humidity_pct]),
    ).toEqual([
      [4 * 3600, 62.6, 0, 6.71, 70],
      [5 * 3600, null, 0, 6.71, 70],
      [6 * 3600, 64.4, null, 6.71, 70],
      [7 * 3600, 65.3, null, 6.71, 70],
      [8 * 3600, 66.2, 0, null, null],
      [9 * 3600, 67.1, 0, 6.71, 70],
    ]);
    // One hour of 07-16 without an amount: no day total, while 07-17 (all hours dry) has one.
    const byDate = new Map(daily.map((d) => [d.date_local, d]));
    expect(byDate.get('2025-07-16')).toMatchObject({ precip_sum_in: null, temp_max_f: 70.7 });
    expect(byDate.get('2025-07-17')).toMatchObject({ precip_sum_in: 0 });
  });

  it('reads the complete product’s rain probability when present', async () => {
    reply = () =>
      json(
        200,
        compact(JUL15_10Z, 60, JUL15_10Z + 9 * 86400, (t, i) => ({ ...plain(t), pop: i === 0 ? 12.6 : 0 }), {
          ...COMPACT_UNITS,
          probability_of_precipitation: '%',
        }),
      );
    const { hourly, daily } = await provider().fetch(OSLO);
    expect(hourly.slice(0, 2).map((h) => h.precip_probability)).toEqual([13, 0]);
    // The two hours of the sample are not enough of the day for a daily maximum.
    expect(daily[0]!.precip_probability_max).toBeNull();
  });

  describe('DST days in America/New_York (the product is global)', () => {
    const NY: ForecastRequest = {
      lat: 40.7128,
      lon: -74.006,
      elevationM: 10,
      timezone: 'America/New_York',
      pastDays: 0,
      forecastDays: 3,
    };
    const wet = (t: number): StepValues => ({ ...plain(t), precipMm: 0.5 });

    it('spring forward (2025-03-09): 23 hourly steps make the local day', async () => {
      const start = Date.UTC(2025, 2, 9, 4) / 1000; // 03-08 23:00 EST
      clock.set(Date.UTC(2025, 2, 9, 4, 30));
      reply = () => json(200, compact(start, 60, start + 9 * 86400, wet));
      const forecast = await provider().fetch(NY);
      expect(hoursPerLocalDay(forecast.hourly, NY.timezone)).toEqual({
        '2025-03-08': 1,
        '2025-03-09': 23,
        '2025-03-10': 24,
      });
      const mar9 = forecast.daily.find((d) => d.date_local === '2025-03-09')!;
      expect(mar9).toMatchObject({
        time_epoch: Date.UTC(2025, 2, 9, 5) / 1000,
        precip_sum_in: 0.453, // 23 x 0.5 mm
        temp_max_f: 70.7,
        temp_min_f: 50,
      });
      expect(forecast.daily.find((d) => d.date_local === '2025-03-10')!.precip_sum_in).toBe(0.472); // 24 x 0.5 mm
    });

    it('fall back (2025-11-02): 25 hourly steps make the local day', async () => {
      const start = Date.UTC(2025, 10, 2, 3) / 1000; // 11-01 23:00 EDT
      clock.set(Date.UTC(2025, 10, 2, 3, 30));
      reply = () => json(200, compact(start, 60, start + 9 * 86400, wet));
      const forecast = await provider().fetch(NY);
      expect(hoursPerLocalDay(forecast.hourly, NY.timezone)).toEqual({
        '2025-11-01': 1,
        '2025-11-02': 25,
        '2025-11-03': 24,
      });
      const nov2 = forecast.daily.find((d) => d.date_local === '2025-11-02')!;
      expect(nov2).toMatchObject({ time_epoch: Date.UTC(2025, 10, 2, 4) / 1000, precip_sum_in: 0.492 }); // 25 x 0.5 mm
    });
  });

  it('refuses units other than the documented ones rather than mislabel them', async () => {
    for (const [key, unit] of [
      ['air_temperature', 'fahrenheit'],
      ['wind_speed', 'knots'],
      ['precipitation_amount', 'in'],
    ] as const) {
      reply = () =>
        json(200, compact(JUL15_10Z, 60, JUL15_10Z + 86400, plain, { ...COMPACT_UNITS, [key]: unit }));
      const err = await rejection(provider().fetch(OSLO));
      expect(err).toBeInstanceOf(ForecastUnavailable);
      expect(err.message).toContain(key);
      expect(err.message).toContain(JSON.stringify(unit));
    }
    // A value whose unit is not stated at all is not guessed either.
    const { air_temperature: _dropped, ...noTemperatureUnit } = COMPACT_UNITS;
    reply = () => json(200, compact(JUL15_10Z, 60, JUL15_10Z + 86400, plain, noTemperatureUnit));
    expect((await rejection(provider().fetch(OSLO))).message).toContain('air_temperature');
  });

  it('sends If-Modified-Since with the last Last-Modified and reuses the answer on 304', async () => {
    const lastModified = 'Tue, 15 Jul 2025 10:02:11 GMT';
    const body = compact(JUL15_10Z, 60, JUL15_10Z + 9 * 86400, plain);
    reply = (req) =>
      req.headers['if-modified-since'] === lastModified
        ? { status: 304, body: '' }
        : json(200, body, 'application/json', {
            'Last-Modified': lastModified,
            Expires: 'Tue, 15 Jul 2025 10:35:00 GMT',
          });
    const p = provider();
    const first = await p.fetch(OSLO);
    clock.advance(30 * 60 * 1000);
    const second = await p.fetch(OSLO);
    expect(peer.requests[0]!.headers['if-modified-since']).toBeUndefined();
    expect(peer.requests[1]!.headers['if-modified-since']).toBe(lastModified);
    expect(second.hourly).toEqual(first.hourly);
    expect(second.fetched_at).toBe(first.fetched_at + 1800);
  });

  it('accepts 203 (a deprecated product version still answering)', async () => {
    reply = () => json(203, compact(JUL15_10Z, 60, JUL15_10Z + 86400, plain));
    expect((await provider().fetch(OSLO)).hourly[0]!.temp_f).toBe(59);
  });

  describe('failures', () => {
    it.each([
      [403, /HTTP 403 \(access denied; the API refuses requests without an identifying User-Agent\)/],
      [429, /HTTP 429 \(throttled/],
      [422, /HTTP 422 \(no forecast for this location\)/],
      [400, /HTTP 400/],
      [500, /^MET Norway: HTTP 500$/],
      [503, /^MET Norway: HTTP 503$/],
    ])('HTTP %i', async (status, message) => {
      reply = () => ({ status, body: `<html><body>${status}</body></html>`, contentType: 'text/html' });
      const err = await rejection(provider().fetch(OSLO));
      expect(err).toBeInstanceOf(ForecastUnavailable);
      expect(err.message).toMatch(message);
    });

    it('garbage and stale answers', async () => {
      for (const [body, message] of [
        [{ status: 200, body: 'not json', contentType: 'text/plain' }, /answer is not a JSON object/],
        [json(200, { type: 'Feature', properties: { meta: { units: COMPACT_UNITS } } }), /no timeseries/],
        [json(200, { type: 'Feature', properties: { timeseries: [] } }), /no units/],
        [json(200, compact(JUL15_10Z - 3 * 86400, 24, JUL15_10Z - 2 * 86400, plain)), /stale/],
      ] as const) {
        reply = () => body;
        const err = await rejection(provider().fetch(OSLO));
        expect(err).toBeInstanceOf(ForecastUnavailable);
        expect(err.message).toMatch(message);
      }
    });

    it('no answer within the timeout', async () => {
      reply = () => ({ status: 200, body: '', hang: true });
      const err = await rejection(provider({ timeoutMs: 100 }).fetch(OSLO));
      expect(err).toBeInstanceOf(ForecastUnavailable);
      expect(err.message).toBe('MET Norway: no answer within 0.1 s');
    });
  });
});
