import { randomBytes } from 'node:crypto';
import type { IClientOptions, IPublishPacket, MqttClient } from 'mqtt';
import type { EventBus } from '../../core/bus';
import type { Clock } from '../../core/clock';
import type { SubsystemStatus } from '../../core/health';
import type { Module } from '../../core/lifecycle';
import type { Logger } from '../../core/logger';
import { REPOSITORY } from '../../core/version';
import { connectMqtt } from '../../core/mqtt-connect';
import type { ActionExecutor } from '../../irrigation/action-executor';
import { entityCatalog } from '../entities/catalog';
import type { CatalogView, EntityDescriptor } from '../entities/descriptor';
import { MqttCommands } from './commands';
import { PublishedEntities, type RetainedMessage, type StateScope } from './published-entities';
import { connectionKey, type MqttSettings } from './settings';
import { OFFLINE, ONLINE, TopicLayout } from './topics';

/**
 * Home Assistant MQTT discovery and commands (spec 6.3). Every topic and
 * payload comes from the entity catalog (ha/entities); this module only
 * connects, keeps the broker in step with the catalog and passes commands to
 * the action executor.
 *
 * - Availability: `raincheck/<install>/status` is `online` (retained) while
 *   connected; the last will sets it `offline` when the process dies.
 * - On connect and on Home Assistant's birth message (`<prefix>/status`
 *   `online`) every config and then every state is published again after a
 *   short random delay (so many publishers do not answer a birth at once).
 * - Incremental: configs follow the catalog on every sync; irrigation states
 *   on irrigation.snapshot and runs.changed, weather states at most every
 *   10 s. Only changed values are sent; everything is retained.
 * - Removal: an entity that left the catalog gets an empty retained payload
 *   on its config and state topics. Configs of this install that an earlier
 *   run left retained are read back on connect and removed the same way when
 *   they are no longer current, so nothing needs persisting.
 *
 * The broker being down never fails start(): the client reconnects every
 * few seconds and health says why it is not connected.
 */

const RECONNECT_MS = 5_000;
const CONNECT_TIMEOUT_MS = 10_000;
const WEATHER_STATE_INTERVAL_MS = 10_000;
const STOP_GRACE_MS = 3_000;
const QOS = 1;

export interface MqttPublisherDeps {
  bus: EventBus;
  clock: Clock;
  logger: Logger;
  /** Read on start and on every config change. */
  settings: () => MqttSettings | null;
  /** The stable per-install id; null (unwritable data folder): nothing is published. */
  installId: string | null;
  version: string;
  /** The catalog's view of the live services (null before a config exists). */
  view: () => CatalogView | null;
  executor: Pick<ActionExecutor, 'execute'>;
  /** The wait before a full republish (default 0.5-3 s at random; tests shorten it). */
  republishDelayMs?: () => number;
}

