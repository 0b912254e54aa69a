import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { connectAsync, type MqttClient } from 'mqtt';
import pino from 'pino';
import request from 'supertest';
import { ManualClock, type Clock } from '../../server/src/core/clock';
import { REPOSITORY, SERVICE_VERSION } from '../../server/src/core/version';
import { entityCatalog, HA_DEFAULT_RUN_SECONDS } from '../../server/src/ha/entities/catalog';
import type { CatalogView, EntityDescriptor } from '../../server/src/ha/entities/descriptor';
import { MqttPublisher } from '../../server/src/ha/mqtt/publisher';
import { mqttSettingsFrom } from '../../server/src/ha/mqtt/settings';
import { TopicLayout } from '../../server/src/ha/mqtt/topics';
import { EventBus } from '../../server/src/core/bus';
import { systemClock } from '../../server/src/core/clock';
import type { ActionOutcome } from '../../server/src/irrigation/action-executor';
import type { WeatherSnapshot } from '../../server/src/weather/snapshot';
import { catalogViewFixture } from '../helpers/catalog-fixtures';
import { neutralControls } from '../../server/src/irrigation/controls/types';
import type { IrrigationSnapshot } from '../../server/src/irrigation/snapshot-schema';
import { waitFor } from '../helpers/ha-peer';
import { startMosquitto, type MosquittoBroker } from '../helpers/mosquitto';
import { exited, spawnService } from '../helpers/process';
import { quietDemoClock, serviceTracker, type BootedService } from '../helpers/service';

/**
 * Home Assistant MQTT discovery and commands through the real service (DEMO=1:
 * six zones on a dry-run controller) against a real Mosquitto broker. The
 * broker settings come from the add-on's environment (MQTT_HOST, MQTT_PORT).
 * A test client subscribed to `homeassistant/#` and `raincheck/#` plays Home
 * Assistant; a late subscriber reads what the broker keeps retained.
 */

interface Seen {
  topic: string;
  payload: string;
  at: number;
}

interface Mqtt {
  booted: BootedService;
  topics: TopicLayout;
  logs: string[];
}

const services = serviceTracker();
let broker: MosquittoBroker;
let observer: MqttClient;
let seen: Seen[] = [];

beforeAll(async () => {
  broker = await startMosquitto();
  observer = await connectAsync(broker.url, { clientId: 'test-ha', reconnectPeriod: 0 });
  observer.on('message', (topic, payload) =>
    seen.push({ topic, payload: payload.toString(), at: Date.now() }),
  );
  await observer.subscribeAsync(['homeassistant/#', 'raincheck/#'], { qos: 1 });
});

afterAll(async () => {
  await observer?.endAsync(true);
  await broker?.stop();
});

beforeEach(() => {
  seen = [];
});

/** Boots the demo with MQTT from the environment; resolves once the first full publish arrived. */
async function bootDemo(
  options: { delayMs?: number; clock?: Clock; env?: Record<string, string>; dataDir?: string } = {},
): Promise<Mqtt> {
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(chunk.toString());
      done();
    },
  });
  const booted = await services.boot({
    dataDir: options.dataDir,
    env: { DEMO: '1', MQTT_HOST: '127.0.0.1', MQTT_PORT: String(broker.port), ...options.env },
    serviceOptions: {
      logger: pino({ level: 'info' }, sink),
      mqttRepublishDelayMs: () => options.delayMs ?? 20,
      ...(options.clock ? { clock: options.clock } : {}),
    },
  });
  const topics = new TopicLayout(installIdOf(booted.dataDir), 'homeassistant');
  await waitFor(() => last(topics.state('pause')) !== undefined, 'the first full publish');
  await ledgerFilled(booted);
  await quiet();
  return { booted, topics, logs };
}

/** The demo's first start backfills its weather record; the soil ledger (and the zones' buckets) follow. */
async function ledgerFilled(booted: BootedService): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const res = await request(booted.service.server).get('/api/v1/irrigation/soil?zone=front_lawn&days=30');
    if (res.status === 200 && res.body.rows.length === 30) return;
    if (Date.now() > deadline) throw new Error('the soil ledger did not fill');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function installIdOf(dataDir: string): string {
  return fs.readFileSync(path.join(dataDir, 'install-id'), 'utf8').trim();
}

