import fs from 'node:fs';
import path from 'node:path';
import { DateTime } from 'luxon';
import { ManualClock } from '../../../server/src/core/clock';
import { zoneFor } from '../../../server/src/core/tz/zone';
import { OpenMeteoForecastProvider } from '../../../server/src/forecast/providers/open-meteo';
import {
  ForecastUnavailable,
  type ForecastRequest,
  type HourlyEntry,
} from '../../../server/src/forecast/types';
import { json, LoopbackPeer, refusedBaseUrl, rejection, type PeerHandler } from '../../helpers/loopback-peer';
import { httpFetch } from '../../../server/src/core/http-fetch';

/**
 * Open-Meteo `/v1/forecast` against a loopback peer.
 *
 * - The main answer is the shared fixture open-meteo-forecast-sample.json
 *   (reconstructed by the fixtures' author from the Open-Meteo docs and real
 *   captures: unixtime, °F / mp/h / inch labels, local-midnight daily times).
 *   That sample predates the daily `wind_speed_10m_mean`,
 *   `relative_humidity_2m_mean` and `shortwave_radiation_sum` this client
 *   asks for; tests that need them add them with the docs' unit labels.
 * - The multi-model answer is the shared open-meteo-models-sample.json.
 * - DST answers are built here in the same shape for America/New_York.
 */

const FIXTURES = path.join(__dirname, 'fixtures');
type Json = Record<string, unknown>;
const load = (name: string): Json => JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8')) as Json;
const SAMPLE = load('open-meteo-forecast-sample.json');
const MODELS = load('open-meteo-models-sample.json');

/** A deep copy of the sample, changed by `edit`. */
function sample(edit: (body: Json) => void = () => undefined): Json {
  const body = structuredClone(SAMPLE);
  edit(body);
  return body;
}
const hourlyOf = (body: Json) => body.hourly as Record<string, unknown[]>;
const dailyOf = (body: Json) => body.daily as Record<string, unknown[]>;
const unitsOf = (body: Json, block: 'hourly_units' | 'daily_units') => body[block] as Record<string, string>;

const REQUEST: ForecastRequest = {
  lat: 38.58,
  lon: -121.49,
  elevationM: 9,
  timezone: 'America/Los_Angeles',
  pastDays: 1,
  forecastDays: 1,
};

