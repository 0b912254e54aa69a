import request from 'supertest';
import { configWithoutDevice } from '../../web/app/pages/devices/devices-model';
import { serviceTracker } from '../helpers/service';
import { gatewaySiteLines } from '../hardening/ingest-config';

/**
 * The Devices page's Remove for a gateway or a controller: the config without
 * that entry, PUT back whole through the same path Settings uses. Over the
 * running service: a gateway's source goes (its neighbours' redacted secrets
 * come back by id), and a controller that still drives a zone is refused
 * with the config report, changing nothing.
 */

const services = serviceTracker();
const PASSKEY = '0123456789ABCDEF0123456789ABCDEF';
const HOOK_SECRET = 'a-long-webhook-secret-0123';

const CONFIG = [
  ...gatewaySiteLines(PASSKEY),
  '[[sources]]',
  'id = "yard_hook"',
  'priority = 80',
  'kind = "http_webhook"',
  '[sources.config]',
  `secret = "${HOOK_SECRET}"`,
  '[[sources.config.fields]]',
  'path = "t"',
  'field = "air_temp_f"',
  '[[controllers]]',
  'id = "valves"',
  'kind = "dry_run"',
  'default = true',
  '[zones.front_lawn]',
  'display_name = "Front lawn"',
  'controller_id = "valves"',
  '',
].join('\n');

describe('configWithoutDevice', () => {
  const config = {
    sources: [{ id: 'console' }, { id: 'yard_hook' }],
    controllers: [{ id: 'valves' }],
  };

  it('drops the source behind a gateway and the controller behind a controller device', () => {
    expect(configWithoutDevice(config, { kind: 'gateway', source_id: 'console' })).toEqual({
      ...config,
      sources: [{ id: 'yard_hook' }],
    });
    expect(configWithoutDevice(config, { kind: 'controller', source_id: 'valves' })).toEqual({
      ...config,
      controllers: [],
    });
  });

  it('is null when the config has no such entry (the demo replay source)', () => {
    expect(configWithoutDevice(config, { kind: 'station', source_id: 'demo' })).toBeNull();
    expect(configWithoutDevice({}, { kind: 'controller', source_id: 'valves' })).toBeNull();
  });
});

describe('Remove over the service', () => {
  it("removes a gateway's source; the other source keeps its secret", async () => {
    const { service } = await services.boot({ configToml: CONFIG });
    const server = service.server;
    const config = (await request(server).get('/api/v1/config').expect(200)).body;
    const next = configWithoutDevice(config, { kind: 'gateway', source_id: 'console' });
    await request(server).put('/api/v1/config').send(next!).expect(200);
    const raw = service.config.current?.config;
    expect(raw?.sources.map((s) => s.id)).toEqual(['yard_hook']);
    expect(raw?.sources[0]?.config['secret']).toBe(HOOK_SECRET);
    await request(server)
      .post('/ingest/gateway')
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send(`PASSKEY=${PASSKEY}&tempf=70`)
      .expect((res) => expect(res.status).not.toBe(200));
  });

  it('refuses to remove a controller a zone names, and changes nothing', async () => {
    const { service } = await services.boot({ configToml: CONFIG });
    const server = service.server;
    const config = (await request(server).get('/api/v1/config').expect(200)).body;
    const res = await request(server)
      .put('/api/v1/config')
      .send(configWithoutDevice(config, { kind: 'controller', source_id: 'valves' })!);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('config_invalid');
    expect(service.config.current?.config.controllers.map((c) => c.id)).toEqual(['valves']);
  });
});