/** The last payload seen on a topic (undefined: none yet). */
function last(topic: string): string | undefined {
  return seen.filter((m) => m.topic === topic).at(-1)?.payload;
}

/** Resolves once no message arrived for a while. */
async function quiet(ms = 250): Promise<void> {
  let count = -1;
  while (count !== seen.length) {
    count = seen.length;
    await new Promise((resolve) => setTimeout(resolve, ms));
  }
}

/** What the broker keeps retained under a filter, as a late subscriber sees it. */
async function retained(filter: string): Promise<Map<string, string>> {
  const client = await connectAsync(broker.url, { clientId: `test-late-${seen.length}`, reconnectPeriod: 0 });
  const found = new Map<string, string>();
  try {
    client.on('message', (topic, payload, packet) => {
      if (packet.retain) found.set(topic, payload.toString());
    });
    await client.subscribeAsync(filter, { qos: 1 });
    let count = -1;
    while (count !== found.size) {
      count = found.size;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    await client.endAsync(true);
  }
  return found;
}

async function snapshot(booted: BootedService): Promise<IrrigationSnapshot> {
  return (await request(booted.service.server).get('/api/v1/irrigation/snapshot').expect(200))
    .body as IrrigationSnapshot;
}

/** The catalog as the service sees it now (controls do not change which entities exist). */
async function liveCatalog(booted: BootedService): Promise<EntityDescriptor[]> {
  const irrigation = await snapshot(booted);
  const config = booted.service.config.current?.config;
  if (!config) throw new Error('no config');
  const view: CatalogView = {
    config,
    irrigation,
    verdict: null,
    reason: null,
    weather: irrigation.current_weather,
    controls: neutralControls(),
  };
  return entityCatalog(view);
}

function send(topics: TopicLayout, key: string, payload: string): Promise<unknown> {
  return observer.publishAsync(topics.command(key), payload, { qos: 1 });
}

async function until(
  check: () => Promise<boolean> | boolean,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function zone(s: IrrigationSnapshot, slug: string) {
  const found = s.zones.find((z) => z.slug === slug);
  if (!found) throw new Error(`no zone ${slug}`);
  return found;
}

function json(text: string | undefined): Record<string, unknown> {
  return JSON.parse(text ?? 'null') as Record<string, unknown>;
}

describe('discovery', () => {
  it('publishes a retained config for every catalog entity with identity, device, origin and availability', async () => {
    const { booted, topics } = await bootDemo();
    const entities = await liveCatalog(booted);
    const configs = await retained(topics.allConfigs);
    expect([...configs.keys()].sort()).toEqual(entities.map((e) => topics.config(e.platform, e.key)).sort());
    expect(entities.length).toBeGreaterThan(40);

    const serviceDevice = `raincheck_${topics.installId}`;
    for (const entity of entities) {
      const payload = json(configs.get(topics.config(entity.platform, entity.key)));
      expect(payload).toMatchObject({
        name: entity.name,
        unique_id: `raincheck_${topics.installId}_${entity.key}`,
        object_id: `raincheck_${entity.key}`,
        default_entity_id: `${entity.platform}.raincheck_${entity.key}`,
        origin: { name: 'Raincheck', sw: SERVICE_VERSION, url: REPOSITORY },
        availability: [
          { topic: topics.status, payload_available: 'online', payload_not_available: 'offline' },
        ],
      });
      expect(payload.state_topic).toBe(entity.platform === 'button' ? undefined : topics.state(entity.key));
      expect(payload.command_topic).toBe(entity.command ? topics.command(entity.key) : undefined);
    }

    const config = (platform: EntityDescriptor['platform'], key: string) =>
      json(configs.get(topics.config(platform, key)));
    expect(config('switch', 'pause')).toMatchObject({
      device: {
        identifiers: [serviceDevice],
        name: 'Raincheck',
        manufacturer: 'Raincheck',
        model: 'Raincheck service',
        sw_version: SERVICE_VERSION,
      },
      payload_on: 'ON',
      payload_off: 'OFF',
      state_on: 'ON',
      state_off: 'OFF',
    });
    expect(config('sensor', 'weather_air_temp_f')).toMatchObject({
      device_class: 'temperature',
      unit_of_measurement: '°F',
      state_class: 'measurement',
    });
    expect(config('sensor', 'next_run')).toMatchObject({ device_class: 'timestamp' });
    expect(config('sensor', 'zone_front_lawn_planned')).toMatchObject({
      device_class: 'duration',
      unit_of_measurement: 's',
    });
    const ranges = ['max_wind_mph', 'min_temp_f', 'rain_skip_in'].map((key) => {
      const { min, max, step, mode } = config('number', `threshold_${key}`);
      return { key, min, max, step, mode };
    });
    expect(ranges).toEqual([
      { key: 'max_wind_mph', min: 0, max: 50, step: 0.5, mode: 'box' },
      { key: 'min_temp_f', min: 20, max: 70, step: 1, mode: 'box' },
      { key: 'rain_skip_in', min: 0, max: 10, step: 0.01, mode: 'box' },
    ]);
    expect(config('valve', 'zone_front_lawn_valve')).toMatchObject({
      device_class: 'water',
      payload_open: 'OPEN',
      payload_close: 'CLOSE',
      state_open: 'open',
      state_closed: 'closed',
      reports_position: false,
      device: {
        identifiers: [`${serviceDevice}_controller_demo_controller`],
        name: 'demo_controller (dry_run)',
        via_device: serviceDevice,
      },
    });
    expect(config('button', 'zone_front_lawn_run')).toMatchObject({ payload_press: 'PRESS' });
    expect(config('select', 'global_override').options).toEqual(['auto', 'skip', 'run']);
    expect(config('select', 'override_tomorrow').options).toEqual(['none', 'skip', 'run']);
    expect(config('select', 'zone_back_lawn_override').options).toEqual(['auto', 'skip', 'run']);
  });

  it('keeps availability online and every state retained', async () => {
    const { booted, topics } = await bootDemo();
    const entities = await liveCatalog(booted);
    const kept = await retained(`raincheck/${topics.installId}/#`);
    expect(kept.get(topics.status)).toBe('online');
    const withState = entities.filter((e) => e.state);
    expect([...kept.keys()].filter((t) => t.endsWith('/state')).sort()).toEqual(
      withState.map((e) => topics.state(e.key)).sort(),
    );
    const skipRules = booted.service.config.current?.config.engine.skip_rules;
    expect(kept.get(topics.state('pause'))).toBe('OFF');
    expect(kept.get(topics.state('global_override'))).toBe('auto');
    expect(kept.get(topics.state('threshold_min_temp_f'))).toBe(String(skipRules?.min_temp_f));
    expect(kept.get(topics.state('zone_xeriscape_valve'))).toBe('closed');
    // Never run: unknown, published as None.
    expect(kept.get(topics.state('zone_xeriscape_last_run'))).toBe('None');
    expect(Number(kept.get(topics.state('weather_air_temp_f')))).not.toBeNaN();
  });

  it('says offline (retained) when the service stops', async () => {
    const { booted, topics } = await bootDemo();
    await booted.service.stop();
    await waitFor(() => last(topics.status) === 'offline', 'offline');
    expect((await retained(topics.status)).get(topics.status)).toBe('offline');
  });

  it('republishes discovery, then states, after the delay when Home Assistant sends its birth message', async () => {
    const delayMs = 400;
    const { booted, topics } = await bootDemo({ delayMs });
    const entities = await liveCatalog(booted);
    seen = [];
    const sentAt = Date.now();
    await observer.publishAsync('homeassistant/status', 'online', { qos: 1 });
    const mine = () => seen.filter((m) => m.topic.includes(topics.installId));
    await waitFor(
      () => mine().filter((m) => m.topic.endsWith('/config')).length >= entities.length,
      'the republished configs',
    );
    await quiet();
    const burst = mine();
    const isConfig = burst.map((m) => m.topic.endsWith('/config'));
    const firstConfig = isConfig.indexOf(true);
    const lastConfig = isConfig.lastIndexOf(true);
    expect(burst[firstConfig]?.at).toBeGreaterThanOrEqual(sentAt + delayMs - 20);
    // One burst: every config, then every state.
    expect(isConfig.slice(firstConfig, lastConfig + 1).every(Boolean)).toBe(true);
    expect(lastConfig - firstConfig + 1).toBe(entities.length);
    const states = burst.slice(lastConfig + 1).filter((m) => m.topic.endsWith('/state'));
    expect(new Set(states.map((m) => m.topic))).toEqual(
      new Set(entities.filter((e) => e.state).map((e) => topics.state(e.key))),
    );
  });

  it('removes the bucket sensor only: empty retained config and state when the deficit is gone', async () => {
    // A pinned clock two days after the showery week's last storm (day 8 of the demo's 16-day
    // cycle): the backfilled soil ledger knows every zone's deficit, front lawn and side strip included.
    const { booted, topics } = await bootDemo({ clock: new ManualClock(Date.UTC(2025, 0, 16, 16)) });
    const before = await snapshot(booted);
    const configs = await retained(topics.allConfigs);
    const dry = before.zones
      .filter((z) => typeof z.bucket_mm === 'number' && z.bucket_mm < 0)
      .map((z) => z.slug);
    expect(dry).toEqual(expect.arrayContaining(['front_lawn', 'side_strip']));
    for (const z of before.zones) {
      expect([z.slug, configs.has(topics.config('sensor', `zone_${z.slug}_bucket`))]).toEqual([
        z.slug,
        dry.includes(z.slug),
      ]);
    }
    expect(last(topics.state('zone_side_strip_bucket'))).toBe(String(zone(before, 'side_strip').bucket_mm));

    // Without a soil texture the zone has no bucket at all: the deficit is gone.
    const doc = (await request(booted.service.server).get('/api/v1/config').expect(200)).body;
    delete doc.zones.side_strip.soil_texture;
    await request(booted.service.server).put('/api/v1/config').send(doc).expect(200);
    await waitFor(() => last(topics.config('sensor', 'zone_side_strip_bucket')) === '', 'the bucket removal');
    await waitFor(() => last(topics.state('zone_side_strip_bucket')) === '', 'the bucket state removal');
    expect(zone(await snapshot(booted), 'side_strip').bucket_mm).toBeNull();
    const after = await retained(`homeassistant/+/${topics.nodeId}/+/config`);
    expect(after.has(topics.config('sensor', 'zone_side_strip_bucket'))).toBe(false);
    expect(after.has(topics.config('sensor', 'zone_side_strip_planned'))).toBe(true);
    expect(after.has(topics.config('sensor', 'zone_front_lawn_bucket'))).toBe(true);
    expect((await retained(topics.state('zone_side_strip_bucket'))).size).toBe(0);
  });

  it('removes every entity of a deleted zone with empty retained config and state payloads', async () => {
    const { booted, topics } = await bootDemo();
    const entities = (await liveCatalog(booted)).filter((e) => e.zone === 'vegetables');
    // Planned seconds, the bucket (known once the backfilled ledger is in) and the rest.
    expect(entities.map((e) => e.platform).sort()).toEqual([
      'button',
      'select',
      'sensor',
      'sensor',
      'sensor',
      'valve',
    ]);
    const doc = (await request(booted.service.server).get('/api/v1/config').expect(200)).body;
    delete doc.zones.vegetables;
    await request(booted.service.server).put('/api/v1/config').send(doc).expect(200);

    const expected = entities.flatMap((e) => [
      topics.config(e.platform, e.key),
      ...(e.state ? [topics.state(e.key)] : []),
    ]);
    await waitFor(() => expected.every((topic) => last(topic) === ''), 'the removals');
    const kept = await retained(`#`);
    expect(expected.filter((topic) => kept.has(topic))).toEqual([]);
    expect(kept.has(topics.config('valve', 'zone_xeriscape_valve'))).toBe(true);
  });

  it('removes everything it published when features.enable_mqtt_publish is turned off', async () => {
    const { booted, topics } = await bootDemo();
    const before = await retained(topics.allConfigs);
    expect(before.size).toBeGreaterThan(40);
    const doc = (await request(booted.service.server).get('/api/v1/config').expect(200)).body;
    doc.features = { ...doc.features, enable_mqtt_publish: false };
    await request(booted.service.server).put('/api/v1/config').send(doc).expect(200);
    await waitFor(() => [...before.keys()].every((topic) => last(topic) === ''), 'the removals');
    await quiet();
    expect((await retained(topics.allConfigs)).size).toBe(0);
    expect([...(await retained(`raincheck/${topics.installId}/+/state`)).keys()]).toEqual([]);
  });

  it('removes configs an earlier run left retained that are no longer in the catalog', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'raincheck-mqtt-'));
    const installId = '5a0c3a51-2d4b-4f6e-9a52-0b4d1e0f7c21';
    fs.writeFileSync(path.join(dataDir, 'install-id'), `${installId}\n`);
    const topics = new TopicLayout(installId, 'homeassistant');
    const stale = topics.config('sensor', 'zone_gone_bucket');
    await observer.publishAsync(stale, '{"name":"gone"}', { qos: 1, retain: true });
    await observer.publishAsync(topics.state('zone_gone_bucket'), '-2', { qos: 1, retain: true });
    await services.boot({
      dataDir,
      env: { DEMO: '1', MQTT_HOST: '127.0.0.1', MQTT_PORT: String(broker.port) },
      serviceOptions: { mqttRepublishDelayMs: () => 100 },
    });
    await waitFor(() => last(stale) === '', 'the stale config removal');
    const kept = await retained(`#`);
    expect(kept.has(stale)).toBe(false);
    expect(kept.has(topics.state('zone_gone_bucket'))).toBe(false);
    expect(kept.has(topics.config('switch', 'pause'))).toBe(true);
  });
});

