import Fastify, { type FastifyInstance } from 'fastify';
import request from 'supertest';
import { ManualClock } from '../../server/src/core/clock';
import { silentLogger } from '../../server/src/core/logger';
import { errorHandler } from '../../server/src/http/errors';
import { radarRoutes } from '../../server/src/http/routes/radar';
import { RadarService } from '../../server/src/radar/radar-service';
import {
  defaultWeather,
  LoopbackUpstream,
  nhcCurrentStorms,
  openMeteoAnswer,
  type FakeWeather,
} from './helpers';

const BBOX = '-122.5,37.2,-121.1,38.6';

let weather: FakeWeather;
let openMeteo: LoopbackUpstream;
let nhc: LoopbackUpstream;
let app: FastifyInstance;

beforeEach(async () => {
  weather = defaultWeather();
  openMeteo = await new LoopbackUpstream((req) => openMeteoAnswer(req, weather)).start();
  nhc = await new LoopbackUpstream(() => ({ status: 200, body: JSON.stringify(nhcCurrentStorms()) })).start();
  const radar = new RadarService({
    clock: new ManualClock(1_752_500_000_000),
    logger: silentLogger(),
    openMeteoBaseUrl: openMeteo.baseUrl,
    nhcBaseUrl: nhc.baseUrl,
    timeoutMs: 300,
  });
  app = Fastify();
  app.setErrorHandler(errorHandler);
  const table = radarRoutes(radar);
  void app.register(async (scope) => table.v1Only?.(scope), { prefix: '/api/v1' });
  await app.ready();
});

afterEach(async () => {
  await app.close();
  await openMeteo.close();
  await nhc.close();
});

describe('GET /api/v1/radar/windgrid', () => {
  it('answers the U and V records', async () => {
    const res = await request(app.server).get(`/api/v1/radar/windgrid?bbox=${BBOX}`).expect(200);
    expect(res.body).toHaveLength(2);
    expect(res.body.map((r: { component: string }) => r.component)).toEqual(['u', 'v']);
    expect(res.body[0].header).toEqual(expect.objectContaining({ nx: 8, ny: 8, lo1: -122.5, la1: 38.6 }));
    expect(res.body[0].data).toHaveLength(64);
  });

  it('answers 400 with the bbox codes', async () => {
    const cases: [string, string][] = [
      ['', 'bbox_missing'],
      ['?bbox=', 'bbox_missing'],
      ['?bbox=1,2,3', 'bbox_malformed'],
      ['?bbox=a,b,c,d', 'bbox_malformed'],
      [`?bbox=${BBOX}&bbox=${BBOX}`, 'bbox_malformed'],
      ['?bbox=-190,0,-175,10', 'bbox_out_of_range'],
      ['?bbox=0,-95,10,0', 'bbox_out_of_range'],
      ['?bbox=10,0,0,10', 'bbox_inverted'],
      ['?bbox=0,0,25,10', 'bbox_too_large'],
    ];
    for (const [query, code] of cases) {
      const res = await request(app.server).get(`/api/v1/radar/windgrid${query}`);
      expect({ query, status: res.status, code: res.body.code }).toEqual({ query, status: 400, code });
      expect(res.body.error).toEqual(expect.any(String));
      expect(res.body.request).toEqual(
        expect.objectContaining({ method: 'GET', route: '/api/v1/radar/windgrid' }),
      );
    }
    expect(openMeteo.requests).toHaveLength(0);
  });

  it('answers 502 radar_upstream_failed on an upstream 500, garbage or timeout', async () => {
    const replies = [
      { status: 500, body: '{"error":true,"reason":"boom"}' },
      { status: 200, body: 'certainly not json' },
      { status: 200, body: '', hang: true },
    ];
    for (const reply of replies) {
      openMeteo.override = () => reply;
      const res = await request(app.server).get(`/api/v1/radar/windgrid?bbox=${BBOX}`).expect(502);
      expect(res.body).toEqual(
        expect.objectContaining({
          code: 'radar_upstream_failed',
          upstream: 'Open-Meteo',
          error: expect.any(String),
        }),
      );
      expect(res.body.error).not.toMatch(/127\.0\.0\.1|http:/);
    }
  });
});

describe('GET /api/v1/radar/precip', () => {
  it('answers 8 frames and max_mm', async () => {
    const res = await request(app.server).get(`/api/v1/radar/precip?bbox=${BBOX}`).expect(200);
    expect(res.body.frames).toHaveLength(8);
    expect(res.body.frames[0].values).toHaveLength(64);
    expect(res.body.max_mm).toBe(0.2);
  });

  it('answers 400 for a bad bbox and 502 when upstream fails', async () => {
    const missing = await request(app.server).get('/api/v1/radar/precip').expect(400);
    expect(missing.body.code).toBe('bbox_missing');
    const inverted = await request(app.server).get('/api/v1/radar/precip?bbox=0,10,10,0').expect(400);
    expect(inverted.body.code).toBe('bbox_inverted');
    openMeteo.override = () => ({ status: 500, body: '' });
    const failed = await request(app.server).get(`/api/v1/radar/precip?bbox=${BBOX}`).expect(502);
    expect(failed.body.code).toBe('radar_upstream_failed');
  });
});

describe('GET /api/v1/radar/tropical', () => {
  it('answers the FeatureCollection with its sources', async () => {
    const res = await request(app.server).get('/api/v1/radar/tropical').expect(200);
    expect(res.body.type).toBe('FeatureCollection');
    expect(res.body.features).toHaveLength(2);
    expect(res.body.sources).toEqual([expect.objectContaining({ agency: 'NHC', ok: true, storm_count: 2 })]);
  });

  it('answers 502 when every agency fails', async () => {
    nhc.override = () => ({ status: 502, body: 'bad gateway' });
    const res = await request(app.server).get('/api/v1/radar/tropical').expect(502);
    expect(res.body).toEqual(
      expect.objectContaining({ code: 'radar_upstream_failed', upstream: 'tropical' }),
    );
  });
});
