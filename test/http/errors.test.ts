import request from 'supertest';
import fs from 'node:fs';
import { serviceTracker } from '../helpers/service';

const services = serviceTracker();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function expectErrorShape(body: Record<string, unknown>, code: string, method: string, route: string): void {
  expect(typeof body.error).toBe('string');
  expect((body.error as string).length).toBeGreaterThan(0);
  expect(body.code).toBe(code);
  expect(body.request).toEqual({ id: expect.any(String), method, route });
}

describe('error bodies', () => {
  it('answers an unknown route with 404 not_found in the error shape', async () => {
    const { service } = await services.boot();
    const res = await request(service.server).get('/api/v1/does/not/exist?x=1').expect(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expectErrorShape(res.body, 'not_found', 'GET', '/api/v1/does/not/exist');
    expect(res.body.request.id).toBe(res.headers['x-service-request-id']);

    const root = await request(service.server).delete('/nothing-here').expect(404);
    expectErrorShape(root.body, 'not_found', 'DELETE', '/nothing-here');
  });

  it('answers malformed JSON with 400 invalid_json, not a 500', async () => {
    const { service, configPath } = await services.boot();
    const res = await request(service.server)
      .post('/api/v1/config/preview')
      .set('Content-Type', 'application/json')
      .send('{"candidate": {"schema_version": 2,')
      .expect(400);
    expectErrorShape(res.body, 'invalid_json', 'POST', '/api/v1/config/preview');
    expect(fs.existsSync(configPath)).toBe(false);
  });

  it('answers a JSON body over 1 MB with 413 payload_too_large', async () => {
    const { service, configPath } = await services.boot();
    const big = JSON.stringify({ candidate: { padding: 'x'.repeat(1024 * 1024 + 16) } });
    const res = await request(service.server)
      .put('/api/v1/config')
      .set('Content-Type', 'application/json')
      .send(big)
      .expect(413);
    expectErrorShape(res.body, 'payload_too_large', 'PUT', '/api/v1/config');
    expect(fs.existsSync(configPath)).toBe(false);
  });

  it('answers a raw TOML body over 1 MB with 413 payload_too_large', async () => {
    const { service, configPath } = await services.boot();
    const big = `schema_version = 2\n# ${'x'.repeat(1024 * 1024 + 16)}\n`;
    const res = await request(service.server)
      .put('/api/v1/config/raw')
      .set('Content-Type', 'text/plain')
      .send(big)
      .expect(413);
    expect(res.body.code).toBe('payload_too_large');
    expect(fs.existsSync(configPath)).toBe(false);
  });

  it('a body just under the limit is not refused for size', async () => {
    const { service } = await services.boot();
    const body = JSON.stringify({ candidate: { padding: 'x'.repeat(900 * 1024) } });
    const res = await request(service.server)
      .post('/api/v1/config/preview')
      .set('Content-Type', 'application/json')
      .send(body)
      .expect(200);
    expect(res.body.ok).toBe(false);
  });

  it('echoes a client-sent X-Service-Request-Id, also as body.request.id on errors', async () => {
    const { service } = await services.boot();
    const ok = await request(service.server)
      .get('/api/v1/info')
      .set('X-Service-Request-Id', 'ha-poll-42.a:b')
      .expect(200);
    expect(ok.headers['x-service-request-id']).toBe('ha-poll-42.a:b');

    const err = await request(service.server)
      .post('/api/v1/config/preview')
      .set('X-Service-Request-Id', 'client-req-7')
      .set('Content-Type', 'application/json')
      .send('not json')
      .expect(400);
    expect(err.headers['x-service-request-id']).toBe('client-req-7');
    expect(err.body.request.id).toBe('client-req-7');
  });

  it('generates a uuid request id when none (or an unusable one) is sent', async () => {
    const { service } = await services.boot();
    const a = await request(service.server).get('/api/v1/nope').expect(404);
    const b = await request(service.server).get('/api/v1/nope').expect(404);
    expect(a.headers['x-service-request-id']).toMatch(UUID);
    expect(a.body.request.id).toBe(a.headers['x-service-request-id']);
    expect(b.headers['x-service-request-id']).not.toBe(a.headers['x-service-request-id']);

    for (const unusable of ['has space', 'x'.repeat(129), 'semi;colon']) {
      const res = await request(service.server)
        .get('/api/v1/nope')
        .set('X-Service-Request-Id', unusable)
        .expect(404);
      expect(res.headers['x-service-request-id']).toMatch(UUID);
      expect(res.body.request.id).toBe(res.headers['x-service-request-id']);
    }
  });

  it('names the matched route template for a route-level error', async () => {
    const { service } = await services.boot();
    const legacy = await request(service.server).get('/api/location/timezone?lat=abc&lon=0').expect(400);
    expectErrorShape(legacy.body, 'invalid_query', 'GET', '/api/location/timezone');
    const v1 = await request(service.server).get('/api/v1/location/timezone?lat=abc&lon=0').expect(400);
    expectErrorShape(v1.body, 'invalid_query', 'GET', '/api/v1/location/timezone');
    const rollback = await request(service.server).post('/api/v1/config/rollback').send({}).expect(400);
    expectErrorShape(rollback.body, 'invalid_body', 'POST', '/api/v1/config/rollback');
  });
});
