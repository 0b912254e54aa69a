import request from 'supertest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ElevationClient } from '../../server/src/location/elevation';
import { minimalConfig, serviceTracker } from '../helpers/service';

const services = serviceTracker();

interface FakeElevation {
  baseUrl: string;
  requests: URL[];
  /** What the next requests get. */
  answer: (url: URL, res: http.ServerResponse) => void;
  close: () => Promise<void>;
}

/** A loopback stand-in for the Open-Meteo elevation API: `GET /v1/elevation?latitude=..&longitude=..`. */
async function fakeElevationApi(): Promise<FakeElevation> {
  const fake: Partial<FakeElevation> = { requests: [] };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    fake.requests?.push(url);
    if (url.pathname !== '/v1/elevation') {
      res.writeHead(404, { 'Content-Type': 'application/json' }).end('{"error":true,"reason":"not found"}');
      return;
    }
    fake.answer?.(url, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  fake.baseUrl = `http://127.0.0.1:${port}/v1/elevation`;
  fake.answer = (_url, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"elevation":[38.0]}');
  };
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake as FakeElevation;
}

let upstream: FakeElevation;
beforeEach(async () => {
  upstream = await fakeElevationApi();
});
afterEach(async () => {
  await upstream.close();
});

describe('GET /location', () => {
  it('answers nulls and a world zoom when nothing is known', async () => {
    const { service } = await services.boot();
    const res = await request(service.server).get('/api/v1/location').expect(200);
    expect(res.body).toEqual(expect.objectContaining({ lat: null, lon: null, zoom: expect.any(Number) }));
  });

  it('falls back to the LAT/LON environment', async () => {
    const { service } = await services.boot({ env: { LAT: '35.5', LON: '-97.25' } });
    const res = await request(service.server).get('/api/v1/location').expect(200);
    expect(res.body).toEqual(expect.objectContaining({ lat: 35.5, lon: -97.25, zoom: expect.any(Number) }));
    const unknown = await services.boot();
    const world = await request(unknown.service.server).get('/api/v1/location').expect(200);
    expect(res.body.zoom).toBeGreaterThan(world.body.zoom);
  });

  it('prefers deployment.location from the config over the environment', async () => {
    const { service } = await services.boot({ env: { LAT: '35.5', LON: '-97.25' } });
    const config = minimalConfig();
    (config.deployment as { location: object }).location = { lat: 28.54, lon: -81.38 };
    await request(service.server).put('/api/v1/config').send(config).expect(200);
    const res = await request(service.server).get('/api/location').expect(200);
    expect(res.body).toEqual(expect.objectContaining({ lat: 28.54, lon: -81.38 }));
  });
});

describe('GET /location/timezone', () => {
  it('looks up the IANA zone offline', async () => {
    const { service } = await services.boot();
    const res = await request(service.server).get('/api/v1/location/timezone?lat=40.7&lon=-74').expect(200);
    expect(res.body.timezone).toBe('America/New_York');
    const tokyo = await request(service.server)
      .get('/api/location/timezone?lat=35.68&lon=139.69')
      .expect(200);
    expect(tokyo.body.timezone).toBe('Asia/Tokyo');
  });

  it.each([
    ['lat=91&lon=0', 'lat'],
    ['lat=abc&lon=0', 'lat'],
    ['lon=0', 'lat'],
    ['lat=&lon=0', 'lat'],
    ['lat=10&lon=181', 'lon'],
    ['lat=10&lon=1&lon=2', 'lon'],
  ])('answers 400 invalid_query for %s', async (query, name) => {
    const { service } = await services.boot();
    const res = await request(service.server).get(`/api/v1/location/timezone?${query}`).expect(400);
    expect(res.body.code).toBe('invalid_query');
    expect(res.body.error).toContain(`"${name}"`);
  });
});

describe('GET /location/elevation', () => {
  it('answers {elevation_m} from the upstream API', async () => {
    const { service } = await services.boot({
      elevation: new ElevationClient({ baseUrl: upstream.baseUrl }),
    });
    const res = await request(service.server).get('/api/v1/location/elevation?lat=40.7&lon=-74').expect(200);
    expect(res.body).toEqual({ elevation_m: 38 });
    expect(upstream.requests).toHaveLength(1);
    const asked = upstream.requests[0] as URL;
    expect(Number(asked.searchParams.get('latitude'))).toBe(40.7);
    expect(Number(asked.searchParams.get('longitude'))).toBe(-74);
  });

  it('keeps a measured zero elevation', async () => {
    upstream.answer = (_url, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"elevation":[0.0]}');
    };
    const { service } = await services.boot({
      elevation: new ElevationClient({ baseUrl: upstream.baseUrl }),
    });
    const res = await request(service.server).get('/api/v1/location/elevation?lat=0&lon=0').expect(200);
    expect(res.body).toEqual({ elevation_m: 0 });
  });

  it.each([
    ['an upstream 500', 500, '{"error":true,"reason":"boom"}'],
    ['garbage', 200, '<html>gateway</html>'],
    ['an empty elevation list', 200, '{"elevation":[]}'],
    ['a non-numeric elevation', 200, '{"elevation":["NaN"]}'],
  ])('answers 502 elevation_upstream_failed for %s', async (_label, status, body) => {
    upstream.answer = (_url, res) => {
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(body);
    };
    const { service } = await services.boot({
      elevation: new ElevationClient({ baseUrl: upstream.baseUrl }),
    });
    const res = await request(service.server).get('/api/v1/location/elevation?lat=40.7&lon=-74').expect(502);
    expect(res.body.code).toBe('elevation_upstream_failed');
    expect(res.body.request.route).toBe('/api/v1/location/elevation');
  });

  it('answers 502 when the upstream is down', async () => {
    const baseUrl = upstream.baseUrl;
    await upstream.close();
    const { service } = await services.boot({ elevation: new ElevationClient({ baseUrl }) });
    const res = await request(service.server).get('/api/v1/location/elevation?lat=40.7&lon=-74').expect(502);
    expect(res.body.code).toBe('elevation_upstream_failed');
  });

  it('answers 502 when the upstream does not answer in time', async () => {
    upstream.answer = () => {
      // Never answers.
    };
    const { service } = await services.boot({
      elevation: new ElevationClient({ baseUrl: upstream.baseUrl, timeoutMs: 200 }),
    });
    const res = await request(service.server).get('/api/v1/location/elevation?lat=40.7&lon=-74').expect(502);
    expect(res.body.code).toBe('elevation_upstream_failed');
  });

  it('validates lat/lon before calling upstream', async () => {
    const { service } = await services.boot({
      elevation: new ElevationClient({ baseUrl: upstream.baseUrl }),
    });
    const res = await request(service.server).get('/api/v1/location/elevation?lat=-95&lon=0').expect(400);
    expect(res.body.code).toBe('invalid_query');
    expect(upstream.requests).toHaveLength(0);
  });
});
