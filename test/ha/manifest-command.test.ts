import request from 'supertest';
import { quietDemoClock, serviceTracker } from '../helpers/service';

/**
 * POST /sensors/manifest/command (issue 26): the companion integration runs an
 * entity's command as its MQTT payload; the catalog descriptor maps it to the
 * same action body an MQTT command gets, carried out by the action executor.
 */

const services = serviceTracker();

async function demo() {
  const booted = await services.boot({ env: { DEMO: '1' }, serviceOptions: { clock: quietDemoClock() } });
  return booted.service.server;
}

describe('POST /sensors/manifest/command', () => {
  it("runs the entity's command through the action executor", async () => {
    const server = await demo();
    const on = await request(server)
      .post('/api/v1/sensors/manifest/command')
      .send({ key: 'pause', payload: 'ON' });
    expect(on.status).toBe(200);
    expect((await request(server).get('/api/v1/irrigation/snapshot')).body.skip_check.is_paused).toBe(true);
    const wind = await request(server)
      .post('/api/v1/sensors/manifest/command')
      .send({ key: 'threshold_max_wind_mph', payload: '17' });
    expect(wind.status).toBe(200);
    const manifest = await request(server).get('/api/v1/sensors/manifest');
    const state = (key: string) =>
      (manifest.body.entities as { key: string; state: string | null }[]).find((e) => e.key === key)?.state;
    expect(state('threshold_max_wind_mph')).toBe('17');
    expect(state('pause')).toBe('ON');
  });

  it('answers the executor refusal with its status and code', async () => {
    const server = await demo();
    const res = await request(server)
      .post('/api/v1/sensors/manifest/command')
      .send({ key: 'threshold_max_wind_mph', payload: '99' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('threshold_out_of_range');
  });

  it('refuses an unknown entity, a payload the entity does not understand and a bad body', async () => {
    const server = await demo();
    const post = (body: unknown) =>
      request(server)
        .post('/api/v1/sensors/manifest/command')
        .send(body as object);
    const unknown = await post({ key: 'no_such_entity', payload: 'ON' });
    expect([unknown.status, unknown.body.code]).toEqual([404, 'entity_unknown']);
    const sensor = await post({ key: 'verdict', payload: 'ON' });
    expect([sensor.status, sensor.body.code]).toEqual([404, 'entity_unknown']);
    const garbled = await post({ key: 'pause', payload: 'MAYBE' });
    expect([garbled.status, garbled.body.code]).toEqual([400, 'payload_not_understood']);
    const bad = await post({ key: 'pause' });
    expect([bad.status, bad.body.code]).toEqual([400, 'invalid_body']);
    expect((await request(server).get('/api/v1/irrigation/snapshot')).body.skip_check.is_paused).toBe(false);
  });
});
