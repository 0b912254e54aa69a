import { ManualClock } from '../../../server/src/core/clock';
import {
  clampPastDays,
  createOpenMeteoSource,
  CURRENT_VARIABLES,
  openMeteoKind,
} from '../../../server/src/weather/sources/open-meteo/current';
import { json, LoopbackPeer, makeContext, refusedBaseUrl, type PeerHandler } from './helpers';

/**
 * Open-Meteo `/v1/forecast` with `current=` against a loopback peer.
 *
 * Answer shape: the documented response object (open-meteo/open-meteo-website
 * docs page; shared fixture open-meteo.md): the header keys of
 * open-meteo-forecast-sample.json (Sacramento grid cell, America/Los_Angeles,
 * GMT-7, unixtime), plus `current_units` / `current` as the docs and real
 * captures show them: `{"time": ..., "interval": 900, <variable>: value}` with
 * units `{"time": "unixtime", "interval": "seconds", ...}` and `mp/h` for mph.
 * The hourly precipitation_probability series is the sample's second day.
 * Values are synthetic (14:15 PDT on the sample's hot day).
 */

const STEP_START = 1752614100; // 2025-07-15T14:15:00-07:00, start of the 15-minute step
const HOUR_START = 1752613200; // 14:00 PDT
const DAY_START = 1752562800; // 2025-07-15T00:00:00-07:00
const SAMPLE_DAY2_POP = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 3, 3, 3, 0, 0, 0, 0, 0, 0];

type Json = Record<string, unknown>;

function forecastBody(patch: { current?: Json; current_units?: Json; pop?: (number | null)[] } = {}): Json {
  return {
    latitude: 38.575,
    longitude: -121.5,
    generationtime_ms: 0.0629425048828125,
    utc_offset_seconds: -25200,
    timezone: 'America/Los_Angeles',
    timezone_abbreviation: 'GMT-7',
    elevation: 9.0,
    current_units: {
      time: 'unixtime',
      interval: 'seconds',
      temperature_2m: '°F',
      relative_humidity_2m: '%',
      surface_pressure: 'hPa',
      precipitation: 'inch',
      rain: 'inch',
      wind_speed_10m: 'mp/h',
      wind_gusts_10m: 'mp/h',
      wind_direction_10m: '°',
      shortwave_radiation: 'W/m²',
      uv_index: '',
      is_day: '',
      ...patch.current_units,
    },
    current: {
      time: STEP_START,
      interval: 900,
      temperature_2m: 96.4,
      relative_humidity_2m: 28,
      surface_pressure: 1008.9,
      precipitation: 0.02,
      rain: 0.02,
      wind_speed_10m: 8.6,
      wind_gusts_10m: 14.1,
      wind_direction_10m: 292,
      shortwave_radiation: 846.5,
      uv_index: 7.85,
      is_day: 1,
      ...patch.current,
    },
    hourly_units: { time: 'unixtime', precipitation_probability: '%' },
    hourly: {
      time: SAMPLE_DAY2_POP.map((_, i) => DAY_START + i * 3600),
      precipitation_probability: patch.pop ?? SAMPLE_DAY2_POP,
    },
  };
}

const peers: LoopbackPeer[] = [];

async function peer(handler: PeerHandler): Promise<LoopbackPeer> {
  const p = await new LoopbackPeer(handler).start();
  peers.push(p);
  return p;
}

/** A peer that answers /v1/forecast like Open-Meteo and anything else with its 404. */
function forecastAt(body: () => unknown): PeerHandler {
  return (req) =>
    req.path === '/v1/forecast' ? json(200, body()) : json(404, { error: true, reason: 'Not Found' });
}

function source(baseUrl: string, config: Record<string, unknown> = {}, elevationM: number | null = null) {
  const parts = makeContext({
    id: 'om',
    config: { base_url: baseUrl, ...config },
    clock: new ManualClock((STEP_START + 300) * 1000),
    location: { lat: 38.58, lon: -121.49, elevationM },
  });
  return { ...parts, source: createOpenMeteoSource(parts.ctx) };
}

