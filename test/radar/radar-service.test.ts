import { ManualClock } from '../../server/src/core/clock';
import { silentLogger } from '../../server/src/core/logger';
import { parseBbox } from '../../server/src/radar/bbox';
import { STALE_RETRY_MS } from '../../server/src/radar/cache';
import {
  PRECIP_STALE_LIMIT_MS,
  PRECIP_TTL_MS,
  RadarService,
  TROPICAL_PARTIAL_TTL_MS,
  TROPICAL_STALE_LIMIT_MS,
  TROPICAL_TTL_MS,
  WIND_STALE_LIMIT_MS,
  WIND_TTL_MS,
  windComponents,
  type TropicalAgencyConfig,
} from '../../server/src/radar/radar-service';
import { RadarUpstreamError } from '../../server/src/radar/upstream';
import {
  defaultWeather,
  LoopbackUpstream,
  nhcCurrentStorms,
  openMeteoAnswer,
  requestedPoints,
  type FakeWeather,
} from './helpers';

const BBOX = parseBbox('-122.5,37.2,-121.1,38.6');
const START_MS = 1_752_500_000_000;

let weather: FakeWeather;
let openMeteo: LoopbackUpstream;
let nhc: LoopbackUpstream;
let nhcDoc: unknown;
let clock: ManualClock;

beforeEach(async () => {
  weather = defaultWeather();
  nhcDoc = nhcCurrentStorms();
  clock = new ManualClock(START_MS);
  openMeteo = await new LoopbackUpstream((req) => openMeteoAnswer(req, weather)).start();
  nhc = await new LoopbackUpstream((req) =>
    req.path === '/CurrentStorms.json'
      ? { status: 200, body: JSON.stringify(nhcDoc) }
      : { status: 404, body: '{}' },
  ).start();
});

afterEach(async () => {
  await openMeteo.close();
  await nhc.close();
});

function service(extra: { tropicalAgencies?: TropicalAgencyConfig[]; maxCacheEntries?: number } = {}) {
  return new RadarService({
    clock,
    logger: silentLogger(),
    openMeteoBaseUrl: openMeteo.baseUrl,
    nhcBaseUrl: nhc.baseUrl,
    timeoutMs: 300,
    ...extra,
  });
}

async function upstreamError(promise: Promise<unknown>): Promise<RadarUpstreamError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof RadarUpstreamError) return err;
    throw err;
  }
  throw new Error('expected a RadarUpstreamError');
}

describe('windComponents', () => {
  it('turns a FROM direction into the vector the wind blows along', () => {
    expect(windComponents(10, 0)).toEqual({ u: 0, v: -10 }); // from the north: blows south
    expect(windComponents(10, 270)).toEqual({ u: 10, v: 0 }); // from the west: blows east
    expect(windComponents(10, 90)).toEqual({ u: -10, v: 0 });
    expect(windComponents(10, 180)).toEqual({ u: 0, v: 10 });
    expect(windComponents(10, 360)).toEqual({ u: 0, v: -10 });
    expect(windComponents(0, 200)).toEqual({ u: 0, v: 0 });
    expect(windComponents(null, 200)).toBeNull();
    expect(windComponents(5, null)).toBeNull();
  });
});

