import { carriesDuration, durationValues } from '../run-duration';
import type { IClientOptions, MqttClient } from 'mqtt';
import type { z } from 'zod';
import { lazySchema } from '../../core/zod-lazy';
import { epochSeconds } from '../../core/clock';
import { connectMqtt } from '../../core/mqtt-connect';
import { asControllerError, authFailed, unreachable, unsupported, type ControllerError } from '../errors';
import type {
  AdapterContext,
  ControllerAdapter,
  ControllerCapabilities,
  ControllerKindDefinition,
  ControllerStatus,
  ScannedZone,
  StationState,
} from '../types';

/**
 * `mqtt_command`: valves behind an MQTT broker (Tasmota, ESPHome with MQTT,
 * Zigbee2MQTT, Node-RED). Each zone has its own command topic and payloads in
 * `zone_command_map`, so the station the dispatcher passes is the zone slug
 * (controllers/kinds.ts stationFor).
 *
 * Why these choices:
 * - A command is only reported done when the broker acknowledged it (PUBACK /
 *   PUBCOMP for qos 1 / 2). While the broker is unreachable a command fails at
 *   once instead of being queued: a run replayed minutes later on reconnect
 *   would water at the wrong time. A command the broker did not acknowledge in
 *   time is also removed from the client's resend store for the same reason.
 * - start() never throws: the client keeps reconnecting in the background and
 *   commands fail with controller_unreachable (or controller_auth_failed when
 *   the broker refused the credentials) until it is back.
 * - State is pushed: zones with a `state_topic` report `running` from
 *   `state_on` / `state_off` payloads (compared exactly after trimming the
 *   payload). `state_readback` is true when at least one zone has a
 *   state_topic; a zone without one (or whose topic said nothing yet) is absent
 *   from ControllerStatus.stations, i.e. its running state is unknown. The last
 *   state survives a reconnect (retained state messages refresh it), but
 *   readStatus throws controller_unreachable while the broker is down.
 * - Payload templates substitute `{station}` (the slug, [a-z0-9_] only),
 *   `{seconds}`, `{minutes}` (seconds / 60 rounded up) and `{pulsetime}`
 *   (Tasmota PulseTime, controllers/run-duration.ts) as plain text. A run payload
 *   with one of them arms a device-side limit (`device_limit`).
 * - The password is only handed to the MQTT client; error texts are scrubbed
 *   of it before they are logged or thrown.
 */

