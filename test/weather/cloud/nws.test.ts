import fs from 'node:fs';
import path from 'node:path';
import { ManualClock } from '../../../server/src/core/clock';
import {
  createNwsSource,
  NWS_DEFAULT_USER_AGENT,
  nwsKind,
  pointCoordinate,
} from '../../../server/src/weather/sources/nws/observation';
import { json, LoopbackPeer, makeContext, type PeerHandler, type PeerReply } from './helpers';

/**
 * api.weather.gov against a loopback peer.
 *
 * - `/points/30,-85`: the shared fixture verbatim (a real answer kept by
 *   MatthewFlamm/pynws tests/fixtures/points.json), `https://api.weather.gov`
 *   rewritten to the peer.
 * - `/gridpoints/TAE/58,65/stations`: the `/stations` FeatureCollection shape
 *   of real answers (pynws tests/fixtures/gridpoints_stations.json: features
 *   with `properties.stationIdentifier` and `name`, plus an
 *   `observationStations` URL list); the station list itself is made up.
 * - `/stations/KFLL/observations/latest`: there is no shared fixture, so the
 *   body follows the observation schema of real answers: pynws
 *   tests/fixtures/stations_observations_latest.json (KFLL, 2022-03-02 23:53Z,
 *   METAR "A3008 ... SLP187"), whose `{unitCode, value, qualityControl}`
 *   values are copied here; newer answers (2023+) state precipitation in
 *   `wmoUnit:mm` where that one says `wmoUnit:m`, and older ones prefix units
 *   `unit:` instead of `wmoUnit:` (pynws stations_observations_alternate_units.json).
 * - Errors: problem+json documents from the shared nws-errors-sample.json.
 */

const FIXTURES = path.join(__dirname, 'fixtures');
const POINTS_TEXT = fs.readFileSync(path.join(FIXTURES, 'nws-points-sample.json'), 'utf8');
const PROBLEMS = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'nws-errors-sample.json'), 'utf8')) as {
  status: number;
  detail: string;
  type: string;
}[];
const GEO = 'application/geo+json';
const PROBLEM = 'application/problem+json';
const OBSERVED = 1646265180; // 2022-03-02T23:53:00+00:00
const T0_MS = (OBSERVED + 420) * 1000;

type Json = Record<string, unknown>;

function stationList(base: string): Json {
  const feature = (id: string, name: string, lon: number, lat: number) => ({
    id: `${base}/stations/${id}`,
    type: 'Feature',
    geometry: { type: 'Point', coordinates: [lon, lat] },
    properties: {
      '@id': `${base}/stations/${id}`,
      '@type': 'wx:ObservationStation',
      elevation: { unitCode: 'wmoUnit:m', value: 3.048 },
      stationIdentifier: id,
      name,
      timeZone: 'America/New_York',
    },
  });
  return {
    type: 'FeatureCollection',
    features: [
      feature('KFLL', 'Fort Lauderdale Intl', -80.15, 26.07),
      feature('KFXE', 'Fort Lauderdale Exec', -80.17, 26.2),
    ],
    observationStations: [`${base}/stations/KFLL`, `${base}/stations/KFXE`],
  };
}

