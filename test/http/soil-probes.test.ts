import fs from 'node:fs';
import type { Server } from 'node:http';
import path from 'node:path';
import request from 'supertest';
import { serviceTracker } from '../helpers/service';
import { gatewaySiteLines } from '../hardening/ingest-config';

/**
 * A gateway probe over the real service: the Ecowitt upload fixture (a
 * GW1100B with WH51 channels 1 and 2) feeds a zone's bound probe, the
 * snapshot shows it in `soil_forecasts[]`, holds the zone when wet, and the
 * calibration route sets the probe's dry and wet points.
 */

const services = serviceTracker();
const PASSKEY = '0123456789ABCDEF0123456789ABCDEF';
const SENSOR = 'source:console:soil_moisture_pct:1';
const HOOK_SECRET = 'a-long-webhook-secret-0123';
const GW1100B = fs
  .readFileSync(
    path.join(__dirname, '..', 'weather', 'ecowitt', 'fixtures', 'ecowitt-upload-sample.txt'),
    'utf8',
  )
  .split('\n')
  .find((line) => line.includes('model=GW1100B')) as string;

function uploadNow(): string {
  const now = new Date().toISOString().slice(0, 19).replace('T', '+').replace(/:/g, '%3A');
  return GW1100B.replace(/PASSKEY=[^&]+/, `PASSKEY=${PASSKEY}`).replace(/dateutc=[^&]+/, `dateutc=${now}`);
}

function config(saturation: number): string {
  return [
    ...gatewaySiteLines(PASSKEY),
    '[[sources]]',
    'id = "yard_hook"',
    'priority = 80',
    'kind = "http_webhook"',
    '[sources.config]',
    `secret = "${HOOK_SECRET}"`,
    '[[sources.config.soil_channels]]',
    'path = "probes.bed.moisture"',
    'channel = "bed"',
    'battery_path = "probes.bed.battery_v"',
    '[zones.front_lawn]',
    'display_name = "Front lawn"',
    `soil_sensor_id = "${SENSOR}"`,
    'target_min_pct_soil = 20',
    `saturation_pct_soil = ${saturation}`,
    '',
  ].join('\n');
}

async function boot(saturation = 80): Promise<Server> {
  const { service } = await services.boot({ configToml: config(saturation) });
  await request(service.server)
    .post('/ingest/gateway')
    .set('Content-Type', 'application/x-www-form-urlencoded')
    .send(uploadNow())
    .expect(200);
  return service.server;
}

/** The snapshot once it has recomputed with the upload (the service coalesces recomputes over 10 s). */
async function settledSnapshot(
  server: Server,
): Promise<{ skip_check: { soil_probe_holds: Record<string, string> } }> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const res = await request(server).get('/api/v1/irrigation/snapshot').expect(200);
    const front = (res.body.soil_forecasts as Record<string, unknown>[]).find(
      (f) => f['zone'] === 'front_lawn',
    );
    if (front?.['status'] !== 'offline' || Date.now() > deadline) return res.body;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function frontForecast(server: Server): Promise<Record<string, unknown>> {
  const res = await request(server).get('/api/v1/irrigation/snapshot').expect(200);
  return (res.body.soil_forecasts as Record<string, unknown>[]).find((f) => f['zone'] === 'front_lawn') ?? {};
}