const RECONNECT_MS = 3_000;
const CONFIRM_WITHIN_S = 5;
/** CONNACK codes for refused credentials: MQTT 3.1.1 (4, 5) and MQTT 5 (134, 135). */
const AUTH_REFUSED_CODES = new Set([4, 5, 134, 135]);
const PLACEHOLDER = /\{(station|seconds|minutes|pulsetime)\}/g;
// Built on first use (core/zod-lazy.ts): a boot from the validated-config cache loads no zod.
const configSchema = lazySchema((z) => {
  /** Publish and exact-match subscribe topics: no wildcards. */
  const plainTopic = z
    .string()
    .min(1)
    .regex(/^[^+#]+$/, 'a topic without the wildcards + and #');

  const zoneCommandSchema = z.looseObject({
    command_topic: plainTopic,
    run_payload: z.string().default('ON'),
    stop_payload: z.string().default('OFF'),
    state_topic: plainTopic.nullish(),
    state_on: z.string().default('ON'),
    state_off: z.string().default('OFF'),
    retain: z.boolean().default(false),
  });

  return z.looseObject({
    broker_host: z.string().min(1),
    broker_port: z.number().int().min(1).max(65535).default(1883),
    username: z.string().nullish(),
    /** A secret by its key name (redacted on read). */
    password: z.string().nullish(),
    /** Default `raincheck-<controller id>`. */
    client_id: z.string().min(1).nullish(),
    tls: z.boolean().default(false),
    qos: z.union([z.literal(0), z.literal(1), z.literal(2)]).default(1),
    timeout_s: z.number().int().min(1).max(60).default(10),
    self_timed: z.boolean().default(false),
    concurrent_zones: z.boolean().default(false),
    zone_command_map: z.record(z.string(), zoneCommandSchema).default({}),
    /** Absent: stopAll publishes every zone's stop payload. */
    stop_all_topic: plainTopic.nullish(),
    stop_all_payload: z.string().default('OFF'),
  });
});

export type MqttCommandConfig = z.output<typeof configSchema>;
type ZoneCommand = MqttCommandConfig['zone_command_map'][string];

interface ObservedState {
  running: boolean;
  observedEpoch: number;
}

/** A publish waiting for its acknowledgement; a lost connection fails it at once. */
interface PendingPublish {
  fail(err: ControllerError): void;
}

export class MqttCommandController implements ControllerAdapter {
  readonly kind = 'mqtt_command';
  readonly id: string;
  readonly capabilities: ControllerCapabilities;
  readonly confirmWithinS: number | null;
  readonly pollIntervalMs = null;
  private readonly config: MqttCommandConfig;
  private readonly timeoutMs: number;
  /** State topic -> the stations (slugs) it reports. */
  private readonly stationsByStateTopic = new Map<string, string[]>();
  private readonly observed = new Map<string, ObservedState>();
  private readonly pending = new Set<PendingPublish>();
  private client: MqttClient | null = null;
  private subscription: Promise<void> = Promise.resolve();
  /** Why the broker last refused the credentials; null once a connection succeeds. */
  private authRefusal: string | null = null;
  private lastError: string | null = null;

  constructor(private readonly ctx: AdapterContext<MqttCommandConfig>) {
    this.id = ctx.id;
    this.config = ctx.config;
    this.timeoutMs = ctx.config.timeout_s * 1000;
    for (const [station, command] of Object.entries(ctx.config.zone_command_map)) {
      if (!command.state_topic) continue;
      const stations = this.stationsByStateTopic.get(command.state_topic) ?? [];
      this.stationsByStateTopic.set(command.state_topic, [...stations, station]);
    }
    const readback = this.stationsByStateTopic.size > 0;
    this.capabilities = {
      per_zone_stop: true,
      state_readback: readback,
      zone_scan: false,
      water_level: false,
      flow: false,
      concurrent_zones: ctx.config.concurrent_zones,
      self_timed: ctx.config.self_timed,
      // Every zone's run payload must hand the duration to the device.
      device_limit:
        ctx.config.self_timed ||
        (Object.keys(ctx.config.zone_command_map).length > 0 &&
          Object.values(ctx.config.zone_command_map).every((zone) => carriesDuration([zone.run_payload]))),
    };
    this.confirmWithinS = readback ? CONFIRM_WITHIN_S : null;
  }

  /** Connects and subscribes; waits for the first attempt (at most timeout_s) but never throws. */
  async start(): Promise<void> {
    if (this.client) return;
    const client = connectMqtt(this.clientOptions());
    this.client = client;
    // A stopped client's late events are ignored (its error listener stays so none is unhandled).
    const whileCurrent =
      <A extends unknown[]>(handler: (...args: A) => void) =>
      (...args: A): void => {
        if (this.client === client) handler(...args);
      };
    client.on(
      'connect',
      whileCurrent(() => this.onConnect(client)),
    );
    client.on(
      'error',
      whileCurrent((err: Error) => this.onError(err)),
    );
    client.on(
      'close',
      whileCurrent(() => {
        this.failPending('lost the broker connection before it acknowledged');
        // The held states may be stale now: the manager reads again (and finds the broker gone).
        if (this.capabilities.state_readback) this.ctx.notify();
      }),
    );
    client.on(
      'message',
      whileCurrent((topic: string, payload: Buffer) => this.onMessage(topic, payload)),
    );
    const outcome = await firstOutcome(client, this.timeoutMs);
    if (outcome === 'connect') await settleWithin(this.subscription, this.timeoutMs);
    else this.ctx.logger.warn({ controller: this.id, outcome }, 'MQTT broker not reachable yet; retrying');
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = null;
    if (!client) return;
    this.failPending('the controller was stopped');
    await client.endAsync(true).catch(() => undefined);
  }

  async runZone(station: string, seconds: number): Promise<void> {
    const command = this.commandFor(station);
    const payload = renderPayload(command.run_payload, station, seconds);
    await this.publish(command.command_topic, payload, command.retain);
  }

  async stopZone(station: string): Promise<'zone'> {
    const command = this.commandFor(station);
    await this.publish(
      command.command_topic,
      renderPayload(command.stop_payload, station, 0),
      command.retain,
    );
    return 'zone';
  }

  async stopAll(): Promise<void> {
    if (this.config.stop_all_topic) {
      await this.publish(this.config.stop_all_topic, this.config.stop_all_payload, false);
      return;
    }
    await this.stopEachZone();
  }

  async readStatus(): Promise<ControllerStatus> {
    if (!this.capabilities.state_readback)
      throw unsupported(this.id, 'read its state (no zone has a state_topic)');
    this.connectedClient();
    const stations: Record<string, StationState> = {};
    let latest: number | null = null;
    for (const [station, state] of this.observed) {
      stations[station] = { running: state.running, remaining_s: null };
      latest = Math.max(latest ?? 0, state.observedEpoch);
    }
    return {
      observed_epoch: latest ?? epochSeconds(this.ctx.clock),
      stations,
      water_level_pct: null,
      flow_rate_gpm: null,
      flow_total_gal_today: null,
    };
  }

  async scanZones(): Promise<ScannedZone[]> {
    throw unsupported(this.id, 'list its zones');
  }

  private clientOptions(): IClientOptions {
    const { config } = this;
    return {
      host: config.broker_host,
      port: config.broker_port,
      protocol: config.tls ? 'mqtts' : 'mqtt',
      clientId: config.client_id ?? `raincheck-${this.id}`,
      ...(config.username ? { username: config.username } : {}),
      ...(config.password ? { password: config.password } : {}),
      clean: true,
      connectTimeout: this.timeoutMs,
      reconnectPeriod: RECONNECT_MS,
      // Keep retrying after a refusal so a credential fixed on the broker is picked up.
      reconnectOnConnackError: true,
      // Never queue while offline: a late command is worse than a failed one.
      queueQoSZero: false,
      // Subscriptions are made again on every connect (onConnect).
      resubscribe: false,
      // No 6 MB cache of packet-id Buffers (ha/mqtt/publisher.ts).
      writeCache: false,
    };
  }

  private onConnect(client: MqttClient): void {
    this.authRefusal = null;
    this.lastError = null;
    this.ctx.logger.info({ controller: this.id }, 'MQTT broker connected');
    this.subscription = this.subscribeStateTopics(client);
  }

  private async subscribeStateTopics(client: MqttClient): Promise<void> {
    const topics = [...this.stationsByStateTopic.keys()];
    if (topics.length === 0) return;
    try {
      await client.subscribeAsync(
        Object.fromEntries(topics.map((topic) => [topic, { qos: this.config.qos }])),
      );
    } catch (err) {
      this.ctx.logger.warn(
        { controller: this.id, err: this.describe(err) },
        'MQTT state subscription failed',
      );
    }
  }

  private onError(err: Error): void {
    const text = this.describe(err);
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'number' && AUTH_REFUSED_CODES.has(code)) this.authRefusal = text;
    if (text !== this.lastError)
      this.ctx.logger.warn({ controller: this.id, err: text }, 'MQTT client error');
    this.lastError = text;
  }

  private onMessage(topic: string, payload: Buffer): void {
    const stations = this.stationsByStateTopic.get(topic);
    if (!stations) return;
    const text = payload.toString('utf8').trim();
    let changed = false;
    for (const station of stations) {
      const running = runningFrom(this.config.zone_command_map[station], text);
      if (running === null) continue;
      this.observed.set(station, { running, observedEpoch: epochSeconds(this.ctx.clock) });
      changed = true;
    }
    if (changed) this.ctx.notify();
    else
      this.ctx.logger.debug(
        { controller: this.id, topic },
        'MQTT state payload is neither state_on nor state_off',
      );
  }

  private commandFor(station: string): ZoneCommand {
    const command = this.config.zone_command_map[station];
    if (!command) throw unsupported(this.id, `drive "${station}" (it has no zone_command_map entry)`);
    return command;
  }

  /** Each mapped zone gets its stop payload; all are tried, the last failure is thrown. */
  private async stopEachZone(): Promise<void> {
    let lastError: ControllerError | null = null;
    for (const station of Object.keys(this.config.zone_command_map)) {
      try {
        await this.stopZone(station);
      } catch (err) {
        lastError = asControllerError(this.id, err);
        this.ctx.logger.warn({ controller: this.id, station, err: lastError.message }, 'stop failed');
      }
    }
    if (lastError) throw lastError;
  }

  /** The live client, or the error a command gets while the broker is away. */
  private connectedClient(): MqttClient {
    const client = this.client;
    if (client?.connected) return client;
    const broker = `${this.config.broker_host}:${this.config.broker_port}`;
    if (!client) throw unreachable(this.id, 'the MQTT client is not started');
    if (this.authRefusal)
      throw authFailed(this.id, `the MQTT broker ${broker} refused the connection (${this.authRefusal})`);
    const why = this.lastError ? ` (${this.lastError})` : '';
    throw unreachable(this.id, `not connected to the MQTT broker ${broker}${why}`);
  }

  /** Publishes and resolves on the broker's acknowledgement (qos 0: once written). */
  private publish(topic: string, payload: string, retain: boolean): Promise<void> {
    const client = this.connectedClient();
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const finish = (err: ControllerError | null): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.pending.delete(pending);
        if (!err) return resolve();
        dropOutgoing(client, onAck);
        reject(err);
      };
      const onAck = (err?: Error): void =>
        finish(err ? unreachable(this.id, `publishing to ${topic} failed: ${this.describe(err)}`) : null);
      const pending: PendingPublish = { fail: (err) => finish(err) };
      const seconds = this.config.timeout_s;
      const timer = setTimeout(
        () =>
          finish(unreachable(this.id, `the MQTT broker did not acknowledge ${topic} within ${seconds} s`)),
        this.timeoutMs,
      );
      this.pending.add(pending);
      client.publish(topic, payload, { qos: this.config.qos, retain }, onAck);
    });
  }

  private failPending(why: string): void {
    for (const pending of [...this.pending]) pending.fail(unreachable(this.id, why));
  }

  /** An error's text without the password, should a library ever echo it. */
  private describe(err: unknown): string {
    const message = (err as { message?: unknown } | null)?.message;
    const text = typeof message === 'string' && message !== '' ? message : String(err);
    const password = this.config.password;
    return password ? text.split(password).join('***redacted***') : text;
  }
}

