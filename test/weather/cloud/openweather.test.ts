import { ManualClock } from '../../../server/src/core/clock';
import {
  createOpenWeatherSource,
  openWeatherKind,
} from '../../../server/src/weather/sources/openweather/current';
import {
  capturingLogger,
  json,
  LoopbackPeer,
  makeContext,
  refusedBaseUrl,
  type PeerHandler,
} from './helpers';

/**
 * OpenWeatherMap One Call API 3.0 against a loopback peer.
 *
 * Answer shape: the example response of the official docs page
 * (https://openweathermap.org/api/one-call-3, "Example of API response": lat
 * 33.44, lon -94.04, current.dt 1684929490, hourly[0].dt 1684926000 with pop
 * 0.15), with `minutely`, `daily` and `alerts` left out as `exclude=` asks and
 * the values restated in `units=imperial` (292.55 K -> 66.92 F, 3.13 m/s ->
 * 7 mph, gust 6.71 m/s -> 15.01 mph). `rain: {"1h": mm/h}` is the documented
 * "where available" key (mm/h whatever the units). Errors:
 * `{"cod": 401, "message": "Invalid API key. Please see https://openweathermap.org/faq#error401 for more info."}`.
 */

const KEY = 'f3c9e1d27b6a4e0c9b1d5a7e8c2f4b60';
const DT = 1684929490;

type Json = Record<string, unknown>;

function oneCall(current: Json = {}, dropCurrent: string[] = []): Json {
  const block: Json = {
    dt: DT,
    sunrise: 1684926645,
    sunset: 1684977332,
    temp: 66.92,
    feels_like: 67.5,
    pressure: 1014,
    humidity: 89,
    dew_point: 63.57,
    uvi: 0.16,
    clouds: 53,
    visibility: 10000,
    wind_speed: 7,
    wind_deg: 93,
    wind_gust: 15.01,
    weather: [{ id: 500, main: 'Rain', description: 'light rain', icon: '10d' }],
    rain: { '1h': 0.25 },
    ...current,
  };
  for (const key of dropCurrent) delete block[key];
  return {
    lat: 33.44,
    lon: -94.04,
    timezone: 'America/Chicago',
    timezone_offset: -18000,
    current: block,
    hourly: [
      {
        dt: 1684926000,
        temp: 65.95,
        feels_like: 66.52,
        pressure: 1014,
        humidity: 91,
        dew_point: 63.25,
        uvi: 0,
        clouds: 54,
        visibility: 10000,
        wind_speed: 5.77,
        wind_deg: 86,
        wind_gust: 13.15,
        weather: [{ id: 803, main: 'Clouds', description: 'broken clouds', icon: '04n' }],
        pop: 0.15,
      },
      { dt: 1684929600, temp: 67.1, pressure: 1014, humidity: 88, wind_speed: 6.1, wind_deg: 90, pop: 0.4 },
    ],
  };
}

const INVALID_KEY = {
  cod: 401,
  message: 'Invalid API key. Please see https://openweathermap.org/faq#error401 for more info.',
};

const peers: LoopbackPeer[] = [];

async function peer(handler: PeerHandler): Promise<LoopbackPeer> {
  const p = await new LoopbackPeer(handler).start();
  peers.push(p);
  return p;
}

/** Answers like the API: 401 unless the right appid is sent. */
function oneCallAt(body: () => unknown): PeerHandler {
  return (req) => {
    if (req.path !== '/data/3.0/onecall') return json(404, { cod: '404', message: 'Internal error' });
    if (req.query.get('appid') !== KEY) return json(401, INVALID_KEY);
    return json(200, body());
  };
}

function source(baseUrl: string, config: Json = {}, elevationM: number | null = 100) {
  const log = capturingLogger();
  const parts = makeContext({
    id: 'owm',
    config: { api_key: KEY, base_url: baseUrl, ...config },
    clock: new ManualClock((DT + 60) * 1000),
    location: { lat: 33.44, lon: -94.04, elevationM, timezone: 'America/Chicago' },
    logger: log.logger,
  });
  return { ...parts, lines: log.lines, source: createOpenWeatherSource(parts.ctx) };
}

afterEach(async () => {
  await Promise.all(peers.splice(0).map((p) => p.close()));
});

