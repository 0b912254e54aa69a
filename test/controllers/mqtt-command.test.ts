import net from 'node:net';
import { Writable } from 'node:stream';
import { connectAsync, type MqttClient } from 'mqtt';
import pino, { type Logger } from 'pino';
import {
  mqttCommandKind,
  type MqttCommandController,
} from '../../server/src/controllers/adapters/mqtt-command';
import { ControllerError } from '../../server/src/controllers/errors';
import { ManualClock } from '../../server/src/core/clock';
import { waitFor } from '../helpers/ha-peer';
import { rejection } from '../helpers/loopback-peer';
import { freeLoopbackPort, startMosquitto, type MosquittoBroker } from '../helpers/mosquitto';

/**
 * The MQTT command adapter against a real Mosquitto broker (test/helpers/
 * mosquitto.ts): a second client in the test watches the command topics and
 * plays the valve's state topics. The broker requires a password, so bad
 * credentials are refused by the broker itself (mosquitto_passwd file).
 * The PUBACK timeout uses a tiny fake broker that accepts the connection and
 * never acknowledges, since a real broker always does.
 */

const T0_MS = Date.UTC(2025, 5, 1, 12, 0, 0);
const USER = { username: 'raincheck', password: 'pw-9f2c-s3cret' };

interface Seen {
  topic: string;
  payload: string;
  retain: boolean;
}

let broker: MosquittoBroker;
let observer: MqttClient;
let seen: Seen[] = [];
let clock: ManualClock;
let notified = 0;
const adapters: MqttCommandController[] = [];
let nextId = 0;

beforeAll(async () => {
  broker = await startMosquitto({ users: [USER] });
  observer = await connectAsync(broker.url, { ...USER, clientId: 'test-observer', reconnectPeriod: 0 });
  observer.on('message', (topic, payload, packet) =>
    seen.push({ topic, payload: payload.toString(), retain: packet.retain }),
  );
  await observer.subscribeAsync('garden/#', { qos: 1 });
});

afterAll(async () => {
  await observer?.endAsync(true);
  await broker?.stop();
});

beforeEach(() => {
  seen = [];
  notified = 0;
  clock = new ManualClock(T0_MS);
});

afterEach(async () => {
  await Promise.all(adapters.splice(0).map((adapter) => adapter.stop()));
});

const zoneMap = {
  front: {
    command_topic: 'garden/front/set',
    run_payload: '{"state":"ON","duration":{seconds},"minutes":{minutes},"zone":"{station}"}',
    state_topic: 'garden/front/state',
  },
  back: { command_topic: 'garden/back/set' },
};

function makeAdapter(overrides: Record<string, unknown> = {}, logger: Logger = pino({ level: 'silent' })) {
  const config = mqttCommandKind.configSchema.parse({
    broker_host: '127.0.0.1',
    broker_port: broker.port,
    ...USER,
    zone_command_map: zoneMap,
    ...overrides,
  });
  const id = `valves-${++nextId}`;
  const adapter = mqttCommandKind.create({
    id,
    config,
    logger,
    clock,
    fetch,
    stations: Object.keys(config.zone_command_map).map((slug) => ({ zone: slug, station: slug })),
    ha: null,
    notify: () => notified++,
  }) as MqttCommandController;
  adapters.push(adapter);
  return adapter;
}

async function started(overrides: Record<string, unknown> = {}): Promise<MqttCommandController> {
  const adapter = makeAdapter(overrides);
  await adapter.start();
  return adapter;
}

async function controllerError(promise: Promise<unknown>): Promise<ControllerError> {
  const err = await rejection(promise);
  expect(err).toBeInstanceOf(ControllerError);
  return err as ControllerError;
}

function on(topic: string): Seen[] {
  return seen.filter((message) => message.topic === topic);
}

async function publishState(topic: string, payload: string, retain = false): Promise<void> {
  await observer.publishAsync(topic, payload, { qos: 1, retain });
}

