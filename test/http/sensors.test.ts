import fs from 'node:fs';
import type { Server } from 'node:http';
import path from 'node:path';
import request from 'supertest';
import { manifestSchema } from '../../server/src/ha/entities/manifest';
import { SENSOR_ROLES } from '../../server/src/ha/sensor-inventory';
import { HaPeer, PEER_TOKEN, type PeerStateInput } from '../helpers/ha-peer';
import { makeDataDir, serviceTracker } from '../helpers/service';

/**
 * GET /sensors/soil and /sensors/discovered over the real service: Home
 * Assistant entities from a loopback HA, channels pushed to a gateway-upload
 * and a webhook source, HA down or not configured, and 404 without a database.
 */

const services = serviceTracker();
const peers: HaPeer[] = [];
afterEach(async () => {
  for (const peer of peers.splice(0)) await peer.close();
});

const PASSKEY = '0123456789ABCDEF0123456789ABCDEF';
const SECRET = 'a-long-webhook-secret-0123';
/** A GW1100B console upload with two soil channels (test/weather/ecowitt/fixtures). */
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

const CONFIG = [
  'schema_version = 2',
  '[deployment]',
  'timezone = "America/Denver"',
  '[deployment.location]',
  'lat = 39.7',
  'lon = -105.0',
  '[[sources]]',
  'id = "console"',
  'priority = 100',
  'kind = "ecowitt_ingest"',
  '[sources.config]',
  `passkey = "${PASSKEY}"`,
  '[[sources]]',
  'id = "shed"',
  'priority = 90',
  'kind = "http_webhook"',
  '[sources.config]',
  `secret = "${SECRET}"`,
  '[[sources.config.fields]]',
  'path = "data.leaf"',
  'field = "leaf_wetness_pct"',
  '[[sources.config.fields]]',
  'path = "data.temp_c"',
  'field = "air_temp_f"',
  'unit = "c"',
  '',
].join('\n');

const T0 = '2026-05-01T12:00:00.000000+00:00';
const HA_STATES: PeerStateInput[] = [
  {
    entity_id: 'sensor.garden_soil',
    state: '41.5',
    attributes: { device_class: 'moisture', unit_of_measurement: '%', friendly_name: 'Garden soil' },
    last_updated: T0,
    last_reported: T0,
  },
  {
    entity_id: 'sensor.bed_soil',
    state: 'unavailable',
    attributes: { device_class: 'moisture', unit_of_measurement: '%' },
  },
  {
    entity_id: 'sensor.outdoor_temperature',
    state: '20.0',
    attributes: { device_class: 'temperature', unit_of_measurement: '°C', friendly_name: 'Outdoor' },
  },
  { entity_id: 'sensor.rain_rate', state: '0.0', attributes: { unit_of_measurement: 'mm/h' } },
  {
    entity_id: 'sensor.kitchen_power',
    state: '120',
    attributes: { device_class: 'power', unit_of_measurement: 'W' },
  },
  { entity_id: 'binary_sensor.basement_leak', state: 'off', attributes: { device_class: 'moisture' } },
  { entity_id: 'switch.drip_valve', state: 'off', attributes: { friendly_name: 'Drip valve' } },
  { entity_id: 'valve.main_line', state: 'closed', attributes: { device_class: 'water' } },
];

interface Entity {
  id: string;
  name: string;
  unit: string | null;
  device_class: string | null;
  state: string | null;
}

async function feedLocalSources(server: Server): Promise<void> {
  await request(server)
    .post('/ingest/gateway')
    .set('Content-Type', 'application/x-www-form-urlencoded')
    .send(uploadNow())
    .expect(200);
  await request(server)
    .post('/ingest/webhook/shed')
    .set('X-Raincheck-Token', SECRET)
    .send(JSON.stringify({ data: { temp_c: 20, leaf: 3 } }))
    .expect(200);
}