describe('openweather current conditions', () => {
  it('asks One Call 3.0 for imperial current + hourly data with the key as appid', async () => {
    const p = await peer(oneCallAt(() => oneCall()));
    const { source: s } = source(p.baseUrl);
    await s.pollOnce();
    expect(p.requests).toHaveLength(1);
    const req = p.requests[0]!;
    expect(req.method).toBe('GET');
    expect(req.path).toBe('/data/3.0/onecall');
    expect(Object.fromEntries(req.query)).toEqual({
      lat: '33.44',
      lon: '-94.04',
      exclude: 'minutely,daily,alerts',
      units: 'imperial',
      appid: KEY,
    });
  });

  it('publishes current converted to snapshot units, stamped with current.dt', async () => {
    const p = await peer(oneCallAt(() => oneCall()));
    const { source: s, sink } = source(p.baseUrl);
    await s.pollOnce();

    expect(sink.contacts).toEqual([{ ok: true }]);
    const readings = sink.readings();
    expect(Object.fromEntries([...readings].map(([f, r]) => [f, r.value]))).toEqual({
      air_temp_f: 66.92,
      rh_pct: 89,
      // 1014 hPa at sea level, taken to the site's 100 m with the standard atmosphere.
      pressure_inhg: 29.59,
      wind_avg_mph: 7,
      wind_gust_mph: 15.01,
      wind_dir_deg: 93,
      uv_index: 0.16,
      rain_intensity_in_hr: 0.0098, // 0.25 mm/h
      pop_pct: 15, // hourly step 1684926000 contains dt
    });
    for (const r of readings.values()) expect(r.observedEpoch).toBe(DT);
    expect(readings.has('rain_in_today')).toBe(false);
    expect(sink.batches[0]!.devices![0]).toMatchObject({
      id: 'openweather:owm',
      kind: 'cloud_account',
      source_id: 'owm',
      host: new URL(p.baseUrl).host,
      last_seen_epoch: DT + 60,
    });
  });

  it('leaves keys the answer omits absent (no rain, no gust) and keeps a zero UV index', async () => {
    const p = await peer(oneCallAt(() => oneCall({ uvi: 0 }, ['rain', 'wind_gust'])));
    const { source: s, sink } = source(p.baseUrl);
    await s.pollOnce();
    const readings = sink.readings();
    expect(readings.has('rain_intensity_in_hr')).toBe(false);
    expect(readings.has('wind_gust_mph')).toBe(false);
    expect(readings.get('uv_index')?.value).toBe(0);
    for (const r of readings.values()) expect(r.value).not.toBeNull();
  });

  it('leaves the sea-level pressure out when the site elevation is unknown', async () => {
    const p = await peer(oneCallAt(() => oneCall()));
    const { source: s, sink } = source(p.baseUrl, {}, null);
    await s.pollOnce();
    expect(sink.readings().has('pressure_inhg')).toBe(false);
    expect(sink.value('air_temp_f')).toBe(66.92);
  });

  it('reports a 401 as "api key rejected", publishes nothing and never shows the key', async () => {
    const p = await peer(oneCallAt(() => oneCall()));
    const wrong = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
    const { source: s, sink, lines } = source(p.baseUrl, { api_key: wrong });
    await s.pollOnce();
    expect(sink.batches).toHaveLength(0);
    expect(sink.contacts).toEqual([{ ok: false, note: 'api key rejected' }]);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.join('\n')).not.toContain(wrong);
  });

  it('scrubs the key from a provider message that echoes it', async () => {
    const p = await peer(() =>
      json(429, { cod: 429, message: `Your account is temporary blocked (key ${KEY})` }),
    );
    const { source: s, sink, lines } = source(p.baseUrl);
    await s.pollOnce();
    expect(sink.batches).toHaveLength(0);
    expect(sink.contacts).toEqual([
      { ok: false, note: 'OpenWeather HTTP 429: Your account is temporary blocked (key ***)' },
    ]);
    expect(lines.join('\n')).not.toContain(KEY);
  });

  it('fails the contact on a body without current, an HTML error page, and an unreachable host', async () => {
    const answers = [
      json(200, { lat: 33.44, lon: -94.04, hourly: [] }),
      { status: 502, body: '<html>Bad Gateway</html>', contentType: 'text/html' },
    ];
    let i = 0;
    const p = await peer(() => answers[i++]!);
    const { source: s, sink } = source(p.baseUrl);
    await s.pollOnce();
    await s.pollOnce();
    const gone = source(await refusedBaseUrl());
    await gone.source.pollOnce();

    expect(sink.batches).toHaveLength(0);
    expect(sink.contacts).toEqual([
      { ok: false, note: 'OpenWeather answer has no current block' },
      { ok: false, note: 'OpenWeather HTTP 502' },
    ]);
    expect(gone.sink.contacts).toEqual([{ ok: false, note: 'request failed: ECONNREFUSED' }]);
    expect(gone.lines.join('\n')).not.toContain(KEY);
  });
});

describe('openweather kind definition', () => {
  it('is a cloud provider that needs a key, ranked below the keyless ones', () => {
    expect(openWeatherKind.kind).toBe('openweather');
    expect(openWeatherKind.cloud).toEqual({ honestyRank: 30, needsApiKey: true });
  });

  it('requires api_key and validates poll_interval_s', () => {
    const schema = openWeatherKind.configSchema;
    expect(schema.safeParse({ api_key: KEY }).success).toBe(true);
    expect(schema.safeParse({}).success).toBe(false);
    expect(schema.safeParse({ api_key: '   ' }).success).toBe(false);
    expect(schema.safeParse({ api_key: KEY, poll_interval_s: 7200 }).success).toBe(false);
  });

  it('reports an invalid block without the key in the note', async () => {
    const { ctx, sink } = makeContext({ config: { api_key: KEY, poll_interval_s: 'often' } });
    const s = openWeatherKind.create(ctx);
    await s.start();
    await s.stop();
    expect(sink.lastContact()?.ok).toBe(false);
    expect(sink.lastContact()?.note).toMatch(/^config invalid: poll_interval_s: /);
    expect(sink.lastContact()?.note).not.toContain(KEY);
  });
});