afterEach(async () => {
  await Promise.all(peers.splice(0).map((p) => p.close()));
});

describe('open_meteo current conditions', () => {
  it('asks for the documented current variables in F, mph and inches, with past_days defaulting to 3', async () => {
    const p = await peer(forecastAt(() => forecastBody()));
    const { source: s } = source(p.baseUrl);
    await s.pollOnce();

    expect(p.requests).toHaveLength(1);
    const req = p.requests[0]!;
    expect(req.method).toBe('GET');
    expect(req.path).toBe('/v1/forecast');
    const q = Object.fromEntries(req.query);
    expect(q).toEqual({
      latitude: '38.58',
      longitude: '-121.49',
      current:
        'temperature_2m,relative_humidity_2m,surface_pressure,precipitation,rain,wind_speed_10m,' +
        'wind_gusts_10m,wind_direction_10m,shortwave_radiation,uv_index,is_day',
      hourly: 'precipitation_probability',
      forecast_hours: '1',
      temperature_unit: 'fahrenheit',
      wind_speed_unit: 'mph',
      precipitation_unit: 'inch',
      timezone: 'auto',
      timeformat: 'unixtime',
      past_days: '3',
    });
    expect(q.current!.split(',')).toEqual([...CURRENT_VARIABLES]);
    // Commas stay literal, as the provider documents its lists.
    expect(req.url).toContain('current=temperature_2m,relative_humidity_2m,');
  });

  it('publishes the current block converted to snapshot units, stamped with current.time', async () => {
    const p = await peer(forecastAt(() => forecastBody()));
    const { source: s, sink } = source(p.baseUrl);
    await s.pollOnce();

    expect(sink.contacts).toEqual([{ ok: true }]);
    expect(sink.batches).toHaveLength(1);
    const readings = sink.readings();
    expect(Object.fromEntries([...readings].map(([f, r]) => [f, r.value]))).toEqual({
      air_temp_f: 96.4,
      rh_pct: 28,
      pressure_inhg: 29.793, // 1008.9 hPa surface pressure
      wind_avg_mph: 8.6,
      wind_gust_mph: 14.1,
      wind_dir_deg: 292,
      solar_w_m2: 846.5,
      uv_index: 7.85,
      rain_intensity_in_hr: 0.08, // 0.02 in over the 15-minute step
      pop_pct: 3, // the 14:00 hour of the sample's second day
    });
    for (const r of readings.values()) expect(r.observedEpoch).toBe(STEP_START);
    // A model's precipitation is not a measured local-day total.
    expect(readings.has('rain_in_today')).toBe(false);
  });

  it('describes itself as a cloud account device', async () => {
    const p = await peer(forecastAt(() => forecastBody()));
    const { source: s, sink } = source(p.baseUrl);
    await s.pollOnce();

    const device = sink.batches[0]!.devices![0]!;
    expect(device).toMatchObject({
      id: 'open_meteo:om',
      kind: 'cloud_account',
      source_id: 'om',
      host: new URL(p.baseUrl).host,
      serial: null,
      battery_v: null,
      last_seen_epoch: STEP_START + 300,
    });
    expect(device.sensors).toEqual([...sink.readings().keys()]);
    expect(device.status_note).toContain('38.575, -121.5');
    expect(device.status_note).toContain('not measurements');
  });

  it('reads the units from current_units: a metric answer is converted, not taken as imperial', async () => {
    const metric = forecastBody({
      current_units: {
        temperature_2m: '°C',
        precipitation: 'mm',
        wind_speed_10m: 'km/h',
        wind_gusts_10m: 'm/s',
      },
      current: { temperature_2m: 35.8, precipitation: 0.5, wind_speed_10m: 13.8, wind_gusts_10m: 6.3 },
    });
    const p = await peer(forecastAt(() => metric));
    const { source: s, sink } = source(p.baseUrl);
    await s.pollOnce();

    expect(sink.value('air_temp_f')).toBe(96.44);
    expect(sink.value('wind_avg_mph')).toBe(8.57);
    expect(sink.value('wind_gust_mph')).toBe(14.09);
    expect(sink.value('rain_intensity_in_hr')).toBe(0.0787); // 0.5 mm per 15 min = 2 mm/h
  });

  it('leaves a field with a unit label it does not know absent instead of guessing', async () => {
    const odd = forecastBody({ current_units: { wind_speed_10m: 'bft', surface_pressure: 'inHg' } });
    const p = await peer(forecastAt(() => odd));
    const { source: s, sink } = source(p.baseUrl);
    await s.pollOnce();

    expect(sink.lastContact()).toEqual({ ok: true });
    const readings = sink.readings();
    expect(readings.has('wind_avg_mph')).toBe(false);
    expect(readings.has('pressure_inhg')).toBe(false);
    expect(readings.get('wind_gust_mph')?.value).toBe(14.1);
  });

  it('keeps nulls absent and a modelled zero as zero', async () => {
    const sparse = forecastBody({
      current: { wind_gusts_10m: null, uv_index: null, precipitation: 0, shortwave_radiation: 0 },
      pop: SAMPLE_DAY2_POP.map((v, i) => (i === 14 ? null : v)),
    });
    const p = await peer(forecastAt(() => sparse));
    const { source: s, sink } = source(p.baseUrl);
    await s.pollOnce();

    const readings = sink.readings();
    expect(readings.has('wind_gust_mph')).toBe(false);
    expect(readings.has('uv_index')).toBe(false);
    expect(readings.has('pop_pct')).toBe(false);
    expect(readings.get('rain_intensity_in_hr')?.value).toBe(0);
    expect(readings.get('solar_w_m2')?.value).toBe(0);
    for (const r of readings.values()) expect(r.value).not.toBeNull();
  });

  it('takes pop only from the hour that contains current.time', async () => {
    const body = forecastBody();
    (body.hourly as { time: number[] }).time = [HOUR_START - 7200, HOUR_START - 3600];
    (body.hourly as { precipitation_probability: number[] }).precipitation_probability = [40, 50];
    const p = await peer(forecastAt(() => body));
    const { source: s, sink } = source(p.baseUrl);
    await s.pollOnce();

    expect(sink.readings().has('pop_pct')).toBe(false);
    expect(sink.value('air_temp_f')).toBe(96.4);
  });

  it('clamps past_days to 1..7 at runtime', async () => {
    expect([clampPastDays(undefined), clampPastDays(null), clampPastDays(0), clampPastDays(12)]).toEqual([
      3, 3, 1, 7,
    ]);
    const p = await peer(forecastAt(() => forecastBody()));
    for (const past_days of [12, 0, -4, 5, null]) {
      await source(p.baseUrl, { past_days }).source.pollOnce();
    }
    expect(p.requests.map((r) => r.query.get('past_days'))).toEqual(['7', '1', '1', '5', '3']);
  });

  it('sends the configured site elevation for downscaling when it is known', async () => {
    const p = await peer(forecastAt(() => forecastBody()));
    await source(`${p.baseUrl}/`, {}, 12.5).source.pollOnce();
    expect(p.requests[0]!.path).toBe('/v1/forecast');
    expect(p.requests[0]!.query.get('elevation')).toBe('12.5');
  });

  it('turns the documented 400 error object into a failed contact with the reason, and publishes nothing', async () => {
    const reason = 'Cannot initialize WeatherVariable from invalid String value tempeture_2m for key hourly';
    const p = await peer(() => json(400, { error: true, reason }));
    const { source: s, sink } = source(p.baseUrl);
    await s.pollOnce();

    expect(sink.batches).toHaveLength(0);
    expect(sink.contacts).toEqual([{ ok: false, note: `Open-Meteo HTTP 400: ${reason}` }]);
  });

  it('fails the contact on a non-JSON error page, an unparsable body and a body without current units', async () => {
    const answers = [
      { status: 502, body: '<html><body>Bad Gateway</body></html>', contentType: 'text/html' },
      { status: 200, body: '{"latitude": 38.575, "current": {', contentType: 'application/json' },
      json(200, { ...forecastBody(), current_units: undefined }),
      json(200, forecastBody({ current: { time: '2025-07-15T14:15' } })),
    ];
    let i = 0;
    const p = await peer(() => answers[i++]!);
    const { source: s, sink } = source(p.baseUrl);
    for (let n = 0; n < answers.length; n++) await s.pollOnce();

    expect(sink.batches).toHaveLength(0);
    expect(sink.contacts).toEqual([
      { ok: false, note: 'Open-Meteo HTTP 502' },
      { ok: false, note: 'Open-Meteo answer is not a JSON object' },
      { ok: false, note: 'Open-Meteo answer has no current block with units' },
      { ok: false, note: 'Open-Meteo current.time is not a unix time' },
    ]);
  });

  it('fails the contact when the peer does not answer in time or cannot be reached', async () => {
    const p = await peer(() => ({ status: 200, body: '', hang: true }));
    const slow = source(p.baseUrl, { timeout_s: 1 });
    await slow.source.pollOnce();
    expect(slow.sink.batches).toHaveLength(0);
    expect(slow.sink.contacts).toEqual([{ ok: false, note: 'no answer within 1 s' }]);

    const gone = source(await refusedBaseUrl());
    await gone.source.pollOnce();
    expect(gone.sink.batches).toHaveLength(0);
    expect(gone.sink.lastContact()).toEqual({ ok: false, note: 'request failed: ECONNREFUSED' });
  });

  it('polls once at start and stops cleanly', async () => {
    const p = await peer(forecastAt(() => forecastBody()));
    const { source: s, sink } = source(p.baseUrl);
    await s.start();
    await waitFor(() => sink.contacts.length > 0);
    await s.stop();
    expect(sink.contacts).toEqual([{ ok: true }]);
    expect(p.requests).toHaveLength(1);
  });

  it('stop() aborts a poll in flight without a verdict either way', async () => {
    const p = await peer(() => ({ status: 200, body: '', hang: true }));
    const { source: s, sink } = source(p.baseUrl);
    await s.start();
    await waitFor(() => p.requests.length > 0);
    await s.stop();
    expect(sink.contacts).toEqual([]);
    expect(sink.batches).toEqual([]);
  });

  it('joins a poll already in flight instead of starting a second one', async () => {
    const p = await peer(forecastAt(() => forecastBody()));
    const { source: s, sink } = source(p.baseUrl);
    await Promise.all([s.pollOnce(), s.pollOnce()]);
    expect(p.requests).toHaveLength(1);
    expect(sink.batches).toHaveLength(1);
  });
});