async function bootWithHa(): Promise<{ server: Server; peer: HaPeer }> {
  const peer = await HaPeer.start({ states: HA_STATES });
  peers.push(peer);
  const booted = await services.boot({
    configToml: CONFIG,
    env: { HA_URL: peer.url, HA_TOKEN: PEER_TOKEN },
  });
  await feedLocalSources(booted.service.server);
  return { server: booted.service.server, peer };
}

const ids = (list: { id: string }[]) => list.map((e) => e.id);

describe('GET /sensors/soil', () => {
  it("lists the sources' soil channels and HA's moisture sensors, sorted by id", async () => {
    const { server } = await bootWithHa();
    const res = await request(server).get('/api/v1/sensors/soil').expect(200);
    expect(res.body.ha_configured).toBe(true);
    expect(res.body.ha_reachable).toBe(true);
    expect(res.body.sensors).toEqual([
      {
        id: 'ha:sensor.bed_soil',
        source_id: 'ha',
        name: 'sensor.bed_soil',
        value_pct: null,
        observed_epoch: expect.any(Number),
        zone: null,
      },
      {
        id: 'ha:sensor.garden_soil',
        source_id: 'ha',
        name: 'Garden soil',
        value_pct: 41.5,
        observed_epoch: Date.parse(T0) / 1000,
        zone: null,
      },
      {
        id: 'source:console:soil_moisture_pct:1',
        source_id: 'console',
        name: 'Soil moisture CH1',
        value_pct: 40,
        observed_epoch: expect.any(Number),
        zone: null,
      },
      {
        id: 'source:console:soil_moisture_pct:2',
        source_id: 'console',
        name: 'Soil moisture CH2',
        value_pct: 56,
        observed_epoch: expect.any(Number),
        zone: null,
      },
    ]);
    // The legacy prefix serves it too.
    const legacy = await request(server).get('/api/sensors/soil').expect(200);
    expect(ids(legacy.body.sensors)).toEqual(ids(res.body.sensors));
  });
});

describe('GET /sensors/discovered', () => {
  it('groups HA entities and local POST channels by role', async () => {
    const { server } = await bootWithHa();
    const res = await request(server).get('/api/v1/sensors/discovered').expect(200);
    expect(res.body.ha_reachable).toBe(true);
    const roles = res.body.roles as Record<string, Entity[]>;
    expect(Object.keys(roles).sort()).toEqual([...SENSOR_ROLES].sort());

    expect(roles.temperature).toEqual(
      expect.arrayContaining([
        {
          id: 'ha:sensor.outdoor_temperature',
          name: 'Outdoor',
          unit: '°C',
          device_class: 'temperature',
          state: '20.0',
        },
        expect.objectContaining({ id: 'source:shed:air_temp_f', unit: '°F', device_class: 'temperature' }),
        expect.objectContaining({ id: 'source:console:air_temp_f', unit: '°F' }),
      ]),
    );
    const shedTemp = roles.temperature!.find((e) => e.id === 'source:shed:air_temp_f');
    expect(Number(shedTemp?.state)).toBeCloseTo(68, 5);
    expect(ids(roles.soil_moisture!)).toEqual([
      'ha:sensor.bed_soil',
      'ha:sensor.garden_soil',
      'source:console:soil_moisture_pct:1',
      'source:console:soil_moisture_pct:2',
    ]);
    expect(ids(roles.rain!)).toContain('ha:sensor.rain_rate');
    expect(ids(roles.humidity!)).toContain('source:console:rh_pct');
    expect(ids(roles.valve_or_switch!)).toEqual(['ha:switch.drip_valve', 'ha:valve.main_line']);
    for (const list of Object.values(roles)) {
      expect(ids(list)).toEqual([...ids(list)].sort((a, b) => a.localeCompare(b)));
    }
    const all = Object.values(roles).flatMap(ids);
    expect(all).not.toContain('ha:sensor.kitchen_power');
    expect(all).not.toContain('ha:binary_sensor.basement_leak');
    // Not a role a picker asks for.
    expect(all).not.toContain('source:shed:leaf_wetness_pct');
    expect(new Set(all).size).toBe(all.length);
  });

  it('keeps the local channels and says so when HA is down', async () => {
    const { server, peer } = await bootWithHa();
    await peer.close();
    peers.splice(0);
    const discovered = async (): Promise<{ ha_reachable: boolean; roles: Record<string, Entity[]> }> =>
      (await request(server).get('/api/v1/sensors/discovered').expect(200)).body;
    const deadline = Date.now() + 10_000;
    let body = await discovered();
    while (body.ha_reachable !== false && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      body = await discovered();
    }
    expect(body.ha_reachable).toBe(false);
    const all = Object.values(body.roles).flatMap(ids);
    expect(all.filter((id) => id.startsWith('ha:'))).toEqual([]);
    expect(all).toContain('source:console:soil_moisture_pct:1');
    const soil = await request(server).get('/api/v1/sensors/soil').expect(200);
    expect(soil.body.ha_reachable).toBe(false);
    expect(ids(soil.body.sensors)).toEqual([
      'source:console:soil_moisture_pct:1',
      'source:console:soil_moisture_pct:2',
    ]);
  });

  it('answers the local part alone on a standalone install', async () => {
    const booted = await services.boot({ configToml: CONFIG });
    await feedLocalSources(booted.service.server);
    const res = await request(booted.service.server).get('/api/v1/sensors/discovered').expect(200);
    expect(res.body.ha_configured).toBe(false);
    expect(res.body.ha_reachable).toBe(false);
    expect(ids(res.body.roles.temperature)).toEqual([
      'source:console:air_temp_f',
      'source:console:temp_f:1',
      'source:shed:air_temp_f',
    ]);
  });
});

