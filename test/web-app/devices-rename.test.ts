import request from 'supertest';
import { configWithName, renameTargetOf } from '../../web/app/pages/devices/devices-model';
import { serviceTracker } from '../helpers/service';
import { gatewaySiteLines } from '../hardening/ingest-config';

/**
 * The Devices page's Rename for a gateway, controller or flow meter: a display
 * `name` on the config entry, PUT back whole (the path Remove takes). The id
 * never changes; an over-long or blank name is refused by the server with the
 * config report, changing nothing.
 */

const services = serviceTracker();
const PASSKEY = '0123456789ABCDEF0123456789ABCDEF';

const CONFIG = [
  ...gatewaySiteLines(PASSKEY),
  '[[controllers]]',
  'id = "valves"',
  'kind = "dry_run"',
  'default = true',
  '[controllers.flow_meter]',
  'kind = "controller"',
  '[zones.front_lawn]',
  'display_name = "Front lawn"',
  'controller_id = "valves"',
  '[zones.front_lawn.flow_meter]',
  'kind = "mqtt"',
  'topic = "garden/flow"',
  '',
].join('\n');

describe('configWithName', () => {
  const config = {
    sources: [{ id: 'console', kind: 'ecowitt_ingest' }],
    controllers: [{ id: 'valves', name: 'Old', flow_meter: { kind: 'controller' } }],
    zones: { lawn: { flow_meter: { kind: 'mqtt', topic: 't' } } },
  };

  it('names the entry behind a gateway or controller and keeps its id', () => {
    const gateway = renameTargetOf({ kind: 'gateway', source_id: 'console' });
    expect(configWithName(config, gateway, '  Garage console ')?.['sources']).toEqual([
      { id: 'console', kind: 'ecowitt_ingest', name: 'Garage console' },
    ]);
    const controller = renameTargetOf({ kind: 'controller', source_id: 'valves' });
    expect(configWithName(config, controller, 'Back valves')?.['controllers']).toEqual([
      { id: 'valves', name: 'Back valves', flow_meter: { kind: 'controller' } },
    ]);
  });

  it('drops the name on a blank entry (the id shows again)', () => {
    const controller = renameTargetOf({ kind: 'controller', source_id: 'valves' });
    expect(configWithName(config, controller, '   ')?.['controllers']).toEqual([
      { id: 'valves', flow_meter: { kind: 'controller' } },
    ]);
  });

  it("names a controller's or a zone's flow meter", () => {
    expect(
      configWithName(config, { list: 'flow_meter', id: 'controller:valves' }, 'Main meter')?.['controllers'],
    ).toEqual([{ id: 'valves', name: 'Old', flow_meter: { kind: 'controller', name: 'Main meter' } }]);
    expect(configWithName(config, { list: 'flow_meter', id: 'zone:lawn' }, 'Lawn meter')?.['zones']).toEqual({
      lawn: { flow_meter: { kind: 'mqtt', topic: 't', name: 'Lawn meter' } },
    });
  });

  it('is null when the config has no such entry', () => {
    expect(configWithName(config, renameTargetOf({ kind: 'station', source_id: 'demo' }), 'x')).toBeNull();
    expect(configWithName(config, { list: 'flow_meter', id: 'zone:back' }, 'x')).toBeNull();
    expect(configWithName(config, { list: 'flow_meter', id: 'controller:nope' }, 'x')).toBeNull();
    expect(configWithName({}, renameTargetOf({ kind: 'controller', source_id: 'valves' }), 'x')).toBeNull();
  });
});

describe('Rename over the service', () => {
  it('round-trips the names; ids, secrets and the gateway keep working', async () => {
    const { service } = await services.boot({ configToml: CONFIG });
    const server = service.server;
    let config = (await request(server).get('/api/v1/config').expect(200)).body;
    config = configWithName(config, { list: 'sources', id: 'console' }, 'Garage console');
    config = configWithName(config, { list: 'controllers', id: 'valves' }, 'Back valves');
    config = configWithName(config, { list: 'flow_meter', id: 'zone:front_lawn' }, 'Lawn meter');
    const put = await request(server).put('/api/v1/config').send(config).expect(200);
    // A known setting: no "unknown_field" warning for the names.
    expect(put.body.validation.warnings.map((w: { path: string }) => w.path)).not.toContainEqual(
      expect.stringMatching(/\.name$/),
    );

    const saved = (await request(server).get('/api/v1/config').expect(200)).body;
    expect(saved.sources[0]).toMatchObject({ id: 'console', name: 'Garage console' });
    expect(saved.controllers[0]).toMatchObject({ id: 'valves', name: 'Back valves' });
    expect(saved.zones.front_lawn.flow_meter).toMatchObject({ name: 'Lawn meter', topic: 'garden/flow' });
    expect(saved.zones.front_lawn.controller_id).toBe('valves');
    expect(service.config.current?.config.sources[0]?.config['passkey']).toBe(PASSKEY);
    await request(server)
      .post('/ingest/gateway')
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send(`PASSKEY=${PASSKEY}&tempf=70`)
      .expect(200);
  });

  it.each([
    ['an over-long name', 'x'.repeat(81), '$.controllers[0].name'],
    ['a blank name', '   ', '$.controllers[0].name'],
  ])('refuses %s with config_invalid and changes nothing', async (_what, name, path) => {
    const { service } = await services.boot({ configToml: CONFIG });
    const server = service.server;
    const config = (await request(server).get('/api/v1/config').expect(200)).body;
    config.controllers[0].name = name;
    const res = await request(server).put('/api/v1/config').send(config);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('config_invalid');
    expect(JSON.stringify(res.body.validation)).toContain(path);
    expect(service.config.current?.config.controllers[0]?.name).toBeUndefined();
  });
});
