import request from 'supertest';
import fs from 'node:fs';
import path from 'node:path';
import { configWithSecrets, makeDataDir, minimalConfig, serviceTracker } from '../helpers/service';

const services = serviceTracker();

const REQUIRED_AUTH_TOML =
  'schema_version = 2\n[deployment.location]\nlat = 40.7\nlon = -74.0\n[auth]\nmode = "required"\n';

describe('GET /health', () => {
  it('answers the full body for auth-disabled callers', async () => {
    const { service } = await services.boot();
    const res = await request(service.server).get('/api/v1/health').expect(200);
    const body = res.body;
    expect(body).toEqual(
      expect.objectContaining({
        status: 'ok',
        config_present: false,
        version: expect.stringMatching(/^\d+\.\d+\.\d+/),
        schema_version: 2,
        uptime_s: expect.any(Number),
        location_configured: false,
        subsystems: expect.any(Object),
        sources: expect.any(Array),
        controllers: [],
        ha: { env_configured: expect.any(Boolean), reachable: expect.any(Boolean), snapshot_source: null },
      }),
    );
    expect(Number.isInteger(body.uptime_s)).toBe(true);
    expect(body.uptime_s).toBeGreaterThanOrEqual(0);
    expect(Object.keys(body.subsystems).sort()).toEqual(
      ['config', 'controllers', 'database', 'engine', 'forecast', 'ha', 'mqtt', 'weather'].sort(),
    );
    for (const value of Object.values(body.subsystems)) expect(typeof value).toBe('string');
    expect(body.subsystems.database).toBe('ok');
    expect(body.subsystems.config).toBe('absent');

    const legacy = await request(service.server).get('/api/health').expect(200);
    expect(Object.keys(legacy.body).sort()).toEqual(Object.keys(body).sort());
  });

  it('turns config_present true after PUT /config, listing the controllers', async () => {
    const { service } = await services.boot();
    const before = await request(service.server).get('/api/v1/health').expect(200);
    expect(before.body.config_present).toBe(false);

    await request(service.server).put('/api/v1/config').send(configWithSecrets()).expect(200);
    const after = await request(service.server).get('/api/v1/health').expect(200);
    expect(after.body.config_present).toBe(true);
    expect(after.body.location_configured).toBe(true);
    expect(after.body.subsystems.config).toBe('ok');
    expect(after.body.controllers).toHaveLength(1);
    const [os1] = after.body.controllers;
    expect(os1).toMatchObject({ id: 'os1', kind: 'opensprinkler', default: true, enabled: true });
    // Its host is not reachable from tests: once the first readback fails, health says why.
    for (let i = 0; i < 50 && os1.reachable === null; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      Object.assign(os1, (await request(service.server).get('/api/v1/health')).body.controllers[0]);
    }
    expect(os1.reachable).toBe(false);
    expect(os1.note).toMatch(/cannot reach http:\/\/192\.168\.1\.40\/ja/);
  });

  it('gives anonymous callers a trimmed body when auth is required', async () => {
    const { service } = await services.boot({ configToml: REQUIRED_AUTH_TOML });
    const res = await request(service.server).get('/api/v1/health').expect(200);
    expect(Object.keys(res.body).sort()).toEqual(['status', 'uptime_s', 'version']);
    expect(res.body.status).toBe('ok');
  });

  it('?strict=1 answers 200 while the status is ok', async () => {
    const { service } = await services.boot();
    await request(service.server).put('/api/v1/config').send(minimalConfig()).expect(200);
    const res = await request(service.server).get('/api/v1/health?strict=1').expect(200);
    expect(res.body.status).toBe('ok');
  });

  it('?strict=1 answers 503 when an invalid config file on disk degrades the instance', async () => {
    const { service } = await services.boot({
      configToml: 'schema_version = 2\n[deployment.location]\nlat = 123.0\nlon = -74.0\n',
    });
    const plain = await request(service.server).get('/api/v1/health').expect(200);
    expect(plain.body.status).toBe('degraded');
    expect(plain.body.subsystems.config).toBe('invalid');
    // The stored (invalid) file is present: the owner can fetch and fix it.
    expect(plain.body.config_present).toBe(true);

    const strict = await request(service.server).get('/api/v1/health?strict=1').expect(503);
    expect(strict.body.status).toBe('degraded');
    // strict=0 does not ask for strict mode.
    await request(service.server).get('/api/v1/health?strict=0').expect(200);
  });

  it('?strict=1 answers 503 for an anonymous caller on a degraded auth-required instance', async () => {
    const dataDir = makeDataDir();
    fs.mkdirSync(path.join(dataDir, 'raincheck.db'));
    const { service } = await services.boot({ dataDir, configToml: REQUIRED_AUTH_TOML });
    const res = await request(service.server).get('/api/v1/health?strict=1').expect(503);
    expect(res.body).toEqual({
      status: 'degraded',
      version: expect.any(String),
      uptime_s: expect.any(Number),
    });
  });

  it('keeps answering with database unavailable when the database cannot be opened', async () => {
    const dataDir = makeDataDir();
    fs.mkdirSync(path.join(dataDir, 'raincheck.db'));
    const { service } = await services.boot({ dataDir });
    expect(service.store).toBeNull();

    const res = await request(service.server).get('/api/v1/health').expect(200);
    expect(res.body.status).toBe('degraded');
    expect(res.body.subsystems.database).toBe('unavailable');
    await request(service.server).get('/api/v1/health?strict=1').expect(503);

    // The rest of the service still answers, config writes included.
    await request(service.server).get('/api/v1/info').expect(200);
    await request(service.server).put('/api/v1/config').send(minimalConfig()).expect(200);
    const after = await request(service.server).get('/api/v1/health').expect(200);
    expect(after.body.config_present).toBe(true);
    expect(after.body.subsystems.database).toBe('unavailable');
  });
});