export class MqttPublisher implements Module {
  readonly name = 'mqtt';
  private readonly log: Logger;
  private readonly commands: MqttCommands;
  private readonly unsubscribers: (() => void)[] = [];
  private settings: MqttSettings | null = null;
  private key: string | null = null;
  private client: MqttClient | null = null;
  private topics: TopicLayout | null = null;
  private published: PublishedEntities | null = null;
  private connected = false;
  /** The full publish of this connection is done: incremental syncs may run. */
  private ready = false;
  private attempted = false;
  private lastError: string | null = null;
  private republishTimer: NodeJS.Timeout | null = null;
  private weatherTimer: NodeJS.Timeout | null = null;
  private lastWeatherMs = 0;
  /** Reconnections for config changes run one at a time. */
  private transition: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly deps: MqttPublisherDeps) {
    this.log = deps.logger.child({ module: 'mqtt' });
    this.commands = new MqttCommands({
      executor: deps.executor,
      logger: this.log,
      entities: () => this.catalog()?.entities ?? null,
      onDone: () => this.sync('irrigation'),
    });
  }

  async start(): Promise<void> {
    const { bus } = this.deps;
    this.stopped = false;
    this.unsubscribers.push(
      bus.on('config.changed', () => this.onConfigChanged()),
      bus.on('irrigation.snapshot', () => this.sync('irrigation')),
      bus.on('runs.changed', () => this.sync('irrigation')),
      bus.on('weather.snapshot', () => this.scheduleWeather()),
    );
    if (!this.deps.installId) {
      this.log.warn('no install id (the data folder is not writable): MQTT discovery is off');
      return;
    }
    this.connect(this.deps.settings());
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const off of this.unsubscribers.splice(0)) off();
    if (this.weatherTimer) clearTimeout(this.weatherTimer);
    this.weatherTimer = null;
    await this.transition;
    await this.disconnect();
    await withinMs(this.commands.idle(), STOP_GRACE_MS);
  }

  /** The settings changed outside the config (the integration's claim): follow them. */
  settingsChanged(): void {
    this.onConfigChanged();
  }

  /** The /health `mqtt` subsystem. */
  health(): { status: SubsystemStatus; note: string | null } {
    if (!this.deps.installId) return { status: 'unavailable', note: 'no install id: nothing is published' };
    const settings = this.settings;
    if (!settings || this.key === null)
      return { status: 'disabled', note: 'publishing and commands are off' };
    if (this.connected) return { status: 'ok', note: null };
    if (!this.attempted) return { status: 'starting', note: null };
    const why = this.lastError ? ` (${this.lastError})` : '';
    return {
      status: 'degraded',
      note: `not connected to the MQTT broker ${settings.host}:${settings.port}${why}; retrying`,
    };
  }

  // ---- connection ----

  private connect(settings: MqttSettings | null): void {
    this.settings = settings;
    this.key = connectionKey(settings);
    this.attempted = false;
    this.lastError = null;
    const installId = this.deps.installId;
    if (!settings || this.key === null || !installId || this.stopped) return;
    if (!this.topics || this.topics.prefix !== settings.discoveryPrefix) {
      this.topics = new TopicLayout(installId, settings.discoveryPrefix);
      this.published = new PublishedEntities({
        topics: this.topics,
        version: this.deps.version,
        repository: REPOSITORY,
      });
    }
    const { host, port, tls, origin, publish, subscribe, discoveryPrefix } = settings;
    this.log.info(
      { host, port, tls, origin, publish, subscribe, discovery_prefix: discoveryPrefix },
      'connecting to the MQTT broker',
    );
    const client = connectMqtt(this.clientOptions(settings, this.topics));
    this.client = client;
    const whileCurrent =
      <A extends unknown[]>(handler: (...args: A) => void) =>
      (...args: A): void => {
        if (this.client === client) handler(...args);
      };
    client.on(
      'connect',
      whileCurrent(() => void this.onConnect(client)),
    );
    client.on(
      'error',
      whileCurrent((err: Error) => this.onError(err)),
    );
    client.on(
      'close',
      whileCurrent(() => this.onClose()),
    );
    client.on(
      'message',
      whileCurrent((topic: string, payload: Buffer, packet: IPublishPacket) =>
        this.onMessage(topic, payload.toString('utf8'), packet.retain),
      ),
    );
  }

  private clientOptions(settings: MqttSettings, topics: TopicLayout): IClientOptions {
    const installId = topics.installId;
    return {
      host: settings.host,
      port: settings.port,
      protocol: settings.tls ? 'mqtts' : 'mqtt',
      // Unique per process: two processes of one install must not take over each other's session forever.
      clientId: `raincheck-${installId.slice(0, 8)}-${randomBytes(3).toString('hex')}`,
      ...(settings.username ? { username: settings.username } : {}),
      ...(settings.password ? { password: settings.password } : {}),
      clean: true,
      connectTimeout: CONNECT_TIMEOUT_MS,
      reconnectPeriod: RECONNECT_MS,
      reconnectOnConnackError: true,
      // Without this mqtt-packet builds 65,536 two-byte Buffers for packet ids on the first
      // write: about 6 MB of an idle service's heap, to save an allocation per packet.
      writeCache: false,
      // Every connect subscribes and republishes in full: nothing stale is replayed.
      resubscribe: false,
      queueQoSZero: false,
      ...(settings.publish
        ? { will: { topic: topics.status, payload: OFFLINE, qos: QOS, retain: true } }
        : {}),
    };
  }

  private async onConnect(client: MqttClient): Promise<void> {
    const settings = this.settings;
    const topics = this.topics;
    if (!settings || !topics) return;
    this.connected = true;
    this.attempted = true;
    this.lastError = null;
    this.ready = false;
    this.log.info({ host: settings.host, port: settings.port }, 'MQTT broker connected');
    if (settings.publish) client.publish(topics.status, ONLINE, { qos: QOS, retain: true }, this.onPublished);
    const subscriptions: Record<string, { qos: 0 | 1 }> = {};
    if (settings.publish) {
      subscriptions[topics.birth] = { qos: QOS };
      // Retained configs of an earlier run arrive once, right after this subscription.
      subscriptions[topics.allConfigs] = { qos: QOS };
    }
    if (settings.subscribe) subscriptions[topics.allCommands] = { qos: QOS };
    try {
      await client.subscribeAsync(subscriptions);
    } catch (err) {
      this.log.warn({ err: this.describe(err) }, 'MQTT subscription failed');
    }
    if (this.client === client) this.scheduleRepublish();
  }

  private onError(err: Error): void {
    this.attempted = true;
    const text = this.describe(err);
    if (text !== this.lastError) this.log.warn({ err: text }, 'MQTT client error');
    this.lastError = text;
  }

  private onClose(): void {
    this.attempted = true;
    if (this.connected) this.log.warn('lost the MQTT broker connection; reconnecting');
    this.connected = false;
    this.ready = false;
    this.clearRepublish();
  }

  private async disconnect(): Promise<void> {
    const client = this.client;
    const settings = this.settings;
    this.client = null;
    this.connected = false;
    this.ready = false;
    this.clearRepublish();
    if (!client) return;
    if (client.connected && settings?.publish && this.topics) {
      // A clean disconnect sends no last will: say offline ourselves.
      await withinMs(
        client.publishAsync(this.topics.status, OFFLINE, { qos: QOS, retain: true }).catch(() => undefined),
        STOP_GRACE_MS,
      );
    }
    const ended = await withinMs(
      client.endAsync(false).then(() => true),
      STOP_GRACE_MS,
    );
    if (!ended) await client.endAsync(true).catch(() => undefined);
  }

  private onConfigChanged(): void {
    const next = this.deps.settings();
    if (connectionKey(next) === this.key) {
      this.settings = next;
      this.sync('all');
      return;
    }
    this.transition = this.transition
      .then(() => this.reconfigure())
      .catch((err: unknown) => {
        this.log.error({ err: this.describe(err) }, 'MQTT reconfiguration failed');
      });
  }

  /** New broker settings: clear what must not stay behind, then reconnect. */
  private async reconfigure(): Promise<void> {
    if (this.stopped || !this.deps.installId) return;
    // Read now: several saves may have queued behind one reconnection.
    const next = this.deps.settings();
    if (connectionKey(next) === this.key) {
      this.settings = next;
      return;
    }
    const previous = this.settings;
    const client = this.client;
    const leaving = !next?.publish || connectionKey(next) === null;
    const prefixMoved = next?.discoveryPrefix !== previous?.discoveryPrefix;
    if (client?.connected && previous?.publish && this.published && (leaving || prefixMoved)) {
      this.log.info('removing the published entities (publishing turned off or the prefix moved)');
      await withinMs(
        Promise.all(this.published.clear().map((m) => this.publishAsync(client, m))),
        STOP_GRACE_MS,
      );
    }
    await this.disconnect();
    this.connect(next);
  }

  // ---- messages ----

  private onMessage(topic: string, payload: string, retained: boolean): void {
    const topics = this.topics;
    if (!topics) return;
    if (topic === topics.birth) {
      if (payload.trim() === ONLINE && !retained) {
        this.log.info('Home Assistant came online: republishing discovery');
        this.scheduleRepublish();
      }
      return;
    }
    const config = topics.configEntry(topic);
    if (config) {
      if (retained && payload !== '' && !this.ready) this.published?.adopt(config.platform, config.key);
      return;
    }
    const key = topics.commandKey(topic);
    if (key && this.settings?.subscribe) {
      // A retained command would run again on every reconnect: never act on one.
      if (retained) {
        this.log.warn({ key }, 'ignoring a retained mqtt command');
        return;
      }
      void this.commands.handle(key, payload);
    }
  }

  private scheduleRepublish(): void {
    if (this.republishTimer) return;
    const delay = this.deps.republishDelayMs?.() ?? 500 + Math.random() * 2_500;
    this.republishTimer = setTimeout(() => {
      this.republishTimer = null;
      this.republish();
    }, delay);
    this.republishTimer.unref();
  }

  private clearRepublish(): void {
    if (this.republishTimer) clearTimeout(this.republishTimer);
    this.republishTimer = null;
  }

  /** Every config, then every state; removals for whatever is no longer current. */
  private republish(): void {
    const client = this.client;
    const topics = this.topics;
    if (!client?.connected || !topics) return;
    const firstOfConnection = !this.ready;
    this.ready = true;
    if (firstOfConnection && this.settings?.publish) {
      client.unsubscribe(topics.allConfigs, (err?: Error) => {
        if (err) this.log.debug({ err: this.describe(err) }, 'MQTT unsubscribe failed');
      });
    }
    this.publishCatalog({ full: true });
  }

  private scheduleWeather(): void {
    if (this.weatherTimer) return;
    const wait = Math.max(0, this.lastWeatherMs + WEATHER_STATE_INTERVAL_MS - this.deps.clock.nowMs());
    this.weatherTimer = setTimeout(() => {
      this.weatherTimer = null;
      this.lastWeatherMs = this.deps.clock.nowMs();
      this.sync('weather');
    }, wait);
    this.weatherTimer.unref();
  }

  /** Brings configs up to date and publishes the changed states in scope. */
  private sync(scope: StateScope): void {
    if (!this.ready) return;
    this.publishCatalog({ scope });
  }

  private publishCatalog(options: { full?: boolean; scope?: StateScope }): void {
    const client = this.client;
    if (!client?.connected || !this.settings?.publish || !this.published) return;
    const catalog = this.catalog();
    // No config (or not loaded yet): keep what is published rather than remove it all.
    if (!catalog) return;
    let messages: RetainedMessage[];
    try {
      messages = this.published.sync(catalog.entities, catalog.view, options);
    } catch (err) {
      this.log.error({ err }, 'building the MQTT discovery messages failed');
      return;
    }
    for (const message of messages) {
      client.publish(message.topic, message.payload, { qos: QOS, retain: true }, this.onPublished);
    }
    if (messages.length > 0) this.log.debug({ messages: messages.length, ...options }, 'MQTT published');
  }

  private catalog(): { view: CatalogView; entities: EntityDescriptor[] } | null {
    const view = this.deps.view();
    return view ? { view, entities: entityCatalog(view) } : null;
  }

  private readonly onPublished = (err?: Error): void => {
    if (err) this.log.debug({ err: this.describe(err) }, 'MQTT publish not acknowledged');
  };

  private publishAsync(client: MqttClient, message: RetainedMessage): Promise<void> {
    return client
      .publishAsync(message.topic, message.payload, { qos: QOS, retain: true })
      .then(() => undefined)
      .catch(() => undefined);
  }

  /** An error's text without the password, should a library ever echo it. */
  private describe(err: unknown): string {
    const message = (err as { message?: unknown } | null)?.message;
    const text = typeof message === 'string' && message !== '' ? message : String(err);
    const password = this.settings?.password;
    return password ? text.split(password).join('***redacted***') : text;
  }
}

/** Resolves true when the promise settled in time, false otherwise. */
function withinMs(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    const settled = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    promise.then(settled, settled);
  });
}
