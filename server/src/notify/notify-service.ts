import type { ConnectionOptions } from 'node:tls';
import type { AppliedConfig } from '../config/config-types';
import type { EventBus } from '../core/bus';
import { epochSeconds, type Clock } from '../core/clock';
import type { Module } from '../core/lifecycle';
import type { Logger } from '../core/logger';
import type { DeliveryRecord } from '../store/notification-deliveries';
import type { Store } from '../store/store';
import { CATALOG, testNotice } from './catalog';
import type { WebPushChannel } from './channels/web-push';
import { Coalescer } from './coalescer';
import { DeliveryLog } from './delivery-log';
import type { DeliveryQueue, QueueState, Timers } from './delivery-queue';
import { Routing, type RouteTable } from './routing';
import { NoticeSubscriber } from './subscriber';
import {
  CHANNEL_IDS,
  CHANNEL_LABELS,
  type Channel,
  type ChannelId,
  type Notice,
  type SendResult,
} from './types';
import { loadVapidKeys, type VapidLoad } from './vapid';

/**
 * The notification domain's module: builds the configured channels (hot
 * reload on every config save), gives each its own delivery queue, runs the
 * bus subscriber, routes each notice to the channels the owner chose and
 * coalesces duplicates. It also answers the settings page (status, routing,
 * "Send a test") and `diagnostics()` for GET /diagnostics. Nothing it returns
 * carries a secret: no token, password, webhook URL or private key.
 */

export interface NotifyServiceDeps {
  bus: EventBus;
  clock: Clock;
  logger: Logger;
  config: () => AppliedConfig | null;
  store: Store | null;
  dataDir: string;
  fetch: typeof fetch;
  /** RAINCHECK_PUBLIC_URL: links in ntfy, chat and e-mail notices. */
  publicUrl: string | null;
  /** Tests shorten the back-off and trust their SMTP peer's certificate. */
  retryDelaysMs?: readonly number[];
  smtpTls?: ConnectionOptions;
  timers?: Timers;
}

interface Built {
  channel: Channel;
  fingerprint: string;
}

export interface ChannelStatus {
  id: ChannelId;
  label: string;
  configured: boolean;
  /** Why it does not send, when it does not. */
  note: string | null;
  queued: number;
  retrying: QueueState['retrying'];
  last_sent: DeliveryRecord | null;
  last_failure: DeliveryRecord | null;
}

export interface NotifyStatus {
  push: {
    enabled: boolean;
    vapid_configured: boolean;
    key_source: 'config' | 'generated' | null;
    note: string | null;
    devices: number | null;
  };
  /** Whether links in ntfy, chat and e-mail notices can point into the app (RAINCHECK_PUBLIC_URL). */
  links: boolean;
  /** Routing choices can be saved (the database is open). */
  persisted: boolean;
  channels: ChannelStatus[];
  events: {
    id: string;
    label: string;
    description: string;
    severity: string;
    routes: Record<ChannelId, boolean>;
  }[];
  recent: DeliveryRecord[];
}

export interface TestResult {
  channel: ChannelId;
  status: SendResult['status'];
  detail: string;
}

export class NotifyService implements Module {
  readonly name = 'notify';
  readonly routing: Routing;
  private readonly log: Logger;
  private readonly deliveries: DeliveryLog;
  private readonly coalescer = new Coalescer();
  private readonly subscriber: NoticeSubscriber;
  private readonly built = new Map<ChannelId, Built>();
  private readonly queues = new Map<ChannelId, DeliveryQueue>();
  private vapid: VapidLoad = { keys: null, note: 'not loaded yet' };
  private vapidFingerprint: string | null = null;
  private offConfig: (() => void) | null = null;

  constructor(private readonly deps: NotifyServiceDeps) {
    this.log = deps.logger.child({ module: 'notify' });
    this.routing = new Routing(deps.store?.notificationRoutes ?? null);
    this.deliveries = new DeliveryLog(deps.store?.notificationDeliveries ?? null);
    this.subscriber = new NoticeSubscriber({
      bus: deps.bus,
      clock: deps.clock,
      logger: deps.logger,
      config: deps.config,
      state: deps.store?.controls ?? null,
      publish: (notice) => this.publish(notice),
    });
  }

  async start(): Promise<void> {
    this.reconfigure();
    this.offConfig = this.deps.bus.on('config.changed', () => this.reconfigure());
    this.subscriber.start();
  }

  async stop(): Promise<void> {
    this.offConfig?.();
    this.subscriber.stop();
    for (const queue of this.queues.values()) queue.stop();
    for (const { channel } of this.built.values()) channel.close?.();
    this.built.clear();
  }