describe('config schema', () => {
  it('fills the documented defaults', () => {
    const config = mqttCommandKind.configSchema.parse({
      broker_host: 'broker.lan',
      zone_command_map: { front: { command_topic: 'a/b' } },
    });
    expect(config).toMatchObject({
      broker_port: 1883,
      tls: false,
      qos: 1,
      timeout_s: 10,
      self_timed: false,
      concurrent_zones: false,
    });
    expect(config.zone_command_map.front).toEqual({
      command_topic: 'a/b',
      run_payload: 'ON',
      stop_payload: 'OFF',
      state_on: 'ON',
      state_off: 'OFF',
      retain: false,
    });
  });

  it.each([
    ['no broker_host', { zone_command_map: {} }],
    ['qos 3', { broker_host: 'b', qos: 3 }],
    [
      'a wildcard command topic',
      { broker_host: 'b', zone_command_map: { front: { command_topic: 'a/+/set' } } },
    ],
    [
      'a wildcard state topic',
      { broker_host: 'b', zone_command_map: { front: { command_topic: 'a', state_topic: 'a/#' } } },
    ],
    ['a zone without a command topic', { broker_host: 'b', zone_command_map: { front: {} } }],
  ])('rejects %s', (_what, config) => {
    expect(mqttCommandKind.configSchema.safeParse(config).success).toBe(false);
  });

  it('binds zones only through zone_command_map', () => {
    expect(mqttCommandKind.zoneMapKey).toBe('zone_command_map');
    expect(mqttCommandKind.parseStation?.('front')).toBe(false);
  });
});

describe('commands against a real broker', () => {
  it('publishes the templated run payload and resolves once the broker acknowledged it', async () => {
    const adapter = await started();
    await adapter.runZone('front', 90);
    await adapter.runZone('back', 60);

    await waitFor(() => seen.length === 2, 'both run commands');
    expect(on('garden/front/set')).toEqual([
      {
        topic: 'garden/front/set',
        payload: '{"state":"ON","duration":90,"minutes":2,"zone":"front"}',
        retain: false,
      },
    ]);
    expect(on('garden/back/set').map((m) => m.payload)).toEqual(['ON']);
  });

  it('stops one zone with its stop payload', async () => {
    const adapter = await started({
      zone_command_map: { ...zoneMap, back: { command_topic: 'garden/back/set', stop_payload: 'CLOSE' } },
    });
    expect(await adapter.stopZone('back')).toBe('zone');

    await waitFor(() => seen.length === 1, 'the stop command');
    expect(seen[0]).toMatchObject({ topic: 'garden/back/set', payload: 'CLOSE' });
  });

  it('publishes retained commands when the zone asks for it', async () => {
    const adapter = await started({
      zone_command_map: { back: { command_topic: 'garden/retained/set', retain: true } },
    });
    await adapter.runZone('back', 30);
    await waitFor(() => seen.length === 1, 'the retained command');
    // A live subscriber sees retain=false; a late one gets the retained copy.
    const late = await connectAsync(broker.url, { ...USER, clientId: 'test-late', reconnectPeriod: 0 });
    const retained: string[] = [];
    late.on('message', (_topic, payload, packet) => packet.retain && retained.push(payload.toString()));
    await late.subscribeAsync('garden/retained/set');
    await waitFor(() => retained.length === 1, 'the retained copy');
    expect(retained).toEqual(['ON']);
    await late.publishAsync('garden/retained/set', '', { retain: true });
    await late.endAsync(true);
  });

  it('stopAll publishes to stop_all_topic when configured', async () => {
    const adapter = await started({ stop_all_topic: 'garden/all/set', stop_all_payload: 'ALL_OFF' });
    await adapter.stopAll();

    await waitFor(() => seen.length === 1, 'the stop-all command');
    expect(seen).toEqual([{ topic: 'garden/all/set', payload: 'ALL_OFF', retain: false }]);
  });

  it("stopAll without stop_all_topic publishes every zone's stop payload", async () => {
    const adapter = await started();
    await adapter.stopAll();

    await waitFor(() => seen.length === 2, 'both stop commands');
    expect(seen.map((m) => `${m.topic}=${m.payload}`).sort()).toEqual([
      'garden/back/set=OFF',
      'garden/front/set=OFF',
    ]);
  });

  it.each([0, 2])('works with qos %i', async (qos) => {
    const adapter = await started({ qos });
    await adapter.runZone('back', 30);
    await waitFor(() => seen.length === 1, 'the command');
    expect(seen[0]?.payload).toBe('ON');
  });

  it('a station without a zone_command_map entry is controller_unsupported', async () => {
    const adapter = await started();
    const err = await controllerError(adapter.runZone('side', 30));
    expect(err.code).toBe('controller_unsupported');
    expect(err.message).toContain('side');
  });

  it('arms a device-side limit when every run payload carries the duration (Tasmota PulseTime, a script)', () => {
    const timed = Object.fromEntries(
      Object.entries(zoneMap).map(([slug, zone]) => [
        slug,
        { ...zone, run_payload: 'Backlog PulseTime1 {pulsetime}; Power1 ON' },
      ]),
    );
    expect(makeAdapter({ zone_command_map: timed }).capabilities.device_limit).toBe(true);
    expect(makeAdapter().capabilities.device_limit).toBe(false);
  });

  it('reports its capabilities and refuses a zone scan', async () => {
    const adapter = makeAdapter({ self_timed: true, concurrent_zones: true });
    expect(adapter.capabilities).toEqual({
      per_zone_stop: true,
      state_readback: true,
      zone_scan: false,
      water_level: false,
      flow: false,
      concurrent_zones: true,
      self_timed: true,
      device_limit: true,
    });
    expect(adapter.pollIntervalMs).toBeNull();
    expect(adapter.confirmWithinS).toBe(5);
    expect((await controllerError(adapter.scanZones())).code).toBe('controller_unsupported');
  });
});