describe('last will', () => {
  it('the broker publishes offline (retained) when the service process is killed', async () => {
    const built = path.join(__dirname, '..', '..', 'dist', 'server', 'src', 'ha', 'mqtt', 'publisher.js');
    if (!fs.existsSync(built)) throw new Error('dist/ has no MQTT publisher: run `npm run build` first');
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'raincheck-mqtt-will-'));
    const { child } = await spawnService(dataDir, {
      DEMO: '1',
      MQTT_HOST: '127.0.0.1',
      MQTT_PORT: String(broker.port),
    });
    try {
      const status = new TopicLayout(installIdOf(dataDir), 'homeassistant').status;
      await waitFor(() => last(status) === 'online', 'online', 10_000);
      child.kill('SIGKILL');
      expect(await exited(child)).toBeNull();
      await waitFor(() => last(status) === 'offline', 'the last will');
      expect((await retained(status)).get(status)).toBe('offline');
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited(child);
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 30_000);
});

describe('commands', () => {
  it('pause switch ON / OFF pauses and resumes; the state follows', async () => {
    const { booted, topics } = await bootDemo();
    await send(topics, 'pause', 'ON');
    await until(async () => (await snapshot(booted)).skip_check.is_paused === true, 'paused');
    await waitFor(() => last(topics.state('pause')) === 'ON', 'the ON state');
    await send(topics, 'pause', 'OFF');
    await until(async () => (await snapshot(booted)).skip_check.is_paused === false, 'resumed');
    await waitFor(() => last(topics.state('pause')) === 'OFF', 'the OFF state');
  });

  it('selects and numbers set the controls; an out-of-range threshold changes nothing and is logged', async () => {
    const { booted, topics, logs } = await bootDemo();
    const controls = booted.service.store?.controls;
    await send(topics, 'global_override', 'skip');
    await send(topics, 'zone_back_lawn_override', 'run');
    await send(topics, 'override_tomorrow', 'skip');
    await send(topics, 'threshold_max_wind_mph', '25');
    await waitFor(() => last(topics.state('threshold_max_wind_mph')) === '25', 'the threshold state');
    expect(controls?.get('global_override')).toBe('skip');
    expect(controls?.get('zone_override:back_lawn')).toBe('run');
    expect(controls?.get('threshold:max_wind_mph')).toBe(25);
    expect(last(topics.state('global_override'))).toBe('skip');
    expect(last(topics.state('zone_back_lawn_override'))).toBe('run');
    expect((await snapshot(booted)).override_tomorrow).toBe('skip');
    expect(last(topics.state('override_tomorrow'))).toBe('skip');

    await send(topics, 'threshold_max_wind_mph', '51');
    await waitFor(() => logs.some((l) => l.includes('threshold_out_of_range')), 'the refusal log');
    const line = JSON.parse(logs.find((l) => l.includes('threshold_out_of_range')) ?? '{}');
    expect(line).toMatchObject({ msg: 'mqtt command failed', key: 'threshold_max_wind_mph', payload: '51' });
    expect(controls?.get('threshold:max_wind_mph')).toBe(25);
    expect(last(topics.state('threshold_max_wind_mph'))).toBe('25');
  });

  it('valve OPEN runs the zone (dry run) and CLOSE stops it; the run button runs', async () => {
    const { booted, topics } = await bootDemo({ clock: quietDemoClock() });
    await send(topics, 'zone_front_lawn_valve', 'OPEN');
    await until(async () => zone(await snapshot(booted), 'front_lawn').running, 'front lawn running');
    await waitFor(() => last(topics.state('zone_front_lawn_valve')) === 'open', 'the open state');
    // The dry-run controller's request row: the HA default run time.
    const rows = booted.service.store?.runs.listWindow(0, 4_102_444_800, 'front_lawn') ?? [];
    expect(rows.map((r) => r.source)).toEqual([expect.stringMatching(/^dry_run/)]);
    const manual = rows[0];
    expect(manual?.duration_s).toBe(HA_DEFAULT_RUN_SECONDS);
    await send(topics, 'zone_front_lawn_valve', 'CLOSE');
    await until(async () => !zone(await snapshot(booted), 'front_lawn').running, 'front lawn stopped');
    await waitFor(() => last(topics.state('zone_front_lawn_valve')) === 'closed', 'the closed state');

    await send(topics, 'zone_back_lawn_run', 'PRESS');
    await until(async () => zone(await snapshot(booted), 'back_lawn').running, 'back lawn running');
    await waitFor(() => last(topics.state('zone_back_lawn_valve')) === 'open', 'the back lawn open state');
    await send(topics, 'zone_back_lawn_valve', 'CLOSE');
    await until(async () => !zone(await snapshot(booted), 'back_lawn').running, 'back lawn stopped');
  });

  it('pause_until takes an ISO time; 0 clears it', async () => {
    const { booted, topics } = await bootDemo();
    // A month ahead, whole seconds (a pause may reach 366 days ahead).
    const pauseEnd = new Date(Math.floor(Date.now() / 1000 + 30 * 86400) * 1000).toISOString();
    await send(topics, 'pause_until', pauseEnd);
    await until(
      async () => (await snapshot(booted)).pause_until_epoch === Date.parse(pauseEnd) / 1000,
      'the timed pause',
    );
    await waitFor(() => last(topics.state('pause_until')) === pauseEnd, 'the pause_until state');
    expect((await snapshot(booted)).skip_check.is_paused).toBe(true);
    await send(topics, 'pause_until', '0');
    await until(async () => (await snapshot(booted)).pause_until_epoch === 0, 'the cleared pause');
    await waitFor(() => last(topics.state('pause_until')) === 'None', 'the cleared state');
  });

  it('a command that is not understood, for an unknown entity, or retained changes nothing and is logged', async () => {
    // A retained command left on the broker must not run when the service connects.
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'raincheck-mqtt-'));
    const installId = 'c6a3b8e2-7f1d-4e0a-b5c9-2d8e4f6a1b3c';
    fs.writeFileSync(path.join(dataDir, 'install-id'), `${installId}\n`);
    const retainedCommand = new TopicLayout(installId, 'homeassistant').command('pause');
    await observer.publishAsync(retainedCommand, 'ON', { qos: 1, retain: true });
    try {
      // A quiet demo day: nothing the scheduler runs can make front lawn read running.
      const { booted, topics, logs } = await bootDemo({ dataDir, clock: quietDemoClock() });
      const controls = booted.service.store?.controls;
      const before = controls?.all();
      await send(topics, 'pause', 'MAYBE');
      await send(topics, 'zone_front_lawn_valve', 'open');
      await send(topics, 'threshold_min_temp_f', 'warm');
      await send(topics, 'next_run', '2030-01-01T00:00:00Z');
      await send(topics, 'no_such_entity', 'ON');
      // Commands run in order: once this one shows, the ones before it were handled.
      await send(topics, 'threshold_min_temp_f', '41');
      await waitFor(() => last(topics.state('threshold_min_temp_f')) === '41', 'the sentinel command');
      const notUnderstood = logs
        .filter((l) => l.includes('mqtt command not understood'))
        .map((l) => JSON.parse(l) as { key: string; payload: string; level: number });
      expect(notUnderstood.map(({ key, payload }) => [key, payload])).toEqual([
        ['pause', 'MAYBE'],
        ['zone_front_lawn_valve', 'open'],
        ['threshold_min_temp_f', 'warm'],
      ]);
      expect(notUnderstood.every((l) => l.level === 40)).toBe(true);
      expect(logs.filter((l) => l.includes('an entity that takes none')).length).toBe(2);
      expect(logs.some((l) => l.includes('ignoring a retained mqtt command'))).toBe(true);
      const after = controls?.all() ?? {};
      expect({ ...after, 'threshold:min_temp_f': undefined }).toEqual({
        ...before,
        'threshold:min_temp_f': undefined,
      });
      const s = await snapshot(booted);
      expect(s.skip_check.is_paused).toBe(false);
      expect(zone(s, 'front_lawn').running).toBe(false);
      expect(last(topics.state('pause'))).toBe('OFF');
    } finally {
      await observer.publishAsync(retainedCommand, '', { qos: 1, retain: true });
    }
  });
});