describe('open_meteo kind definition', () => {
  it('is a keyless cloud provider ranked between NWS and OpenWeather', () => {
    expect(openMeteoKind.kind).toBe('open_meteo');
    expect(openMeteoKind.cloud).toEqual({ honestyRank: 50, needsApiKey: false });
    expect(openMeteoKind.provides).not.toContain('rain_in_today');
  });

  it('validates poll_interval_s and base_url, and leaves past_days to the runtime clamp', () => {
    const schema = openMeteoKind.configSchema;
    expect(schema.safeParse({}).success).toBe(true);
    expect(schema.safeParse({ past_days: 12, poll_interval_s: 600, base_url: null }).success).toBe(true);
    expect(schema.safeParse({ poll_interval_s: 59 }).success).toBe(false);
    expect(schema.safeParse({ poll_interval_s: 3601 }).success).toBe(false);
    expect(schema.safeParse({ base_url: 'ftp://example.com' }).success).toBe(false);
  });

  it('reports an invalid config block through contact(false) instead of throwing or polling', async () => {
    const p = await peer(forecastAt(() => forecastBody()));
    const { ctx, sink } = makeContext({ config: { base_url: p.baseUrl, poll_interval_s: 5 } });
    const s = openMeteoKind.create(ctx);
    await s.start();
    await s.stop();
    expect(p.requests).toHaveLength(0);
    expect(sink.batches).toHaveLength(0);
    expect(sink.lastContact()?.ok).toBe(false);
    expect(sink.lastContact()?.note).toMatch(/^config invalid: poll_interval_s: /);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