describe('state topics', () => {
  it('a state message updates the status and calls notify', async () => {
    const adapter = await started();
    expect((await adapter.readStatus()).stations).toEqual({});

    clock.advance(5_000);
    await publishState('garden/front/state', 'ON');
    await waitFor(() => notified === 1, 'notify after ON');
    let status = await adapter.readStatus();
    expect(status.stations).toEqual({ front: { running: true, remaining_s: null } });
    expect(status.observed_epoch).toBe(T0_MS / 1000 + 5);

    clock.advance(60_000);
    await publishState('garden/front/state', ' OFF\n');
    await waitFor(() => notified === 2, 'notify after OFF');
    status = await adapter.readStatus();
    expect(status.stations.front).toEqual({ running: false, remaining_s: null });
    expect(status.observed_epoch).toBe(T0_MS / 1000 + 65);
    // "back" has no state topic: its running state stays unknown.
    expect(status.stations.back).toBeUndefined();
  });

  it('ignores a payload that is neither state_on nor state_off', async () => {
    const adapter = await started({
      zone_command_map: { front: { ...zoneMap.front, state_on: 'open', state_off: 'closed' } },
    });
    await publishState('garden/front/state', 'ON');
    await publishState('garden/front/state', 'open');
    await waitFor(() => notified >= 1, 'notify after open');
    // Messages on one topic arrive in order: "ON" came first and changed nothing.
    expect(notified).toBe(1);
    expect((await adapter.readStatus()).stations.front?.running).toBe(true);
  });

  it('picks up a retained state when it connects', async () => {
    await publishState('garden/front/state', 'ON', true);
    try {
      const adapter = await started();
      await waitFor(() => notified === 1, 'the retained state');
      expect((await adapter.readStatus()).stations.front?.running).toBe(true);
    } finally {
      await publishState('garden/front/state', '', true);
    }
  });

  it('without state topics there is no readback: readStatus is controller_unsupported', async () => {
    const adapter = await started({ zone_command_map: { back: zoneMap.back } });
    expect(adapter.capabilities.state_readback).toBe(false);
    expect(adapter.confirmWithinS).toBeNull();
    const err = await controllerError(adapter.readStatus());
    expect(err.code).toBe('controller_unsupported');
    expect(err.status).toBe(501);
  });
});

