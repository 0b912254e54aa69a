import request from 'supertest';
import fs from 'node:fs';
import path from 'node:path';
import { bootService, configWithSecrets, makeDataDir, serviceTracker } from '../helpers/service';

const services = serviceTracker();

describe('GET /info', () => {
  it('carries every field of spec 2.1 with its type', async () => {
    const { service } = await services.boot();
    const { body } = await request(service.server).get('/api/v1/info').expect(200);
    expect(body).toEqual(
      expect.objectContaining({
        service: 'raincheck',
        service_version: expect.stringMatching(/^\d+\.\d+\.\d+/),
        build_revision: 'dev',
        api_version: '2.4.0',
        api_prefix: '/api/v1',
        license: expect.any(String),
        repository: expect.any(String),
        dry_run: false,
        demo: false,
        auth_required: false,
        has_irrigation: false,
        nerd_mode_default: false,
        location_configured: false,
        uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      }),
    );
    const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '../../package.json'), 'utf8')) as {
      version: string;
    };
    expect(body.service_version).toBe(pkg.version);
  });

  it('reports build_revision from RAINCHECK_BUILD_REVISION when set', async () => {
    const { service } = await services.boot({ env: { RAINCHECK_BUILD_REVISION: ' 8f7547a1 ' } });
    const { body } = await request(service.server).get('/api/v1/info').expect(200);
    expect(body.build_revision).toBe('8f7547a1');
  });

  it('echoes the DEMO and DRY_RUN environment flags', async () => {
    const { service } = await services.boot({ env: { DEMO: '1', DRY_RUN: 'true' } });
    const { body } = await request(service.server).get('/api/v1/info').expect(200);
    expect(body.demo).toBe(true);
    expect(body.dry_run).toBe(true);
    // The demo seeds a config with a dry-run controller and zones.
    expect(body.has_irrigation).toBe(true);
    expect(body.location_configured).toBe(true);
  });

  it('keeps the install uuid across boots of one data dir, and differs for another dir', async () => {
    const dataDir = makeDataDir();
    const first = await bootService({ dataDir });
    const a = await request(first.service.server).get('/api/v1/info').expect(200);
    await first.service.stop();

    const second = await services.boot({ dataDir });
    const b = await request(second.service.server).get('/api/v1/info').expect(200);
    expect(b.body.uuid).toBe(a.body.uuid);

    const other = await services.boot();
    const c = await request(other.service.server).get('/api/v1/info').expect(200);
    expect(c.body.uuid).toEqual(expect.any(String));
    expect(c.body.uuid).not.toBe(a.body.uuid);
  });

  it('follows the config: location, irrigation and nerd mode', async () => {
    const { service } = await services.boot();
    const config = { ...configWithSecrets(), features: { nerd_mode_default: true } };
    await request(service.server).put('/api/v1/config').send(config).expect(200);
    const { body } = await request(service.server).get('/api/v1/info').expect(200);
    expect(body.has_irrigation).toBe(true);
    expect(body.nerd_mode_default).toBe(true);
    expect(body.location_configured).toBe(true);
  });

  it('reports location_configured from the LAT/LON environment before any config', async () => {
    const { service } = await services.boot({ env: { LAT: '40.7', LON: '-74' } });
    const { body } = await request(service.server).get('/api/v1/info').expect(200);
    expect(body.location_configured).toBe(true);
  });

  it('reports auth_required from the config on disk, and stays public', async () => {
    const { service } = await services.boot({
      configToml:
        'schema_version = 2\n[deployment.location]\nlat = 40.7\nlon = -74.0\n[auth]\nmode = "required"\n',
    });
    const { body } = await request(service.server).get('/api/v1/info').expect(200);
    expect(body.auth_required).toBe(true);
  });
});