function observation(base: string, props: Json = {}): Json {
  const q = (unitCode: string, value: number | null, qualityControl?: string) =>
    qualityControl === undefined ? { unitCode, value } : { unitCode, value, qualityControl };
  return {
    id: `${base}/stations/KFLL/observations/2022-03-02T23:53:00+00:00`,
    type: 'Feature',
    geometry: { type: 'Point', coordinates: [-80.150000000000006, 26.07] },
    properties: {
      '@id': `${base}/stations/KFLL/observations/2022-03-02T23:53:00+00:00`,
      '@type': 'wx:ObservationStation',
      elevation: q('wmoUnit:m', 3),
      station: `${base}/stations/KFLL`,
      timestamp: '2022-03-02T23:53:00+00:00',
      rawMessage:
        'KFLL 022353Z 02004KT 10SM FEW026 BKN055 23/18 A3008 RMK AO2 SLP187 60000 T02280183 10244 20228 53008 $',
      textDescription: 'Mostly Cloudy',
      presentWeather: [],
      temperature: q('wmoUnit:degC', 22.800000000000001, 'V'),
      dewpoint: q('wmoUnit:degC', 18.300000000000001, 'V'),
      windDirection: q('wmoUnit:degree_(angle)', 20, 'V'),
      windSpeed: q('wmoUnit:km_h-1', 7.5599999999999996, 'V'),
      windGust: q('wmoUnit:km_h-1', null, 'Z'),
      barometricPressure: q('wmoUnit:Pa', 101860, 'V'),
      seaLevelPressure: q('wmoUnit:Pa', 101870, 'V'),
      visibility: q('wmoUnit:m', 16090, 'C'),
      maxTemperatureLast24Hours: q('wmoUnit:degC', null),
      minTemperatureLast24Hours: q('wmoUnit:degC', null),
      precipitationLastHour: q('wmoUnit:m', null, 'Z'),
      precipitationLast3Hours: q('wmoUnit:m', null, 'Z'),
      precipitationLast6Hours: q('wmoUnit:m', 0, 'C'),
      relativeHumidity: q('wmoUnit:percent', 75.770935807607003, 'V'),
      windChill: q('wmoUnit:degC', null, 'V'),
      heatIndex: q('wmoUnit:degC', 23.11401887942111, 'V'),
      cloudLayers: [
        { base: q('wmoUnit:m', 790), amount: 'FEW' },
        { base: q('wmoUnit:m', 1680), amount: 'BKN' },
      ],
      ...props,
    },
  };
}

const unexpectedProblem = (base: string): Json => ({
  correlationId: '4f1d7b27',
  title: 'Unexpected Problem',
  type: 'https://api.weather.gov/problems/UnexpectedProblem',
  status: 500,
  detail: 'An unexpected problem has occurred.',
  instance: `${base}/requests/4f1d7b27`,
});

interface NwsPeerOptions {
  observationProps?: () => Json;
  override?: (path: string, base: string) => PeerReply | undefined;
}

/** Speaks the API: points (301 beyond 4 decimals), the station list, the latest observation, 404 problems. */
function nwsHandler(options: NwsPeerOptions, base: () => string): PeerHandler {
  return (req) => {
    const special = options.override?.(req.path, base());
    if (special) return special;
    const point = /^\/points\/(-?[\d.]+),(-?[\d.]+)$/.exec(req.path);
    if (point) {
      const decimals = Math.max(...[point[1]!, point[2]!].map((c) => (c.split('.')[1] ?? '').length));
      if (decimals > 4)
        return json(
          301,
          PROBLEMS.find((x) => x.status === 301),
          PROBLEM,
        );
      return {
        status: 200,
        body: POINTS_TEXT.split('https://api.weather.gov').join(base()),
        contentType: GEO,
      };
    }
    if (req.path === '/gridpoints/TAE/58,65/stations') return json(200, stationList(base()), GEO);
    if (
      req.path === '/stations/KFLL/observations/latest' ||
      req.path === '/stations/KSAC/observations/latest'
    ) {
      return json(200, observation(base(), options.observationProps?.()), GEO);
    }
    const notFound = {
      correlationId: '1',
      title: 'Not Found',
      type: 'https://api.weather.gov/problems/NotFound',
      status: 404,
      detail: `'${req.path}' is not a valid resource path`,
      instance: `${base()}/requests/1`,
    };
    return json(404, notFound, PROBLEM);
  };
}

const peers: LoopbackPeer[] = [];

async function startPeer(options: NwsPeerOptions = {}): Promise<LoopbackPeer> {
  const p = new LoopbackPeer(() => ({ status: 503, body: '' }));
  p.handler = nwsHandler(options, () => p.baseUrl);
  peers.push(await p.start());
  return p;
}

function source(p: LoopbackPeer, config: Json = {}, location: Json = {}, clock = new ManualClock(T0_MS)) {
  const parts = makeContext({
    id: 'nws',
    config: { base_url: p.baseUrl, ...config },
    clock,
    location: { lat: 30.000049, lon: -84.99996, elevationM: null, timezone: 'America/New_York', ...location },
  });
  return { ...parts, source: createNwsSource(parts.ctx) };
}

afterEach(async () => {
  await Promise.all(peers.splice(0).map((p) => p.close()));
});