  /** Spec 4.8 GET /push/vapid-key: null answers 503 `vapid not configured`. */
  vapidPublicKey(): string | null {
    return this.pushEnabled() ? (this.vapid.keys?.publicKey ?? null) : null;
  }

  /** Routes, coalesces and queues one notice; returns the channels it was queued on. */
  publish(notice: Notice): ChannelId[] {
    if (notice.event === 'test' || !isCatalogEvent(notice.event)) return [];
    const targets = this.routing.channelsFor(notice.event).filter((id) => this.built.has(id));
    if (targets.length === 0) return [];
    if (!this.coalescer.admit(notice)) {
      this.log.debug({ event: notice.event, key: notice.key }, 'duplicate notice coalesced');
      return [];
    }
    for (const id of targets) void this.queue(id).enqueue(notice);
    return targets;
  }

  /**
   * "Send a test" to one channel or every configured one: one attempt each,
   * straight to the channel (not behind notices its queue is retrying), so the
   * owner hears at once whether it works; the outcome joins the history.
   */
  async sendTest(only: ChannelId | null): Promise<TestResult[]> {
    const notice = testNotice(epochSeconds(this.deps.clock));
    const targets = (only ? [only] : [...CHANNEL_IDS]).flatMap((id) => {
      const built = this.built.get(id);
      return built ? [{ id, channel: built.channel }] : [];
    });
    return Promise.all(
      targets.map(async ({ id, channel }) => {
        const result = await loadDeliveryQueue().attemptOnce(channel, notice, undefined, this.deps.timers);
        if (result.status !== 'skipped') this.recordTest(id, notice, result.status === 'sent', result.detail);
        return { channel: id, status: result.status, detail: result.detail };
      }),
    );
  }