describe('windGrid', () => {
  it('asks Open-Meteo once for the 64 corner points, north-west first, rows north to south', async () => {
    await service().windGrid(BBOX);
    expect(openMeteo.requests).toHaveLength(1);
    const req = openMeteo.requests[0]!;
    expect(req.path).toBe('/v1/forecast');
    expect(req.query.get('current')).toBe('wind_speed_10m,wind_direction_10m');
    expect(req.query.get('wind_speed_unit')).toBe('ms');
    expect(req.query.get('timeformat')).toBe('unixtime');
    const points = requestedPoints(req.query);
    expect(points).toHaveLength(64);
    const lats = [38.6, 38.4, 38.2, 38, 37.8, 37.6, 37.4, 37.2];
    const lons = [-122.5, -122.3, -122.1, -121.9, -121.7, -121.5, -121.3, -121.1];
    expect(points).toEqual(lats.flatMap((lat) => lons.map((lon) => ({ lat, lon }))));
    expect(req.headers['user-agent']).toMatch(/^raincheck\//);
  });

  it('answers U then V as grib2json records with the grid in the header', async () => {
    const [u, v] = await service().windGrid(BBOX);
    expect(u.component).toBe('u');
    expect(v.component).toBe('v');
    expect(u.unit).toBe('m/s');
    expect(u.header).toEqual(
      expect.objectContaining({
        parameterCategory: 2,
        parameterNumber: 2,
        nx: 8,
        ny: 8,
        lo1: -122.5,
        la1: 38.6,
        lo2: -121.1,
        la2: 37.2,
        dx: 0.2,
        dy: 0.2,
        scanMode: 0,
        forecastTime: 0,
        refTime: new Date(weather.currentTime * 1000).toISOString(),
      }),
    );
    expect(v.header.parameterNumber).toBe(3);
    expect(u.data).toHaveLength(64);
    expect(v.data).toHaveLength(64);
    expect(u.stale).toBe(false);
    expect(u.fetched_epoch).toBe(START_MS / 1000);
  });

  it('computes U and V per point and keeps missing values null, a calm zero', async () => {
    const winds: Record<number, { speed: number | null; dir: number | null }> = {
      0: { speed: 10, dir: 0 },
      1: { speed: 10, dir: 270 },
      2: { speed: 10, dir: 90 },
      3: { speed: 10, dir: 180 },
      4: { speed: 5, dir: 225 },
      5: { speed: null, dir: 180 },
      6: { speed: 7, dir: null },
      7: { speed: 0, dir: 123 },
    };
    weather.wind = (i) => winds[i] ?? { speed: 3, dir: 45 };
    const [u, v] = await service().windGrid(BBOX);
    expect(u.data.slice(0, 8)).toEqual([0, 10, -10, 0, 3.536, null, null, 0]);
    expect(v.data.slice(0, 8)).toEqual([-10, 0, 0, 10, 3.536, null, null, 0]);
    expect(u.data[8]).toBe(-2.121);
    expect(v.data[8]).toBe(-2.121);
  });

  it('converts a speed label other than m/s', async () => {
    weather.windSpeedUnit = 'km/h';
    weather.wind = () => ({ speed: 36, dir: 270 });
    const [u] = await service().windGrid(BBOX);
    expect(u.data[0]).toBe(10);
  });

  it('serves the cache for 30 minutes and refetches after', async () => {
    const radar = service();
    await radar.windGrid(BBOX);
    clock.advance(WIND_TTL_MS - 1000);
    // A view a few metres off shares the entry (the bbox is snapped to 0.01 degree).
    const again = await radar.windGrid(parseBbox('-122.5004,37.2,-121.1,38.6003'));
    expect(openMeteo.requests).toHaveLength(1);
    expect(again[0].fetched_epoch).toBe(START_MS / 1000);
    clock.advance(2000);
    weather.wind = () => ({ speed: 10, dir: 270 });
    const fresh = await radar.windGrid(BBOX);
    expect(openMeteo.requests).toHaveLength(2);
    expect(fresh[0].data[0]).toBe(10);
    expect(fresh[0].fetched_epoch).toBe((START_MS + WIND_TTL_MS + 1000) / 1000);
  });

  it('shares one upstream request between concurrent callers', async () => {
    const radar = service();
    const [a, b] = await Promise.all([radar.windGrid(BBOX), radar.windGrid(BBOX)]);
    expect(openMeteo.requests).toHaveLength(1);
    expect(a[0].data).toEqual(b[0].data);
  });

  it('bounds the cache, dropping the least recently used bbox', async () => {
    const radar = service({ maxCacheEntries: 2 });
    const boxes = ['0,0,1,1', '2,2,3,3', '4,4,5,5'].map((raw) => parseBbox(raw));
    for (const bbox of boxes) await radar.windGrid(bbox);
    expect(openMeteo.requests).toHaveLength(3);
    await radar.windGrid(boxes[2]!);
    await radar.windGrid(boxes[1]!);
    expect(openMeteo.requests).toHaveLength(3);
    await radar.windGrid(boxes[0]!);
    expect(openMeteo.requests).toHaveLength(4);
  });

  it('fails with RadarUpstreamError on HTTP 500, garbage, a wrong list and a timeout', async () => {
    const radar = service();
    openMeteo.override = () => ({ status: 500, body: '{"error":true,"reason":"boom"}' });
    expect((await upstreamError(radar.windGrid(BBOX))).message).toBe('Open-Meteo answered HTTP 500');

    openMeteo.override = () => ({ status: 200, body: '<html>gateway</html>' });
    expect((await upstreamError(radar.windGrid(BBOX))).message).toBe('Open-Meteo answer is not JSON');

    openMeteo.override = () => ({ status: 200, body: JSON.stringify([{ current: {} }]) });
    expect((await upstreamError(radar.windGrid(BBOX))).message).toMatch(/not a list of 64 locations/);

    openMeteo.override = () => ({
      status: 200,
      body: JSON.stringify(Array.from({ length: 64 }, () => ({}))),
    });
    expect((await upstreamError(radar.windGrid(BBOX))).message).toMatch(/no current conditions/);

    openMeteo.override = () => ({ status: 200, body: '', hang: true });
    const timeout = await upstreamError(radar.windGrid(BBOX));
    expect(timeout.message).toBe('Open-Meteo did not answer within 0.3 s');
    expect(timeout.upstream).toBe('Open-Meteo');
  });

  it('fails when nothing listens', async () => {
    const radar = service();
    await openMeteo.close();
    expect((await upstreamError(radar.windGrid(BBOX))).message).toMatch(/^Open-Meteo could not be reached/);
  });

  it('serves the earlier grid marked stale while upstream fails, then gives up after 2 hours', async () => {
    const radar = service();
    await radar.windGrid(BBOX);
    clock.advance(WIND_TTL_MS + 1000);
    openMeteo.override = () => ({ status: 503, body: '' });
    const stale = await radar.windGrid(BBOX);
    expect(stale[0].stale).toBe(true);
    expect(stale[1].stale).toBe(true);
    expect(stale[0].fetched_epoch).toBe(START_MS / 1000);
    expect(openMeteo.requests).toHaveLength(2);

    // During the retry pause the stale grid comes without asking upstream again.
    clock.advance(STALE_RETRY_MS - 1000);
    expect((await radar.windGrid(BBOX))[0].stale).toBe(true);
    expect(openMeteo.requests).toHaveLength(2);

    clock.advance(2000);
    expect((await radar.windGrid(BBOX))[0].stale).toBe(true);
    expect(openMeteo.requests).toHaveLength(3);

    clock.set(START_MS + WIND_STALE_LIMIT_MS + 1000);
    await upstreamError(radar.windGrid(BBOX));

    openMeteo.override = null;
    const recovered = await radar.windGrid(BBOX);
    expect(recovered[0].stale).toBe(false);
  });
});

describe('precipFrames', () => {
  it('asks for 8 quarter-hours in mm over the same 64 points', async () => {
    await service().precipFrames(BBOX);
    const req = openMeteo.requests[0]!;
    expect(req.query.get('minutely_15')).toBe('precipitation');
    expect(req.query.get('forecast_minutely_15')).toBe('8');
    expect(req.query.get('precipitation_unit')).toBe('mm');
    expect(req.query.get('timeformat')).toBe('unixtime');
    expect(requestedPoints(req.query)).toHaveLength(64);
  });

  it('answers 8 frames of 64 values, nulls kept, and the largest value', async () => {
    weather.precip = (i) => {
      if (i === 0) return [0, 0.4, 1.2, null, 0, 0, 0, 0];
      if (i === 1) return [null, null, null, null, null, null, null, null];
      if (i === 2) return [0.1, 0.1, 0.1, 0.1, 0.1, 0.1]; // a shorter series
      if (i === 3) return [0, 0, 2.7, 0, 0, 0, 0, -1]; // a negative amount is no amount
      return [0, 0, 0, 0, 0, 0, 0, 0];
    };
    const precip = await service().precipFrames(BBOX);
    expect(precip.frames).toHaveLength(8);
    expect(precip.frames.map((f) => f.time_epoch)).toEqual(
      Array.from({ length: 8 }, (_, k) => weather.minutelyStart + k * 900),
    );
    for (const frame of precip.frames) expect(frame.values).toHaveLength(64);
    expect(precip.frames.map((f) => f.values[0])).toEqual([0, 0.4, 1.2, null, 0, 0, 0, 0]);
    expect(precip.frames.map((f) => f.values[1])).toEqual(Array(8).fill(null));
    expect(precip.frames.map((f) => f.values[2])).toEqual([0.1, 0.1, 0.1, 0.1, 0.1, 0.1, null, null]);
    expect(precip.frames[7]!.values[3]).toBeNull();
    expect(precip.max_mm).toBe(2.7);
    expect(precip.unit).toBe('mm');
    expect(precip.interval_s).toBe(900);
    expect(precip.grid).toEqual(
      expect.objectContaining({ nx: 8, ny: 8, lo1: -122.5, la1: 38.6, lo2: -121.1, la2: 37.2 }),
    );
    expect(precip.grid.lats[0]).toBe(38.6);
    expect(precip.stale).toBe(false);
  });

  it('answers max_mm null when every value is null, and 0 when every value is 0', async () => {
    weather.precip = () => Array(8).fill(null);
    expect((await service().precipFrames(BBOX)).max_mm).toBeNull();
    weather.precip = () => Array(8).fill(0);
    expect((await service().precipFrames(parseBbox('0,0,1,1'))).max_mm).toBe(0);
  });

  it('converts inches to mm', async () => {
    weather.precipUnit = 'inch';
    weather.precip = () => [0.1, 0, 0, 0, 0, 0, 0, 0];
    expect((await service().precipFrames(BBOX)).max_mm).toBe(2.54);
  });

  it('serves the cache for 15 minutes and refetches after', async () => {
    const radar = service();
    await radar.precipFrames(BBOX);
    clock.advance(PRECIP_TTL_MS - 1000);
    await radar.precipFrames(BBOX);
    expect(openMeteo.requests).toHaveLength(1);
    clock.advance(2000);
    await radar.precipFrames(BBOX);
    expect(openMeteo.requests).toHaveLength(2);
  });

  it('keeps the wind and precipitation caches apart', async () => {
    const radar = service();
    await radar.windGrid(BBOX);
    await radar.precipFrames(BBOX);
    expect(openMeteo.requests).toHaveLength(2);
  });

  it('fails on an unknown unit, a missing series and upstream errors; stale for at most 30 minutes', async () => {
    const radar = service();
    weather.precipUnit = 'furlong';
    expect((await upstreamError(radar.precipFrames(BBOX))).message).toMatch(/unit is unknown/);
    weather.precipUnit = 'mm';
    openMeteo.override = () => ({
      status: 200,
      body: JSON.stringify(Array.from({ length: 64 }, () => ({}))),
    });
    expect((await upstreamError(radar.precipFrames(BBOX))).message).toMatch(/no 15-minute precipitation/);

    openMeteo.override = null;
    await radar.precipFrames(BBOX);
    clock.advance(PRECIP_TTL_MS + 1000);
    openMeteo.override = () => ({ status: 500, body: '' });
    expect((await radar.precipFrames(BBOX)).stale).toBe(true);
    clock.set(START_MS + PRECIP_STALE_LIMIT_MS + 1000);
    await upstreamError(radar.precipFrames(BBOX));
  });
});

describe('tropical', () => {
  it('maps NHC CurrentStorms.json to position features with product links', async () => {
    const result = await service().tropical();
    expect(nhc.requests.map((r) => r.path)).toEqual(['/CurrentStorms.json']);
    expect(result.type).toBe('FeatureCollection');
    expect(result.features).toHaveLength(2);
    const [ernesto, blas] = result.features;
    expect(ernesto!.geometry).toEqual({ type: 'Point', coordinates: [-70.1, 24.5] });
    expect(ernesto!.properties).toEqual(
      expect.objectContaining({
        kind: 'position',
        agency: 'NHC',
        storm_id: 'al052026',
        name: 'Ernesto',
        classification: 'HU',
        intensity_kt: 85,
        intensity_mph: 98,
        pressure_mb: 970,
        movement_dir_deg: 315,
        movement_speed_mph: 12,
        last_update_epoch: Date.parse('2026-07-07T15:00:00.000Z') / 1000,
        advisory_number: '014',
        forecast_track_kmz_url: 'https://www.nhc.noaa.gov/storm_graphics/api/AL052026_014adv_TRACK.kmz',
        cone_kmz_url: 'https://www.nhc.noaa.gov/storm_graphics/api/AL052026_014adv_CONE.kmz',
        cone_zip_url: 'https://www.nhc.noaa.gov/gis/forecast/archive/al052026_5day_014.zip',
        // Only http(s) links pass.
        watches_warnings_kmz_url: null,
      }),
    );
    // Missing values are null, never 0; a measured 0 stays 0.
    expect(blas!.properties).toEqual(
      expect.objectContaining({
        pressure_mb: null,
        movement_dir_deg: null,
        movement_speed_mph: 0,
        cone_kmz_url: null,
      }),
    );
    expect(result.sources).toEqual([
      { agency: 'NHC', ok: true, error: null, fetched_epoch: START_MS / 1000, storm_count: 2, stale: false },
    ]);
    expect(result.stale).toBe(false);
  });

  it('answers an empty collection out of season', async () => {
    nhcDoc = { activeStorms: [] };
    const result = await service().tropical();
    expect(result.features).toEqual([]);
    expect(result.sources[0]).toEqual(expect.objectContaining({ ok: true, storm_count: 0 }));
  });

  it('serves the cache for 10 minutes and refetches after', async () => {
    const radar = service();
    await radar.tropical();
    clock.advance(TROPICAL_TTL_MS - 1000);
    await radar.tropical();
    expect(nhc.requests).toHaveLength(1);
    clock.advance(2000);
    await radar.tropical();
    expect(nhc.requests).toHaveLength(2);
  });

  it('keeps serving the agencies that answer when one fails', async () => {
    const broken = await new LoopbackUpstream(() => ({ status: 500, body: 'oops' })).start();
    try {
      const radar = service({
        tropicalAgencies: [
          { agency: 'NHC', format: 'nhc-current-storms', url: `${nhc.baseUrl}/CurrentStorms.json` },
          { agency: 'MIRROR', format: 'nhc-current-storms', url: `${broken.baseUrl}/CurrentStorms.json` },
        ],
      });
      const result = await radar.tropical();
      expect(result.features).toHaveLength(2);
      expect(result.sources).toEqual([
        expect.objectContaining({ agency: 'NHC', ok: true, storm_count: 2 }),
        {
          agency: 'MIRROR',
          ok: false,
          error: 'MIRROR answered HTTP 500',
          fetched_epoch: null,
          storm_count: null,
          stale: false,
        },
      ]);
      // A failing agency is retried after a minute, not ten.
      clock.advance(TROPICAL_PARTIAL_TTL_MS + 1000);
      await radar.tropical();
      expect(broken.requests).toHaveLength(2);
    } finally {
      await broken.close();
    }
  });

  it("serves an agency's earlier storms marked stale when it fails, for up to an hour", async () => {
    const radar = service();
    await radar.tropical();
    clock.advance(TROPICAL_TTL_MS + 1000);
    nhc.override = () => ({ status: 200, body: '{"storms":[]}' });
    const stale = await radar.tropical();
    expect(stale.features).toHaveLength(2);
    expect(stale.stale).toBe(true);
    expect(stale.sources[0]).toEqual({
      agency: 'NHC',
      ok: false,
      error: 'NHC answer has no activeStorms list',
      fetched_epoch: START_MS / 1000,
      storm_count: 2,
      stale: true,
    });
    clock.set(START_MS + TROPICAL_STALE_LIMIT_MS + 1000);
    const err = await upstreamError(radar.tropical());
    expect(err.message).toBe('no tropical agency answered: NHC answer has no activeStorms list');
  });

  it('fails with RadarUpstreamError when every agency fails', async () => {
    nhc.override = () => ({ status: 200, body: 'not json' });
    const err = await upstreamError(service().tropical());
    expect(err.message).toBe('no tropical agency answered: NHC answer is not JSON');
    nhc.override = () => ({ status: 200, body: '', hang: true });
    expect((await upstreamError(service().tropical())).message).toMatch(/NHC did not answer within/);
  });
});
