import request from 'supertest';
import { serviceTracker } from '../helpers/service';

const services = serviceTracker();

describe('mount prefixes', () => {
  it('serves shared routes identically under /api/v1 and the legacy /api', async () => {
    const { service } = await services.boot({ env: { LAT: '40.7', LON: '-74' } });
    const v1 = await request(service.server).get('/api/v1/info').expect(200);
    const legacy = await request(service.server).get('/api/info').expect(200);
    expect(v1.headers['content-type']).toMatch(/^application\/json/);
    expect(legacy.body).toEqual(v1.body);
    expect(v1.body.service).toBe('raincheck');
  });

  it('serves v1-only routes under /api/v1 and answers 404 not_found under /api', async () => {
    const { service } = await services.boot();
    const v1 = await request(service.server).get('/api/v1/updates').expect(200);
    expect(v1.body).toEqual({
      current: expect.any(String),
      latest: null,
      update_available: false,
      release_url: null,
      checked_at_epoch: null,
      check_enabled: false,
    });

    const legacy = await request(service.server).get('/api/updates').expect(404);
    expect(legacy.body.code).toBe('not_found');
    expect(legacy.body.request).toMatchObject({ method: 'GET', route: '/api/updates' });

    // /backup/snapshots is v1-only too.
    await request(service.server).get('/api/v1/backup/snapshots').expect(200);
    const legacyBackup = await request(service.server).get('/api/backup/snapshots').expect(404);
    expect(legacyBackup.body.code).toBe('not_found');
  });

  it('serves /metrics at the origin root only, in text format 0.0.4', async () => {
    const { service } = await services.boot();
    // One answered request first, so the HTTP counter has a sample.
    await request(service.server).get('/api/v1/info').expect(200);
    const res = await request(service.server).get('/metrics').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.text).toContain('# TYPE raincheck_http_requests_total counter');
    expect(res.text).toMatch(/raincheck_http_requests_total\{method="GET",status_class="2xx"\} [1-9]/);

    for (const prefixed of ['/api/v1/metrics', '/api/metrics']) {
      const miss = await request(service.server).get(prefixed).expect(404);
      expect(miss.body.code).toBe('not_found');
    }
  });

  it('counts refused requests by status class', async () => {
    const { service } = await services.boot();
    await request(service.server).get('/api/v1/nope').expect(404);
    const res = await request(service.server).get('/metrics').expect(200);
    expect(res.text).toMatch(/raincheck_http_requests_total\{method="GET",status_class="4xx"\} 1\b/);
  });
});