describe('without the database', () => {
  it('does not mount the sensors routes (404)', async () => {
    const dataDir = makeDataDir();
    fs.mkdirSync(path.join(dataDir, 'raincheck.db'));
    const { service } = await services.boot({ dataDir, configToml: CONFIG });
    expect(service.store).toBeNull();
    for (const route of ['/api/v1/sensors/soil', '/api/v1/sensors/discovered', '/api/sensors/soil']) {
      const res = await request(service.server).get(route).expect(404);
      expect(res.body.code).toBe('not_found');
    }
    await request(service.server).get('/api/v1/devices').expect(200);
  });
});

describe('GET /sensors/manifest', () => {
  it('serves the entity catalog as manifest 1.6 with the server ranges, gated by capability', async () => {
    const booted = await services.boot({ env: { DEMO: '1' } });
    const res = await request(booted.service.server).get('/api/v1/sensors/manifest').expect(200);
    const parsed = manifestSchema.safeParse(res.body);
    expect(parsed.success ? [] : parsed.error.issues.slice(0, 3)).toEqual([]);
    expect(res.body.schema_version).toBe('1.6');
    const byKey = new Map(res.body.entities.map((e: { key: string }) => [e.key, e]));
    expect(byKey.get('threshold_max_wind_mph')).toMatchObject({ platform: 'number', min: 0, max: 50 });
    expect(byKey.get('threshold_min_temp_f')).toMatchObject({ min: 20, max: 70 });
    expect(byKey.get('threshold_rain_skip_in')).toMatchObject({ min: 0, max: 10 });
    // The demo's dry-run controller reports no water level: no such entity.
    expect(byKey.has('water_level')).toBe(false);
    const snapshot = (await request(booted.service.server).get('/api/v1/irrigation/snapshot')).body;
    for (const zone of snapshot.zones as { slug: string; bucket_mm: number | null }[]) {
      expect(byKey.get(`zone_${zone.slug}_valve`)).toMatchObject({
        platform: 'valve',
        device_class: 'water',
        commands: true,
      });
      // The bucket sensor exists exactly while the zone has a deficit.
      expect(byKey.has(`zone_${zone.slug}_bucket`)).toBe(zone.bucket_mm !== null && zone.bucket_mm < 0);
    }
  });

  it('answers 409 config_absent before a config exists', async () => {
    const booted = await services.boot();
    const res = await request(booted.service.server).get('/api/v1/sensors/manifest').expect(409);
    expect(res.body.code).toBe('config_absent');
  });
});