  private recordTest(channel: ChannelId, notice: Notice, sent: boolean, detail: string): void {
    try {
      this.deliveries.record({
        epoch: notice.epoch,
        channel,
        event: notice.event,
        tag: notice.tag,
        title: notice.title,
        status: sent ? 'sent' : 'failed',
        attempts: 1,
        detail,
      });
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'could not record a test delivery');
    }
  }

  isConfigured(channel: ChannelId): boolean {
    return this.built.has(channel);
  }

  status(): NotifyStatus {
    const table: RouteTable = this.routing.table();
    return {
      push: this.pushStatus(),
      links: this.deps.publicUrl !== null,
      persisted: this.routing.persisted,
      channels: CHANNEL_IDS.map((id) => this.channelStatus(id)),
      events: CATALOG.map((entry) => ({
        id: entry.id,
        label: entry.label,
        description: entry.description,
        severity: entry.severity,
        routes: table[entry.id],
      })),
      recent: this.deliveries.recent(20),
    };
  }

  /** For GET /diagnostics (issue 21): channel states, push facts and the last deliveries, no secrets. */
  /** Each channel's state for GET /diagnostics (ops/diagnostics' NotificationStatesProvider). */
  channelStates(): {
    channel: string;
    enabled: boolean;
    last_delivery_epoch: number | null;
    last_failure_epoch: number | null;
    last_error: string | null;
  }[] {
    return this.status().channels.map((c) => ({
      channel: c.id,
      enabled: c.configured,
      last_delivery_epoch: c.last_sent?.epoch ?? null,
      last_failure_epoch: c.last_failure?.epoch ?? null,
      last_error: c.last_failure?.detail ?? null,
    }));
  }

  diagnostics(): Pick<NotifyStatus, 'push' | 'links' | 'channels' | 'recent'> {
    const { push, links, channels } = this.status();
    return { push, links, channels, recent: this.deliveries.recent(50) };
  }

  private pushEnabled(): boolean {
    return this.deps.config()?.config.features.enable_push ?? true;
  }

  private pushStatus(): NotifyStatus['push'] {
    const enabled = this.pushEnabled();
    return {
      enabled,
      vapid_configured: enabled && this.vapid.keys !== null,
      key_source: enabled ? (this.vapid.keys?.source ?? null) : null,
      note: enabled ? this.vapid.note : 'features.enable_push is false',
      devices: this.deps.store ? this.deps.store.pushSubscriptions.list().length : null,
    };
  }

  private channelStatus(id: ChannelId): ChannelStatus {
    const queue = this.queues.get(id)?.state() ?? { queued: 0, retrying: null };
    return {
      id,
      label: CHANNEL_LABELS[id],
      configured: this.built.has(id),
      note: this.built.has(id) ? null : this.whyNot(id),
      queued: queue.queued,
      retrying: queue.retrying,
      last_sent: this.deliveries.last(id, 'sent'),
      last_failure: this.deliveries.last(id, 'failed'),
    };
  }

  private whyNot(id: ChannelId): string {
    if (id !== 'web_push') return `add [notifications.${id}] to the configuration`;
    if (!this.pushEnabled()) return 'features.enable_push is false';
    if (!this.deps.store) return 'the database is unavailable: no device can subscribe';
    return this.vapid.note ?? 'vapid not configured';
  }

  private queue(id: ChannelId): DeliveryQueue {
    let queue = this.queues.get(id);
    if (!queue) {
      queue = new (loadDeliveryQueue().DeliveryQueue)({
        channel: id,
        sender: () => this.built.get(id)?.channel ?? null,
        log: this.deliveries,
        clock: this.deps.clock,
        logger: this.log,
        retryDelaysMs: this.deps.retryDelaysMs,
        timers: this.deps.timers,
      });
      this.queues.set(id, queue);
    }
    return queue;
  }

  /** Builds, keeps or drops each channel to match the config; an unchanged channel keeps its connection. */
  private reconfigure(): void {
    const config = this.deps.config()?.config ?? null;
    this.reloadVapid(config);
    const wanted = new Map<ChannelId, Built>();
    const notifications = config?.notifications ?? {};
    const { fetch, publicUrl } = this.deps;
    if (this.vapidPublicKey() && this.deps.store) {
      wanted.set('web_push', {
        fingerprint: JSON.stringify(this.vapid.keys),
        channel: this.webPush(this.deps.store),
      });
    }
    if (notifications.ntfy) {
      const settings = notifications.ntfy;
      wanted.set('ntfy', {
        fingerprint: JSON.stringify([settings, publicUrl]),
        channel: new (channelModule('ntfy').NtfyChannel)(settings, { fetch, publicUrl }),
      });
    }
    if (notifications.slack) {
      const settings = notifications.slack;
      wanted.set('slack', {
        fingerprint: JSON.stringify([settings, publicUrl]),
        channel: new (channelModule('slack').SlackChannel)(settings, { fetch, publicUrl }),
      });
    }
    if (notifications.email) {
      const settings = notifications.email;
      wanted.set('email', {
        fingerprint: JSON.stringify([settings, publicUrl]),
        channel: new (channelModule('email').EmailChannel)(settings, {
          publicUrl,
          ...(this.deps.smtpTls ? { tls: this.deps.smtpTls } : {}),
        }),
      });
    }
    this.swap(wanted);
  }

  private swap(wanted: Map<ChannelId, Built>): void {
    for (const [id, current] of this.built) {
      const next = wanted.get(id);
      if (next?.fingerprint === current.fingerprint) continue;
      current.channel.close?.();
      this.built.delete(id);
    }
    for (const [id, next] of wanted) {
      if (this.built.has(id)) continue;
      this.built.set(id, next);
      this.log.info({ channel: id }, 'notification channel ready');
    }
  }

  private webPush(store: Store): WebPushChannel {
    return new (channelModule('web-push').WebPushChannel)({
      subscriptions: () => store.pushSubscriptions.list(),
      removeSubscription: (endpoint) => {
        store.pushSubscriptions.remove(endpoint);
        this.log.info('a push subscription the push service reported gone was removed');
      },
      keys: () => this.vapid.keys,
      fetch: this.deps.fetch,
    });
  }

  /** Loads (or generates, at the first start) the keypair when push is on and its settings changed. */
  private reloadVapid(config: AppliedConfig['config'] | null): void {
    if (!this.pushEnabled()) return;
    const settings = config?.notifications.web_push;
    const fingerprint = JSON.stringify(settings ?? null);
    if (fingerprint === this.vapidFingerprint) return;
    this.vapidFingerprint = fingerprint;
    this.vapid = loadVapidKeys(settings, this.deps.dataDir);
    if (this.vapid.note) this.log.warn(this.vapid.note);
    else this.log.info({ source: this.vapid.keys?.source }, 'web push keypair loaded');
  }
}

function isCatalogEvent(event: string): event is (typeof CATALOG)[number]['id'] {
  return CATALOG.some((entry) => entry.id === event);
}

interface ChannelModules {
  ntfy: typeof import('./channels/ntfy');
  slack: typeof import('./channels/slack');
  email: typeof import('./channels/email');
  'web-push': typeof import('./channels/web-push');
}

/** A channel's module, loaded the first time the config turns the channel on (an idle demo uses none). */
function channelModule<K extends keyof ChannelModules>(name: K): ChannelModules[K] {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(`./channels/${name}`) as ChannelModules[K];
}

/** The delivery queue loads with the first notice or test send: an idle service may never send one. */
function loadDeliveryQueue(): typeof import('./delivery-queue') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./delivery-queue') as typeof import('./delivery-queue');
}