describe('nws observation source', () => {
  it('resolves point -> stations -> latest observation with the required headers and rounded coordinates', async () => {
    const p = await startPeer();
    const { source: s, sink } = source(p);
    await s.pollOnce();

    expect(p.requests.map((r) => r.path)).toEqual([
      '/points/30,-85',
      '/gridpoints/TAE/58,65/stations',
      '/stations/KFLL/observations/latest',
    ]);
    for (const r of p.requests) {
      expect(r.headers['user-agent']).toBe(NWS_DEFAULT_USER_AGENT);
      expect(r.headers.accept).toBe('application/geo+json');
    }
    expect(NWS_DEFAULT_USER_AGENT).toMatch(
      /^raincheck\/\d+\.\d+\.\d+ \(https:\/\/github\.com\/raincheck\/raincheck\)$/,
    );
    expect(sink.contacts).toEqual([{ ok: true }]);
    expect(s.stationId()).toBe('KFLL');
  });

  it('rounds coordinates to the 4 decimals the API accepts (no AdjustPointPrecision redirect)', async () => {
    expect([
      pointCoordinate(38.575123456),
      pointCoordinate(-121.4987654),
      pointCoordinate(30),
      pointCoordinate(-0.00001),
    ]).toEqual(['38.5751', '-121.4988', '30', '0']);
    const p = await startPeer();
    const { source: s, sink } = source(p, {}, { lat: 38.575123456, lon: -121.4987654 });
    await s.pollOnce();
    expect(p.requests[0]!.path).toBe('/points/38.5751,-121.4988');
    expect(sink.lastContact()).toEqual({ ok: true });
  });

  it('converts the quantitative values, keeps nulls absent and stamps the observation timestamp', async () => {
    const p = await startPeer();
    const { source: s, sink } = source(p);
    await s.pollOnce();

    const readings = sink.readings();
    expect(Object.fromEntries([...readings].map(([f, r]) => [f, r.value]))).toEqual({
      air_temp_f: 73.04, // 22.8 degC
      rh_pct: 75.8,
      wind_avg_mph: 4.7, // 7.56 km/h
      wind_dir_deg: 20,
      // Altimeter setting 1018.6 hPa (A3008) taken to the station's 3 m: station pressure.
      pressure_inhg: 30.077,
    });
    // windGust and precipitationLastHour are null in the answer: absent, not 0.
    expect(readings.has('wind_gust_mph')).toBe(false);
    expect(readings.has('rain_intensity_in_hr')).toBe(false);
    for (const r of readings.values()) expect(r.observedEpoch).toBe(OBSERVED);

    expect(sink.batches[0]!.devices).toEqual([
      {
        id: 'nws:nws',
        kind: 'cloud_account',
        source_id: 'nws',
        model: 'NWS observation station',
        serial: 'KFLL',
        firmware: null,
        host: new URL(p.baseUrl).host,
        sensors: ['air_temp_f', 'rh_pct', 'wind_avg_mph', 'wind_dir_deg', 'pressure_inhg'],
        battery_v: null,
        rssi_dbm: null,
        last_seen_epoch: OBSERVED + 420,
        status_note: 'station KFLL (Fort Lauderdale Intl)',
      },
    ]);
  });

  it('takes pressure to the configured site elevation, from the altimeter setting or else the sea-level value', async () => {
    let props: Json = {};
    const p = await startPeer({ observationProps: () => props });
    const denver = source(p, {}, { elevationM: 1609 });
    await denver.source.pollOnce();
    expect(denver.sink.value('pressure_inhg')).toBe(24.779); // 1018.6 hPa altimeter at 1609 m

    // The 2023 KNYC answer: no altimeter value, SLP 1006.2 hPa.
    props = {
      barometricPressure: { unitCode: 'wmoUnit:Pa', value: null, qualityControl: 'Z' },
      seaLevelPressure: { unitCode: 'wmoUnit:Pa', value: 100620, qualityControl: 'V' },
    };
    const nyc = source(p, {}, { elevationM: 10 });
    await nyc.source.pollOnce();
    expect(nyc.sink.value('pressure_inhg')).toBe(29.678);

    // No site elevation and no station elevation: no honest station pressure.
    props = { elevation: { unitCode: 'wmoUnit:m', value: null } };
    const nowhere = source(p);
    await nowhere.source.pollOnce();
    expect(nowhere.sink.readings().has('pressure_inhg')).toBe(false);
    expect(nowhere.sink.value('air_temp_f')).toBe(73.04);
  });

  it('reads precipitation in mm (current answers) and m (older answers), and other unit spellings', async () => {
    let props: Json = {};
    const p = await startPeer({ observationProps: () => props });
    const { source: s, sink } = source(p);

    props = { precipitationLastHour: { unitCode: 'wmoUnit:mm', value: 2.5, qualityControl: 'V' } };
    await s.pollOnce();
    expect(sink.value('rain_intensity_in_hr')).toBe(0.0984);

    props = {
      precipitationLastHour: { unitCode: 'unit:m', value: 0.0025, qualityControl: 'qc:V' },
      windSpeed: { unitCode: 'wmoUnit:m_s-1', value: 5, qualityControl: 'V' },
      windGust: { unitCode: 'unit:km_h-1', value: 37, qualityControl: 'qc:V' },
      temperature: { unitCode: 'unit:degF', value: 10, qualityControl: 'qc:V' },
    };
    await s.pollOnce();
    expect(sink.value('rain_intensity_in_hr')).toBe(0.0984);
    expect(sink.value('wind_avg_mph')).toBe(11.18);
    expect(sink.value('wind_gust_mph')).toBe(22.99);
    expect(sink.value('air_temp_f')).toBe(10);

    // A measured zero stays zero.
    props = { precipitationLastHour: { unitCode: 'wmoUnit:mm', value: 0, qualityControl: 'V' } };
    await s.pollOnce();
    expect(sink.value('rain_intensity_in_hr')).toBe(0);
  });

  it('leaves out values the quality control rejected and units it does not know', async () => {
    const p = await startPeer({
      observationProps: () => ({
        temperature: { unitCode: 'wmoUnit:degC', value: 85, qualityControl: 'X' },
        relativeHumidity: { unitCode: 'wmoUnit:percent', value: 40, qualityControl: 'Q' },
        windSpeed: { unitCode: 'wmoUnit:furlong_fortnight-1', value: 3, qualityControl: 'V' },
      }),
    });
    const { source: s, sink } = source(p);
    await s.pollOnce();
    const readings = sink.readings();
    expect(readings.has('air_temp_f')).toBe(false);
    expect(readings.has('wind_avg_mph')).toBe(false);
    expect(readings.get('rh_pct')?.value).toBe(40); // questioned, not rejected
    expect(sink.lastContact()).toEqual({ ok: true });
  });

  it('caches the station and resolves it again after a day', async () => {
    const p = await startPeer();
    const clock = new ManualClock(T0_MS);
    const { source: s, sink } = source(p, {}, {}, clock);
    await s.pollOnce();
    clock.advance(600_000);
    await s.pollOnce();
    expect(p.requests.map((r) => r.path)).toEqual([
      '/points/30,-85',
      '/gridpoints/TAE/58,65/stations',
      '/stations/KFLL/observations/latest',
      '/stations/KFLL/observations/latest',
    ]);
    clock.advance(86_400_000);
    await s.pollOnce();
    expect(p.requests.slice(4).map((r) => r.path)).toEqual([
      '/points/30,-85',
      '/gridpoints/TAE/58,65/stations',
      '/stations/KFLL/observations/latest',
    ]);
    expect(sink.contacts.every((c) => c.ok)).toBe(true);
  });

  it('keeps reading the known station when the daily re-resolution fails', async () => {
    let pointsDown = false;
    const p = await startPeer({
      override: (reqPath, base) =>
        pointsDown && reqPath.startsWith('/points/')
          ? json(500, unexpectedProblem(base), PROBLEM)
          : undefined,
    });
    const clock = new ManualClock(T0_MS);
    const { source: s, sink } = source(p, {}, {}, clock);
    await s.pollOnce();
    pointsDown = true;
    clock.advance(86_400_000);
    await s.pollOnce();
    expect(p.requests.slice(3).map((r) => r.path)).toEqual([
      '/points/30,-85',
      '/stations/KFLL/observations/latest',
    ]);
    expect(sink.contacts).toEqual([{ ok: true }, { ok: true }]);
    expect(sink.batches).toHaveLength(2);
  });

  it('uses a configured station and User-Agent without resolving the point', async () => {
    const p = await startPeer();
    const ua = '(sprinklers.example.net, admin@sprinklers.example.net)';
    const { source: s, sink } = source(p, { station_id: 'ksac', user_agent: ua });
    await s.pollOnce();
    expect(p.requests.map((r) => r.path)).toEqual(['/stations/KSAC/observations/latest']);
    expect(p.requests[0]!.headers['user-agent']).toBe(ua);
    expect(sink.lastContact()).toEqual({ ok: true });
  });

  it('turns a problem+json 404 for the point into a failed contact with its detail, and publishes nothing', async () => {
    const marine = PROBLEMS.find((x) => x.type.endsWith('/MarineForecastNotSupported'))!;
    const p = await startPeer({
      override: (reqPath) => (reqPath.startsWith('/points/') ? json(404, marine, PROBLEM) : undefined),
    });
    const { source: s, sink } = source(p);
    await s.pollOnce();
    expect(sink.batches).toHaveLength(0);
    expect(sink.contacts).toEqual([
      {
        ok: false,
        note: 'NWS point: HTTP 404: Forecasts for marine areas are not yet supported by this API.',
      },
    ]);
  });

  it('turns a problem+json 500 for the observation into a failed contact, and publishes nothing', async () => {
    const p = await startPeer({
      override: (reqPath, base) =>
        reqPath.endsWith('/observations/latest') ? json(500, unexpectedProblem(base), PROBLEM) : undefined,
    });
    const { source: s, sink } = source(p);
    await s.pollOnce();
    expect(sink.batches).toHaveLength(0);
    expect(sink.contacts).toEqual([
      { ok: false, note: 'NWS observation of KFLL: HTTP 500: An unexpected problem has occurred.' },
    ]);
  });

  it('reports the HTML 403 the API gives a rejected User-Agent, and an observation without a timestamp', async () => {
    let mode: 'forbidden' | 'no-time' = 'forbidden';
    const p = await startPeer({
      observationProps: () => ({ timestamp: null }),
      override: () =>
        mode === 'forbidden'
          ? {
              status: 403,
              body: '<HTML><HEAD><TITLE>Access Denied</TITLE></HEAD></HTML>',
              contentType: 'text/html',
            }
          : undefined,
    });
    const { source: s, sink } = source(p);
    await s.pollOnce();
    mode = 'no-time';
    await s.pollOnce();
    expect(sink.batches).toHaveLength(0);
    expect(sink.contacts).toEqual([
      { ok: false, note: 'NWS point: HTTP 403 (access denied; the API may be refusing this User-Agent)' },
      { ok: false, note: 'NWS observation of KFLL has no usable timestamp' },
    ]);
  });

  it('looks for a station again after the chosen one answers 404', async () => {
    let gone = true;
    const p = await startPeer({
      override: (reqPath, base) =>
        gone && reqPath === '/stations/KFLL/observations/latest'
          ? json(
              404,
              { title: 'Not Found', status: 404, detail: 'No observations', instance: `${base}/requests/2` },
              PROBLEM,
            )
          : undefined,
    });
    const { source: s, sink } = source(p);
    await s.pollOnce();
    gone = false;
    await s.pollOnce();
    expect(p.requests.map((r) => r.path)).toEqual([
      '/points/30,-85',
      '/gridpoints/TAE/58,65/stations',
      '/stations/KFLL/observations/latest',
      '/points/30,-85',
      '/gridpoints/TAE/58,65/stations',
      '/stations/KFLL/observations/latest',
    ]);
    expect(sink.contacts).toEqual([
      { ok: false, note: 'NWS observation of KFLL: HTTP 404: No observations' },
      { ok: true },
    ]);
  });
});

describe('nws kind definition', () => {
  it('is a keyless cloud provider ranked above the models', () => {
    expect(nwsKind.kind).toBe('nws');
    expect(nwsKind.cloud).toEqual({ honestyRank: 70, needsApiKey: false });
  });

  it('validates station_id, user_agent and poll_interval_s', () => {
    const schema = nwsKind.configSchema;
    expect(schema.safeParse({}).success).toBe(true);
    expect(
      schema.safeParse({ station_id: 'KSAC', user_agent: 'x (me@example.com)', poll_interval_s: 900 })
        .success,
    ).toBe(true);
    expect(schema.safeParse({ station_id: '../points' }).success).toBe(false);
    expect(schema.safeParse({ user_agent: '' }).success).toBe(false);
    expect(schema.safeParse({ poll_interval_s: 10 }).success).toBe(false);
  });
});