describe('OpenMeteoForecastProvider', () => {
  let peer: LoopbackPeer;
  let reply: PeerHandler;
  const clock = new ManualClock(Date.UTC(2025, 6, 15, 17, 5, 0)); // 2025-07-15 10:05 PDT

  beforeEach(async () => {
    reply = () => json(200, SAMPLE);
    peer = await new LoopbackPeer((req, base) => reply(req, base)).start();
  });
  afterEach(async () => {
    await peer.close();
  });

  const provider = (timeoutMs?: number) =>
    new OpenMeteoForecastProvider({
      id: 'om',
      baseUrl: peer.baseUrl,
      fetch: httpFetch,
      clock,
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    });

  it('asks for the documented variables in °F, mph and inches, days in the deployment zone', async () => {
    await provider().fetch(REQUEST);
    const seen = peer.requests[0]!;
    expect(seen.path).toBe('/v1/forecast');
    const q = seen.query;
    expect(q.get('latitude')).toBe('38.58');
    expect(q.get('longitude')).toBe('-121.49');
    expect(q.get('elevation')).toBe('9');
    expect(q.get('hourly')).toBe(
      'temperature_2m,relative_humidity_2m,precipitation,precipitation_probability,wind_speed_10m,et0_fao_evapotranspiration',
    );
    expect(q.get('daily')).toBe(
      'temperature_2m_max,temperature_2m_min,precipitation_sum,precipitation_probability_max,' +
        'wind_speed_10m_max,wind_speed_10m_mean,relative_humidity_2m_mean,relative_humidity_2m_max,' +
        'relative_humidity_2m_min,et0_fao_evapotranspiration,' +
        'sunrise,sunset,shortwave_radiation_sum',
    );
    expect(q.get('temperature_unit')).toBe('fahrenheit');
    expect(q.get('wind_speed_unit')).toBe('mph');
    expect(q.get('precipitation_unit')).toBe('inch');
    expect(q.get('timezone')).toBe('America/Los_Angeles');
    expect(q.get('timeformat')).toBe('unixtime');
    expect(q.get('past_days')).toBe('1');
    expect(q.get('forecast_days')).toBe('1');
    expect(q.has('models')).toBe(false);
    // Commas stay literal, as the docs write them.
    expect(seen.url).toContain('hourly=temperature_2m,relative_humidity_2m,');

    await provider().fetch({ ...REQUEST, elevationM: null });
    expect(peer.requests[1]!.query.has('elevation')).toBe(false);
  });

  it('maps the sample: instant values at the hour start, amounts from the step that ends the hour', async () => {
    const forecast = await provider().fetch(REQUEST);
    expect(forecast.provider).toBe('open_meteo');
    expect(forecast.model).toBeNull();
    expect(forecast.fetched_at).toBe(Date.UTC(2025, 6, 15, 17, 5, 0) / 1000);
    expect(forecast.hourly).toHaveLength(48);

    expect(forecast.hourly[0]).toEqual<HourlyEntry>({
      time_epoch: 1752476400, // 2025-07-14 00:00 PDT
      temp_f: 72.7,
      precip_in: 0,
      precip_probability: 0,
      wind_mph: 3.6,
      humidity_pct: 58,
      et0_in: 0, // a reported zero (the 01:00 step: "preceding hour sum")
      et0_reported: true,
    });
    // 06:00-07:00 PDT: ET0 0.008 is stated at 07:00 (index 7).
    expect(forecast.hourly[6]).toMatchObject({ time_epoch: 1752498000, temp_f: 59.6, et0_in: 0.008 });
    // The 3 % probabilities are stated at 14:00..17:00 on the 15th (indices 38..41): hours 13..16.
    expect(forecast.hourly.slice(36, 43).map((h) => h.precip_probability)).toEqual([0, 3, 3, 3, 3, 0, 0]);
    // The last hour's amounts would be stated by a step after the series: unknown, not zero.
    expect(forecast.hourly[47]).toEqual<HourlyEntry>({
      time_epoch: 1752645600,
      temp_f: 79,
      precip_in: null,
      precip_probability: null,
      wind_mph: 3.5,
      humidity_pct: 54,
      et0_in: null,
      et0_reported: false,
    });

    expect(forecast.daily).toEqual([
      {
        date_local: '2025-07-14',
        time_epoch: 1752476400,
        temp_max_f: 96.8,
        temp_min_f: 59.5,
        precip_sum_in: 0,
        precip_probability_max: 0,
        wind_max_mph: 9.5,
        wind_mean_2m_ms: null, // not in this sample: unknown
        humidity_pct: null,
        humidity_mean_pct: null,
        humidity_max_pct: null,
        humidity_min_pct: null,
        et0_in: 0.305,
        et0_reported: true,
        sunrise_epoch: 1752497700,
        sunset_epoch: 1752550140,
        radiation_mj_m2: null,
      },
      {
        date_local: '2025-07-15',
        time_epoch: 1752562800,
        temp_max_f: 99.1,
        temp_min_f: 61.3,
        precip_sum_in: 0,
        precip_probability_max: 3,
        wind_max_mph: 11.2,
        wind_mean_2m_ms: null,
        humidity_pct: null,
        humidity_mean_pct: null,
        humidity_max_pct: null,
        humidity_min_pct: null,
        et0_in: 0.326,
        et0_reported: true,
        sunrise_epoch: 1752584160,
        sunset_epoch: 1752636540,
        radiation_mj_m2: null,
      },
    ]);
  });

  it('maps the daily mean wind to 2 m (FAO-56 eq. 47), mean humidity and radiation', async () => {
    reply = () =>
      json(
        200,
        sample((b) => {
          Object.assign(dailyOf(b), {
            wind_speed_10m_mean: [4.1, 5.0],
            relative_humidity_2m_mean: [52, 49],
            shortwave_radiation_sum: [30.12, 29.87],
          });
          Object.assign(unitsOf(b, 'daily_units'), {
            wind_speed_10m_mean: 'mp/h',
            relative_humidity_2m_mean: '%',
            shortwave_radiation_sum: 'MJ/m²',
          });
        }),
      );
    const { daily } = await provider().fetch(REQUEST);
    // 4.1 mph = 1.8329 m/s at 10 m; x 4.87 / ln(672.58) = x 0.74795.
    expect(daily[0]).toMatchObject({
      wind_mean_2m_ms: 1.37,
      humidity_pct: 52,
      humidity_mean_pct: 52,
      radiation_mj_m2: 30.12,
    });
    expect(daily[1]).toMatchObject({ wind_mean_2m_ms: 1.67, humidity_pct: 49, radiation_mj_m2: 29.87 });
  });

  it('keeps nulls in the middle of a series null, in their own slot', async () => {
    reply = () =>
      json(
        200,
        sample((b) => {
          const h = hourlyOf(b);
          h.temperature_2m![10] = null;
          h.precipitation![20] = null; // stated at 20:00: the 19:00-20:00 hour
          h.et0_fao_evapotranspiration![31] = null; // stated at 07:00 on the 15th: the 06:00 hour
          h.relative_humidity_2m![12] = null;
          delete h.wind_speed_10m; // a series not served at all: every slot null
          dailyOf(b).temperature_2m_max![0] = null;
          dailyOf(b).et0_fao_evapotranspiration![1] = null;
        }),
      );
    const { hourly, daily } = await provider().fetch(REQUEST);
    expect(hourly).toHaveLength(48);
    expect(hourly[10]).toMatchObject({ time_epoch: 1752512400, temp_f: null, precip_in: 0 });
    expect(hourly[9]!.temp_f).toBe(68.8);
    expect(hourly[11]!.temp_f).toBe(79.5);
    expect(hourly[19]).toMatchObject({ time_epoch: 1752544800, temp_f: 92.4, precip_in: null });
    expect(hourly[18]!.precip_in).toBe(0);
    expect(hourly[20]!.precip_in).toBe(0);
    expect(hourly[30]).toMatchObject({ et0_in: null, et0_reported: false });
    expect(hourly[29]).toMatchObject({ et0_in: 0.002, et0_reported: true });
    expect(hourly[31]).toMatchObject({ et0_in: 0.016, et0_reported: true });
    expect(hourly[12]!.humidity_pct).toBeNull();
    expect(hourly.every((h) => h.wind_mph === null)).toBe(true);
    expect(daily[0]).toMatchObject({ temp_max_f: null, temp_min_f: 59.5, et0_in: 0.305, et0_reported: true });
    expect(daily[1]).toMatchObject({ temp_max_f: 99.1, et0_in: null, et0_reported: false });
  });

  describe('DST days in America/New_York', () => {
    const NY = 'America/New_York';

    /** An answer of the sample's shape from local midnight `from` to `to` (both epochs). */
    function dstAnswer(from: number, to: number, dayStarts: number[]): Json {
      const time: number[] = [];
      for (let t = from; t < to; t += 3600) time.push(t);
      return {
        latitude: 40.71,
        longitude: -74.01,
        utc_offset_seconds: -14400,
        timezone: NY,
        timezone_abbreviation: 'GMT-4',
        elevation: 10,
        hourly_units: structuredClone(SAMPLE.hourly_units),
        hourly: {
          time,
          temperature_2m: time.map((_, i) => 40 + (i % 24)),
          relative_humidity_2m: time.map(() => 60),
          precipitation: time.map(() => 0.01),
          precipitation_probability: time.map(() => 40),
          wind_speed_10m: time.map(() => 6),
          et0_fao_evapotranspiration: time.map(() => 0.004),
        },
        daily_units: structuredClone(SAMPLE.daily_units),
        daily: {
          time: dayStarts,
          temperature_2m_max: dayStarts.map(() => 63),
          temperature_2m_min: dayStarts.map(() => 40),
          precipitation_sum: dayStarts.map((d, i) => (((dayStarts[i + 1] ?? to) - d) / 3600) * 0.01),
          precipitation_probability_max: dayStarts.map(() => 40),
          wind_speed_10m_max: dayStarts.map(() => 6),
          et0_fao_evapotranspiration: dayStarts.map(() => 0.09),
          sunrise: dayStarts.map((d) => d + 6.5 * 3600),
          sunset: dayStarts.map((d) => d + 18 * 3600),
        },
      };
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

    const request: ForecastRequest = {
      lat: 40.71,
      lon: -74.01,
      elevationM: null,
      timezone: NY,
      pastDays: 0,
      forecastDays: 2,
    };

    it('spring forward (2025-03-09): a 23-hour day', async () => {
      const mar9 = 1741496400; // 00:00 EST = 05:00Z
      const mar10 = 1741579200; // 00:00 EDT = 04:00Z
      const mar11 = 1741665600;
      reply = () => json(200, dstAnswer(mar9, mar11, [mar9, mar10]));
      clock.set(Date.UTC(2025, 2, 9, 14));
      const forecast = await provider().fetch(request);
      expect(peer.requests[0]!.query.get('timezone')).toBe(NY);
      expect(forecast.hourly).toHaveLength(47);
      expect(hoursPerLocalDay(forecast.hourly)).toEqual({ '2025-03-09': 23, '2025-03-10': 24 });
      const zone = zoneFor(NY);
      const localHours = forecast.hourly
        .slice(0, 4)
        .map((h) => DateTime.fromSeconds(h.time_epoch, { zone }).hour);
      expect(localHours).toEqual([0, 1, 3, 4]); // 02:00 does not exist
      expect(forecast.daily.map((d) => [d.date_local, d.time_epoch])).toEqual([
        ['2025-03-09', mar9],
        ['2025-03-10', mar10],
      ]);
      expect(forecast.daily[0]!.precip_sum_in).toBeCloseTo(0.23, 10);
    });

    it('fall back (2025-11-02): a 25-hour day', async () => {
      const nov2 = 1762056000; // 00:00 EDT = 04:00Z
      const nov3 = 1762146000; // 00:00 EST = 05:00Z
      const nov4 = 1762232400;
      reply = () => json(200, dstAnswer(nov2, nov4, [nov2, nov3]));
      clock.set(Date.UTC(2025, 10, 2, 14));
      const forecast = await provider().fetch(request);
      expect(forecast.hourly).toHaveLength(49);
      expect(hoursPerLocalDay(forecast.hourly)).toEqual({ '2025-11-02': 25, '2025-11-03': 24 });
      const zone = zoneFor(NY);
      const localHours = forecast.hourly
        .slice(0, 4)
        .map((h) => DateTime.fromSeconds(h.time_epoch, { zone }).hour);
      expect(localHours).toEqual([0, 1, 1, 2]); // 01:00 happens twice
      expect(forecast.daily.map((d) => d.date_local)).toEqual(['2025-11-02', '2025-11-03']);
      expect(forecast.daily[0]!.precip_sum_in).toBeCloseTo(0.25, 10);
    });

    it('refuses daily rows that are not local midnights of the deployment zone', async () => {
      // What `timezone=GMT` would give: UTC midnights, which split New York days.
      const utc = [Date.UTC(2025, 2, 9) / 1000, Date.UTC(2025, 2, 10) / 1000];
      reply = () => json(200, dstAnswer(utc[0]!, utc[0]! + 48 * 3600, utc));
      const err = await rejection(provider().fetch(request));
      expect(err).toBeInstanceOf(ForecastUnavailable);
      expect(err.message).toMatch(/local midnight in America\/New_York/);
    });
  });

  describe('units', () => {
    const cases: [string, 'hourly_units' | 'daily_units', string, string][] = [
      ['temperature in °C', 'hourly_units', 'temperature_2m', '°C'],
      ['wind in km/h', 'hourly_units', 'wind_speed_10m', 'km/h'],
      ['precipitation in mm', 'hourly_units', 'precipitation', 'mm'],
      ['ET0 in mm', 'hourly_units', 'et0_fao_evapotranspiration', 'mm'],
      ['daily maximum in °C', 'daily_units', 'temperature_2m_max', '°C'],
      ['daily rain in mm', 'daily_units', 'precipitation_sum', 'mm'],
      ['sunrise as iso8601', 'daily_units', 'sunrise', 'iso8601'],
    ];
    it.each(cases)('refuses %s rather than mislabel it', async (_name, block, key, unit) => {
      reply = () =>
        json(
          200,
          sample((b) => (unitsOf(b, block)[key] = unit)),
        );
      const err = await rejection(provider().fetch(REQUEST));
      expect(err).toBeInstanceOf(ForecastUnavailable);
      expect(err.message).toContain(key);
      expect(err.message).toContain(JSON.stringify(unit));
    });

    it('refuses a series without a unit, and times that are not unixtime', async () => {
      reply = () =>
        json(
          200,
          sample((b) => delete unitsOf(b, 'hourly_units').precipitation),
        );
      expect(await rejection(provider().fetch(REQUEST))).toBeInstanceOf(ForecastUnavailable);
      reply = () =>
        json(
          200,
          sample((b) => (unitsOf(b, 'hourly_units').time = 'iso8601')),
        );
      expect((await rejection(provider().fetch(REQUEST))).message).toMatch(/not unixtime/);
    });

    it('accepts the plain "mph" label some servers use', async () => {
      reply = () =>
        json(
          200,
          sample((b) => (unitsOf(b, 'hourly_units').wind_speed_10m = 'mph')),
        );
      expect((await provider().fetch(REQUEST)).hourly[0]!.wind_mph).toBe(3.6);
    });
  });

  describe('failures', () => {
    it('400 with a reason', async () => {
      const reason =
        'Cannot initialize WeatherVariable from invalid String value tempeture_2m for key hourly';
      reply = () => json(400, { error: true, reason });
      const err = await rejection(provider().fetch(REQUEST));
      expect(err).toBeInstanceOf(ForecastUnavailable);
      expect(err.message).toBe(`Open-Meteo: HTTP 400: ${reason}`);
    });

    it('an error flag in a 200 answer', async () => {
      reply = () => json(200, { error: true, reason: 'Parameter past_days out of range' });
      expect((await rejection(provider().fetch(REQUEST))).message).toBe(
        'Open-Meteo: Parameter past_days out of range',
      );
    });

    it('500 without a body', async () => {
      reply = () => ({ status: 500, body: '', contentType: 'text/plain' });
      const err = await rejection(provider().fetch(REQUEST));
      expect(err).toBeInstanceOf(ForecastUnavailable);
      expect(err.message).toBe('Open-Meteo: HTTP 500');
    });

    it('garbage: HTML, a JSON list, no hourly block, non-epoch times', async () => {
      const bodies = [
        { status: 200, body: '<html>upstream gateway</html>', contentType: 'text/html' },
        json(200, [SAMPLE, SAMPLE]),
        json(
          200,
          sample((b) => delete b.hourly),
        ),
        json(
          200,
          sample((b) => (hourlyOf(b).time![3] = null)),
        ),
        json(
          200,
          sample((b) => ((b.hourly as Json).temperature_2m = 'hot')),
        ),
      ];
      for (const body of bodies) {
        reply = () => body;
        const err = await rejection(provider().fetch(REQUEST));
        expect(err).toBeInstanceOf(ForecastUnavailable);
        expect(err.message).toMatch(/^Open-Meteo: /);
      }
    });

    it('no answer within the timeout', async () => {
      reply = () => ({ status: 200, body: '', hang: true });
      const started = Date.now();
      const err = await rejection(provider(150).fetch(REQUEST));
      expect(err).toBeInstanceOf(ForecastUnavailable);
      expect(err.message).toBe('Open-Meteo: no answer within 0.15 s');
      expect(Date.now() - started).toBeLessThan(5000);
    });

    it('the caller aborting', async () => {
      reply = () => ({ status: 200, body: '', hang: true });
      const controller = new AbortController();
      const pending = rejection(provider().fetch(REQUEST, controller.signal));
      setTimeout(() => controller.abort(), 50);
      const err = await pending;
      expect(err).toBeInstanceOf(ForecastUnavailable);
      expect(err.message).toBe('Open-Meteo: request aborted');
    });

    it('nothing listening', async () => {
      const p = new OpenMeteoForecastProvider({
        id: 'om',
        baseUrl: await refusedBaseUrl(),
        fetch: httpFetch,
        clock,
      });
      const err = await rejection(p.fetch(REQUEST));
      expect(err).toBeInstanceOf(ForecastUnavailable);
      expect(err.message).toMatch(/^Open-Meteo: request failed \(ECONNREFUSED\)$/);
    });

    it('an unknown time zone is refused before any request', async () => {
      const err = await rejection(provider().fetch({ ...REQUEST, timezone: 'Mars/Olympus_Mons' }));
      expect(err).toBeInstanceOf(ForecastUnavailable);
      expect(peer.requests).toHaveLength(0);
    });
  });

  describe('fetchModels', () => {
    it('maps each model from its _<model> keys, nulls kept, absent series null', async () => {
      reply = () => json(200, MODELS);
      clock.set(Date.UTC(2025, 6, 15, 8));
      const models = await provider().fetchModels(REQUEST, ['gfs_seamless', 'icon_seamless']);
      expect(peer.requests[0]!.query.get('models')).toBe('gfs_seamless,icon_seamless');
      expect([...models.keys()]).toEqual(['gfs_seamless', 'icon_seamless']);

      const gfs = models.get('gfs_seamless')!;
      expect(gfs).toMatchObject({ provider: 'open_meteo', model: 'gfs_seamless', daily: [] });
      expect(gfs.hourly).toEqual<HourlyEntry[]>([
        {
          time_epoch: 1752562800,
          temp_f: 75.1,
          precip_in: 0,
          precip_probability: null, // not asked of this model in the sample: unknown
          wind_mph: null,
          humidity_pct: null,
          et0_in: 0,
          et0_reported: true,
        },
        {
          time_epoch: 1752566400,
          temp_f: 71,
          precip_in: 0,
          precip_probability: null,
          wind_mph: null,
          humidity_pct: null,
          et0_in: 0,
          et0_reported: true,
        },
        {
          time_epoch: 1752570000,
          temp_f: 67.6,
          precip_in: 0,
          precip_probability: null,
          wind_mph: null,
          humidity_pct: null,
          et0_in: 0,
          et0_reported: true,
        },
        {
          time_epoch: 1752573600,
          temp_f: 64.9,
          precip_in: null,
          precip_probability: null,
          wind_mph: null,
          humidity_pct: null,
          et0_in: null,
          et0_reported: false,
        },
      ]);

      const icon = models.get('icon_seamless')!;
      expect(icon.model).toBe('icon_seamless');
      expect(icon.hourly.map((h) => h.temp_f)).toEqual([74.3, 70.5, 66.8, 64]);
      // icon's amounts stated at steps 2 and 3 are null: hours 1 and 2 are unknown, hour 0 is a reported 0.
      expect(icon.hourly.map((h) => h.precip_in)).toEqual([0, null, null, null]);
      expect(icon.hourly.map((h) => [h.et0_in, h.et0_reported])).toEqual([
        [0, true],
        [null, false],
        [null, false],
        [null, false],
      ]);
    });

    it('one model: unsuffixed keys', async () => {
      reply = () => json(200, SAMPLE);
      const models = await provider().fetchModels(REQUEST, ['gfs_hrrr']);
      expect(peer.requests[0]!.query.get('models')).toBe('gfs_hrrr');
      const hrrr = models.get('gfs_hrrr')!;
      expect(hrrr.model).toBe('gfs_hrrr');
      expect(hrrr.hourly[0]!.temp_f).toBe(72.7);
      expect(hrrr.daily).toHaveLength(2);
    });

    it('a model the answer has no series for is left out; units are checked per model', async () => {
      reply = () => json(200, MODELS);
      const models = await provider().fetchModels(REQUEST, ['gfs_seamless', 'ecmwf_ifs025']);
      expect([...models.keys()]).toEqual(['gfs_seamless']);

      reply = () =>
        json(
          200,
          (() => {
            const body = structuredClone(MODELS);
            unitsOf(body, 'hourly_units').precipitation_icon_seamless = 'mm';
            return body;
          })(),
        );
      const err = await rejection(provider().fetchModels(REQUEST, ['gfs_seamless', 'icon_seamless']));
      expect(err).toBeInstanceOf(ForecastUnavailable);
      expect(err.message).toContain('precipitation_icon_seamless');
    });

    it('refuses a model id that is not a model name, without a request', async () => {
      const err = await rejection(provider().fetchModels(REQUEST, ['gfs&apikey=x']));
      expect(err).toBeInstanceOf(ForecastUnavailable);
      expect(peer.requests).toHaveLength(0);
    });
  });
});