describe('a WH51 channel bound to a zone', () => {
  it('shows the uploaded reading (soilmoisture1=40) as the relative reading of an uncalibrated probe', async () => {
    const server = await boot();
    await settledSnapshot(server);
    expect(await frontForecast(server)).toMatchObject({
      status: 'uncalibrated',
      probe_configured: true,
      sensor_id: SENSOR,
      raw_pct: 40,
      reading_pct: 40,
      curve: null,
      hold: null,
    });
  });

  it('/sensors/soil names the zone each channel is bound to', async () => {
    const server = await boot();
    const res = await request(server).get('/api/v1/sensors/soil').expect(200);
    const zones = (res.body.sensors as { id: string; zone: string | null }[]).map((c) => [c.id, c.zone]);
    expect(zones).toEqual([
      [SENSOR, 'front_lawn'],
      ['source:console:soil_moisture_pct:2', null],
    ]);
  });

  it("a gateway upload that omits a channel keeps that channel on the gateway's /devices record", async () => {
    const server = await boot();
    const withoutCh2 = uploadNow()
      .replace(/&soilmoisture2=[^&]*/, '')
      .replace(/&soilbatt2=[^&]*/, '');
    expect(withoutCh2).not.toContain('soilmoisture2');
    await request(server)
      .post('/ingest/gateway')
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send(withoutCh2)
      .expect(200);
    const res = await request(server).get('/api/v1/devices').expect(200);
    const gateway = (res.body.devices as { id: string; sensors: string[] }[]).find(
      (d) => d.id === 'console:gateway',
    );
    expect(gateway?.sensors).toEqual(expect.arrayContaining(['soil_moisture_pct:1', 'soil_moisture_pct:2']));
  });

  it('keeps the gateway and its channels (last seen, battery) across a restart, before any new upload', async () => {
    const first = await services.boot({ configToml: config(80) });
    const withoutCh2 = uploadNow()
      .replace(/&soilmoisture2=[^&]*/, '')
      .replace(/&soilbatt2=[^&]*/, '');
    for (const body of [uploadNow(), withoutCh2]) {
      await request(first.service.server)
        .post('/ingest/gateway')
        .set('Content-Type', 'application/x-www-form-urlencoded')
        .send(body)
        .expect(200);
    }
    const before = await request(first.service.server).get('/api/v1/devices').expect(200);
    await first.service.stop();

    const second = await services.boot({ dataDir: first.dataDir });
    const after = await request(second.service.server).get('/api/v1/devices').expect(200);
    const gateway = (after.body.devices as Record<string, unknown>[]).find(
      (d) => d['id'] === 'console:gateway',
    );
    expect(gateway).toEqual(
      (before.body.devices as Record<string, unknown>[]).find((d) => d['id'] === 'console:gateway'),
    );
    expect(gateway).toMatchObject({ kind: 'gateway', model: 'GW1100B' });
    const channels = gateway?.['channels'] as {
      key: string;
      last_seen_epoch: number;
      battery: number | null;
    }[];
    const ch1 = channels.find((c) => c.key === 'soil_moisture_pct:1');
    const ch2 = channels.find((c) => c.key === 'soil_moisture_pct:2');
    expect(ch1?.battery).toBe(1.5);
    expect(ch2?.battery).toBe(1.8);
    expect(ch2?.last_seen_epoch).toBeLessThanOrEqual(ch1?.last_seen_epoch ?? 0);

    const probes = await request(second.service.server).get('/api/v1/sensors/soil/probes').expect(200);
    const listed = probes.body.probes as Record<string, unknown>[];
    expect(listed.find((p) => p['id'] === 'source:console:soil_moisture_pct:2')).toMatchObject({
      zone: null,
      raw_pct: null,
      last_seen_epoch: ch2?.last_seen_epoch,
      battery: 1.8,
    });
  });

  it('holds the zone while the probe reads at or above its saturation threshold', async () => {
    const server = await boot(40);
    const snapshot = await settledSnapshot(server);
    expect(Object.keys(snapshot.skip_check.soil_probe_holds)).toEqual(['front_lawn']);
    expect(snapshot.skip_check.soil_probe_holds.front_lawn).toContain('40 %');
  });
});

describe('PUT /sensors/soil/calibration', () => {
  it('sets the dry point, then the wet point from the latest reading, and the probe reads calibrated', async () => {
    const server = await boot();
    const dry = await request(server)
      .put('/api/v1/sensors/soil/calibration')
      .send({ sensor_id: SENSOR, point: 'dry', raw_pct: 10 })
      .expect(200);
    expect(dry.body).toMatchObject({ sensor_id: SENSOR, calibrated: false });
    expect(dry.body.calibration).toMatchObject({ dry_raw_pct: 10, wet_raw_pct: null, dry_origin: 'owner' });
    expect((await frontForecast(server))['status']).toBe('uncalibrated');

    const wet = await request(server)
      .put('/api/v1/sensors/soil/calibration')
      .send({ sensor_id: SENSOR, point: 'wet', raw_pct: 60 })
      .expect(200);
    expect(wet.body).toMatchObject({ calibrated: true, calibration: { dry_raw_pct: 10, wet_raw_pct: 60 } });
    // 100 x (40 - 10) / (60 - 10)
    expect(await frontForecast(server)).toMatchObject({ status: 'calibrated', raw_pct: 40, reading_pct: 60 });

    // No raw_pct: the probe's latest reading (40) becomes the wet point.
    const now = await request(server)
      .put('/api/v1/sensors/soil/calibration')
      .send({ sensor_id: SENSOR, point: 'wet' })
      .expect(200);
    expect(now.body.calibration.wet_raw_pct).toBe(40);
    expect((await frontForecast(server))['reading_pct']).toBe(100);

    await request(server).delete('/api/v1/sensors/soil/calibration').query({ sensor_id: SENSOR }).expect(200);
    expect((await frontForecast(server))['status']).toBe('uncalibrated');
  });

  it('answers bad input with a clear status and code', async () => {
    const server = await boot();
    const put = (body: unknown) =>
      request(server)
        .put('/api/v1/sensors/soil/calibration')
        .send(body as object);
    expect((await put({ sensor_id: SENSOR, point: 'soggy' }).expect(400)).body.code).toBe('invalid_body');
    expect((await put({ sensor_id: SENSOR, point: 'dry', raw_pct: 130 }).expect(400)).body.code).toBe(
      'calibration_out_of_range',
    );
    expect(
      (await put({ sensor_id: 'ha:sensor.garden_soil', point: 'dry', raw_pct: 5 }).expect(422)).body.code,
    ).toBe('probe_unsupported');
    expect(
      (await put({ sensor_id: 'source:console:soil_moisture_pct:7', point: 'wet' }).expect(409)).body.code,
    ).toBe('probe_no_reading');
    await put({ sensor_id: SENSOR, point: 'wet', raw_pct: 30 }).expect(200);
    expect((await put({ sensor_id: SENSOR, point: 'dry', raw_pct: 35 }).expect(422)).body.code).toBe(
      'calibration_inverted',
    );
    expect((await request(server).delete('/api/v1/sensors/soil/calibration').expect(400)).body.code).toBe(
      'invalid_query',
    );
    // The OpenAPI document describes the route and its body.
    const openapi = await request(server).get('/docs/openapi.json').expect(200);
    expect(Object.keys(openapi.body.paths['/api/v1/sensors/soil/calibration'] ?? {}).sort()).toEqual([
      'delete',
      'put',
    ]);
    expect(Object.keys(openapi.body.components.schemas.SoilProbeCalibration.properties).sort()).toEqual([
      'point',
      'raw_pct',
      'sensor_id',
    ]);
  });
});