describe('broker problems', () => {
  it('a broker that is down does not fail the start; health is degraded until a config points at a live one', async () => {
    const own = await startMosquitto();
    const deadPort = String(own.port);
    await own.stop();
    const booted = await services.boot({
      env: { DEMO: '1', MQTT_HOST: '127.0.0.1', MQTT_PORT: deadPort },
      serviceOptions: { mqttRepublishDelayMs: () => 20 },
    });
    const mqttHealth = async () =>
      (await request(booted.service.server).get('/api/v1/health')).body as {
        subsystems: { mqtt: string };
        notes?: { mqtt?: string };
      };
    await until(async () => (await mqttHealth()).subsystems.mqtt === 'degraded', 'degraded health');
    expect((await mqttHealth()).notes?.mqtt).toContain(`127.0.0.1:${deadPort}`);

    // The config's block wins over the environment and is applied without a restart.
    const doc = (await request(booted.service.server).get('/api/v1/config').expect(200)).body;
    doc.notifications = { mqtt: { host: '127.0.0.1', port: broker.port, subscribe_enabled: true } };
    await request(booted.service.server).put('/api/v1/config').send(doc).expect(200);
    const topics = new TopicLayout(installIdOf(booted.dataDir), 'homeassistant');
    await waitFor(() => last(topics.state('pause')) === 'OFF', 'the publish after the config change');
    expect((await mqttHealth()).subsystems.mqtt).toBe('ok');
    await send(topics, 'pause', 'ON');
    await waitFor(() => last(topics.state('pause')) === 'ON', 'a command on the new connection');
  });

  it('refused credentials are logged without the password', async () => {
    const own = await startMosquitto({ users: [{ username: 'raincheck', password: 'right-pw-77' }] });
    try {
      const logs: string[] = [];
      const sink = new Writable({
        write(chunk: Buffer, _encoding, done) {
          logs.push(chunk.toString());
          done();
        },
      });
      const booted = await services.boot({
        env: {
          DEMO: '1',
          MQTT_HOST: '127.0.0.1',
          MQTT_PORT: String(own.port),
          MQTT_USERNAME: 'raincheck',
          MQTT_PASSWORD: 'wrong-pw-4471',
        },
        serviceOptions: { logger: pino({ level: 'trace' }, sink) },
      });
      await waitFor(() => logs.some((l) => l.includes('MQTT client error')), 'the refusal');
      const health = (await request(booted.service.server).get('/api/v1/health')).body;
      expect(health.subsystems.mqtt).toBe('degraded');
      expect(logs.join('')).not.toContain('wrong-pw-4471');
      expect(JSON.stringify(health)).not.toContain('wrong-pw-4471');
    } finally {
      await own.stop();
    }
  });
});