describe('broker failures', () => {
  it('a broker that is down does not fail start; commands are controller_unreachable at once', async () => {
    const adapter = makeAdapter({ broker_port: await freeLoopbackPort() });
    await expect(adapter.start()).resolves.toBeUndefined();

    const began = Date.now();
    const run = await controllerError(adapter.runZone('front', 30));
    expect(run.code).toBe('controller_unreachable');
    expect(run.status).toBe(502);
    expect(Date.now() - began).toBeLessThan(500);
    expect((await controllerError(adapter.stopAll())).code).toBe('controller_unreachable');
    expect((await controllerError(adapter.readStatus())).code).toBe('controller_unreachable');
  });

  it('a broker that goes away makes commands controller_unreachable', async () => {
    const own = await startMosquitto();
    try {
      const adapter = await started({ broker_port: own.port, username: null, password: null });
      await adapter.runZone('back', 30);
      await own.stop();
      await waitFor(() => !isConnected(adapter), 'the adapter to notice the broker left');
      const err = await controllerError(adapter.runZone('back', 30));
      expect(err.code).toBe('controller_unreachable');
    } finally {
      await own.stop();
    }
  });

  it('refused credentials are controller_auth_failed (424) and the password is never logged', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const wrong = 'wrong-password-4471';
    const adapter = makeAdapter({ password: wrong }, pino({ level: 'debug' }, sink));
    await adapter.start();

    const err = await controllerError(adapter.runZone('front', 30));
    expect(err.code).toBe('controller_auth_failed');
    expect(err.status).toBe(424);
    expect(err.message).not.toContain(wrong);
    expect(lines.join('')).toContain('MQTT client error');
    expect(lines.join('')).not.toContain(wrong);
  });

  it('an anonymous client on a password broker is controller_auth_failed', async () => {
    const adapter = await started({ username: null, password: null });
    expect((await controllerError(adapter.stopZone('front'))).code).toBe('controller_auth_failed');
  });

  it('an unacknowledged command is controller_unreachable after timeout_s and is never resent', async () => {
    const fake = await silentBroker();
    try {
      const adapter = await started({ broker_port: fake.port, username: null, password: null, timeout_s: 1 });
      const err = await controllerError(adapter.runZone('back', 30));
      expect(err.code).toBe('controller_unreachable');
      expect(err.message).toContain('did not acknowledge garden/back/set within 1 s');
      expect(fake.publishes()).toBe(1);

      // Drop the connection: the client reconnects and must not replay the stale run.
      fake.dropConnections();
      await waitFor(() => fake.connects() === 2, 'the reconnect', 10_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(fake.publishes()).toBe(1);
    } finally {
      await fake.close();
    }
  });
});

function isConnected(adapter: MqttCommandController): boolean {
  return (adapter as unknown as { client: MqttClient | null }).client?.connected ?? false;
}

/**
 * Accepts MQTT connections (CONNACK accepted) and never acknowledges a
 * publish; counts CONNECT and PUBLISH packets by their first byte (each is
 * written on its own by the client).
 */
async function silentBroker() {
  const sockets = new Set<net.Socket>();
  let connects = 0;
  let publishes = 0;
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      const type = (chunk[0] ?? 0) >> 4;
      if (type === 1) {
        connects++;
        socket.write(Buffer.from([0x20, 0x02, 0x00, 0x00]));
      } else if (type === 3) {
        publishes++;
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    connects: () => connects,
    publishes: () => publishes,
    dropConnections: () => sockets.forEach((socket) => socket.destroy()),
    close: async () => {
      sockets.forEach((socket) => socket.destroy());
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