describe('the probes list and its actions', () => {
  it('lists every probe with its health, zone and state; binds, renames and removes', async () => {
    const server = await boot();
    await settledSnapshot(server);
    const list = await request(server).get('/api/v1/sensors/soil/probes').expect(200);
    expect(list.body.probes).toEqual([
      expect.objectContaining({
        id: SENSOR,
        source_id: 'console',
        name: 'Soil moisture CH1',
        zone: 'front_lawn',
        raw_pct: 40,
        last_seen_epoch: expect.any(Number),
        battery: 1.5,
        signal: null,
        status: 'uncalibrated',
        reading_pct: 40,
      }),
      expect.objectContaining({
        id: 'source:console:soil_moisture_pct:2',
        zone: null,
        raw_pct: 56,
        battery: 1.8,
        status: 'unbound',
      }),
    ]);

    // Bind channel 2 to the zone: channel 1 is unbound, the config says so.
    const ch2 = 'source:console:soil_moisture_pct:2';
    const bound = await request(server)
      .put('/api/v1/sensors/soil/binding')
      .send({ sensor_id: ch2, zone: 'front_lawn' })
      .expect(200);
    expect(bound.body.probes.map((p: { id: string; zone: string | null }) => [p.id, p.zone])).toEqual([
      [SENSOR, null],
      [ch2, 'front_lawn'],
    ]);
    const config = await request(server).get('/api/v1/config').expect(200);
    expect(config.body.zones.front_lawn.soil_sensor_id).toBe(ch2);
    const unknown = await request(server)
      .put('/api/v1/sensors/soil/binding')
      .send({ sensor_id: ch2, zone: 'nowhere' })
      .expect(400);
    expect(unknown.body.code).toBe('zone_unknown');

    const renamed = await request(server)
      .put('/api/v1/sensors/soil/name')
      .send({ sensor_id: ch2, name: 'Rose bed probe' })
      .expect(200);
    expect(renamed.body.probes.find((p: { id: string }) => p.id === ch2).name).toBe('Rose bed probe');

    await request(server)
      .put('/api/v1/sensors/soil/calibration')
      .send({ sensor_id: ch2, point: 'dry', raw_pct: 10 })
      .expect(200);
    const removed = await request(server)
      .delete('/api/v1/sensors/soil/probe')
      .query({ sensor_id: ch2 })
      .expect(200);
    const gone = removed.body.probes.find((p: { id: string }) => p.id === ch2);
    expect(gone).toMatchObject({ zone: null, name: 'Soil moisture CH2', calibration: null });
    const after = await request(server).get('/api/v1/config').expect(200);
    expect(after.body.zones.front_lawn.soil_sensor_id ?? null).toBeNull();
  });
});

describe('a webhook soil channel', () => {
  it('publishes a soil probe the zone can bind, with its battery; a body without it is refused', async () => {
    const server = await boot();
    await request(server)
      .post('/ingest/webhook/yard_hook')
      .set('X-Raincheck-Token', HOOK_SECRET)
      .send(JSON.stringify({ probes: { bed: { moisture: '27.5', battery_v: 2.9 } } }))
      .expect(200);
    const probes = await request(server).get('/api/v1/sensors/soil/probes').expect(200);
    expect(probes.body.probes).toContainEqual(
      expect.objectContaining({
        id: 'source:yard_hook:soil_moisture_pct:bed',
        source_id: 'yard_hook',
        name: 'Soil moisture bed',
        raw_pct: 27.5,
        battery: 2.9,
        zone: null,
      }),
    );
    await request(server)
      .put('/api/v1/sensors/soil/binding')
      .send({ sensor_id: 'source:yard_hook:soil_moisture_pct:bed', zone: 'front_lawn' })
      .expect(200);
    expect(await frontForecast(server)).toMatchObject({
      status: 'uncalibrated',
      raw_pct: 27.5,
      reading_pct: 27.5,
    });
    const refused = await request(server)
      .post('/ingest/webhook/yard_hook')
      .set('X-Raincheck-Token', HOOK_SECRET)
      .send(JSON.stringify({ probes: { bed: { moisture: 'wet' } } }));
    expect(refused.body.code).toBe('webhook_unparseable');
  });
});