describe('the publisher on its own (fake services, real broker)', () => {
  const installId = '3e1f7a52-8c4d-4b6a-9e0f-1a2b3c4d5e6f';
  const topics = new TopicLayout(installId, 'homeassistant');
  let publisher: MqttPublisher | null = null;
  afterEach(async () => {
    await publisher?.stop();
    publisher = null;
  });

  function start(executor: (body: unknown) => Promise<ActionOutcome>) {
    const bus = new EventBus();
    const logs: string[] = [];
    const state = { temp: 70, paused: false };
    publisher = new MqttPublisher({
      bus,
      clock: systemClock,
      logger: pino(
        { level: 'info' },
        new Writable({
          write(chunk: Buffer, _encoding, done) {
            logs.push(chunk.toString());
            done();
          },
        }),
      ),
      settings: () => mqttSettingsFrom(null, { MQTT_HOST: '127.0.0.1', MQTT_PORT: String(broker.port) }),
      installId,
      version: '1.2.3',
      view: () => catalogViewFixture({ weather: { air_temp_f: state.temp }, paused: state.paused }),
      executor: { execute: executor },
      republishDelayMs: () => 10,
    });
    return { bus, logs, state };
  }

  it('coalesces weather states to one publish per 10 s; irrigation states go out at once', async () => {
    const { bus, state } = start(async () => ({ ok: true, body: {} }));
    await publisher?.start();
    await waitFor(() => last(topics.state('weather_air_temp_f')) === '70', 'the first full publish');
    await quiet(100);
    const weatherStates = () => seen.filter((m) => m.topic === topics.state('weather_air_temp_f')).length;
    const before = weatherStates();
    for (let i = 1; i <= 20; i++) {
      state.temp = 70 + i;
      bus.emit('weather.snapshot', {} as WeatherSnapshot);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await waitFor(() => weatherStates() > before, 'a weather state');
    state.paused = true;
    bus.emit('irrigation.snapshot', {} as IrrigationSnapshot);
    await waitFor(() => last(topics.state('pause')) === 'ON', 'the irrigation state');
    await quiet(300);
    // The first event flushed at once; the other 19 wait for the 10 s window.
    expect(weatherStates()).toBe(before + 1);
    expect(last(topics.state('weather_air_temp_f'))).toBe('71');
  });

  it('passes command bodies to the executor, logs failures with their code, republishes states after success', async () => {
    const bodies: unknown[] = [];
    const { logs, state } = start(async (body) => {
      bodies.push(body);
      if ((body as { kind: string }).kind === 'run')
        return { ok: false, status: 502, code: 'controller_unreachable', message: 'no answer', extra: {} };
      state.paused = true;
      return { ok: true, body: { ok: true } };
    });
    await publisher?.start();
    await waitFor(() => last(topics.state('pause')) === 'OFF', 'the first full publish');
    await send(topics, 'zone_front_lawn_valve', 'OPEN');
    await waitFor(() => logs.some((l) => l.includes('controller_unreachable')), 'the failure log');
    expect(JSON.parse(logs.find((l) => l.includes('controller_unreachable')) ?? '{}')).toMatchObject({
      msg: 'mqtt command failed',
      key: 'zone_front_lawn_valve',
      code: 'controller_unreachable',
      status: 502,
      level: 40,
    });
    await send(topics, 'pause', 'ON');
    // No bus event announces this change: the publisher republishes after the success itself.
    await waitFor(() => last(topics.state('pause')) === 'ON', 'the state after the command');
    expect(bodies).toEqual([
      { kind: 'run', zone: 'front_lawn', seconds: HA_DEFAULT_RUN_SECONDS },
      { kind: 'toggle', key: 'irrigation_pause', on: true },
    ]);
    expect(publisher?.health()).toEqual({ status: 'ok', note: null });
  });
});