function renderPayload(template: string, station: string, seconds: number): string {
  const values: Record<string, string> = { station };
  for (const [name, value] of Object.entries(durationValues(seconds))) values[name] = String(value);
  return template.replace(PLACEHOLDER, (_match, name: string) => values[name] ?? '');
}

function runningFrom(command: ZoneCommand | undefined, payload: string): boolean | null {
  if (!command) return null;
  if (payload === command.state_on) return true;
  if (payload === command.state_off) return false;
  return null;
}

/** Removes an unacknowledged publish from the client's resend store (it must not go out late). */
function dropOutgoing(client: MqttClient, callback: (err?: Error) => void): void {
  for (const [messageId, entry] of Object.entries(client.outgoing)) {
    if (entry.cb === callback) client.removeOutgoingMessage(Number(messageId));
  }
}

type FirstOutcome = 'connect' | 'error' | 'close' | 'timeout';

/** The first of connect / error / close, or timeout: start() reports and moves on. */
function firstOutcome(client: MqttClient, timeoutMs: number): Promise<FirstOutcome> {
  return new Promise((resolve) => {
    const listeners = {
      connect: () => done('connect'),
      error: () => done('error'),
      close: () => done('close'),
    };
    const timer = setTimeout(() => done('timeout'), timeoutMs);
    function done(outcome: FirstOutcome): void {
      clearTimeout(timer);
      client.off('connect', listeners.connect);
      client.off('error', listeners.error);
      client.off('close', listeners.close);
      resolve(outcome);
    }
    client.on('connect', listeners.connect);
    client.on('error', listeners.error);
    client.on('close', listeners.close);
  });
}

function settleWithin(promise: Promise<void>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    void promise.finally(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

export const mqttCommandKind: ControllerKindDefinition<MqttCommandConfig> = {
  kind: 'mqtt_command',
  label: 'MQTT command topics',
  configSchema,
  zoneMapKey: 'zone_command_map',
  // Its station field dispatches nothing: only the command map binds a zone.
  stationExpectation: 'an entry in its zone_command_map',
  parseStation: () => false,
  create: (ctx) => new MqttCommandController(ctx),
};
