import {
  callService as haCallService,
  createConnection,
  ERR_CONNECTION_LOST,
  ERR_INVALID_AUTH,
  getConfig as haGetConfig,
  getStates as haGetStates,
  type Connection,
  type HassConfig,
  type HassEntity,
  type HassServiceTarget,
  type StateChangedEvent,
} from 'home-assistant-js-websocket';
import type WebSocket from 'ws';
import { epochSeconds, type Clock } from '../core/clock';
import type { HaHealth, SubsystemStatus } from '../core/health';
import type { Module } from '../core/lifecycle';
import type { Logger } from '../core/logger';
import { HaSocketFactory, type HaConnectFailure } from './ws-socket';
import { ADDON_WEBSOCKET_URL, type HaLinkMode } from './ha-env';

export {
  ADDON_WEBSOCKET_URL,
  haLinkOptionsFromEnv,
  toWebsocketUrl,
  type HaLinkEnvOptions,
  type HaLinkMode,
} from './ha-env';

/**
 * The one connection to Home Assistant core, over its websocket API through
 * home-assistant-js-websocket. It authenticates with a long-lived token (or
 * the add-on's SUPERVISOR_TOKEN), keeps the link up (the library reconnects a
 * dropped connection; this module retries a failed first connect and an
 * auth rejection itself, with back-off), pings to notice a half-open socket,
 * and offers states, config, one shared `state_changed` subscription and
 * service calls. It reports through its status and callbacks only; it knows
 * nothing about weather or irrigation. The token is never logged.
 */

/** A Home Assistant state object (fixture: `state` is always a string; `last_reported` on 2024.3+). */
export type HaState = HassEntity & { last_reported?: string };
export type HaConfig = HassConfig;
export type HaServiceTarget = HassServiceTarget;

export interface HaLinkOptions {
  /** Websocket URL: `ws://host:8123/api/websocket`, or `ws://supervisor/core/websocket` in add-on mode. */
  url: string;
  token: string;
  logger: Logger;
  clock: Clock;
  mode?: HaLinkMode;
  /** Bound on opening the socket plus the auth phase. Default 10 s. */
  connectTimeoutMs?: number;
  /** Bound on one request (get_states, call_service, ...). Default 30 s. */
  requestTimeoutMs?: number;
  /** Back-off of this module's own connect retries: doubles from min to max. Defaults 1 s .. 60 s. */
  retryMinMs?: number;
  retryMaxMs?: number;
  /** Wait before trying a rejected token again (not hammering HA's login ban). Default 5 min. */
  authRetryMs?: number;
  /** Keep-alive ping period; 0 disables. Default 30 s. */
  pingIntervalMs?: number;
  /** A ping unanswered this long drops the socket so the library reconnects. Default 10 s. */
  pingTimeoutMs?: number;
}

export type HaLinkState =
  'idle' | 'connecting' | 'connected' | 'reconnecting' | 'unreachable' | 'auth_failed' | 'stopped';

export interface HaLinkStatus {
  state: HaLinkState;
  reachable: boolean;
  mode: HaLinkMode;
  /** The websocket URL without credentials. */
  url: string;
  ha_version: string | null;
  /** Why the link is not connected (null while connected). */
  note: string | null;
  connected_since_epoch: number | null;
  last_failure_epoch: number | null;
}

export type HaRequestErrorCode = 'not_connected' | 'connection_lost' | 'timeout' | string;

/** A request that did not succeed: HA's own error code (`service_not_found`, ...) or the link's. */
export class HaRequestError extends Error {
  constructor(
    readonly code: HaRequestErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'HaRequestError';
  }
}

export type StateListener = (entityId: string, state: HaState | null) => void;
export type ConnectionListener = (connected: boolean) => void;

interface StateSubscriber {
  entityIds: ReadonlySet<string>;
  onState: StateListener;
}

interface SharedSubscription {
  conn: Connection;
  unsubscribe: Promise<(() => Promise<void>) | null>;
}

export class HaLink implements Module {
  readonly name = 'ha';
  readonly mode: HaLinkMode;

  private readonly log: Logger;
  private readonly factory: HaSocketFactory;
  private readonly safeUrl: string;
  private readonly connectTimeoutMs: number;
  private readonly requestTimeoutMs: number;
  private readonly retryMinMs: number;
  private readonly retryMaxMs: number;
  private readonly authRetryMs: number;
  private readonly pingIntervalMs: number;
  private readonly pingTimeoutMs: number;

  private running = false;
  private conn: Connection | null = null;
  private state: HaLinkState = 'idle';
  private note: string | null = 'not started';
  private haVersion: string | null = null;
  private connectedSinceEpoch: number | null = null;
  private lastFailureEpoch: number | null = null;
  private failures = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  private pingTimer: NodeJS.Timeout | null = null;
  private pingInFlight = false;

  private readonly subscribers = new Set<StateSubscriber>();
  private subscription: SharedSubscription | null = null;
  private readonly connectionListeners = new Set<ConnectionListener>();
  private readonly snapshotSources: string[] = [];

  constructor(private readonly options: HaLinkOptions) {
    this.mode = options.mode ?? (options.url === ADDON_WEBSOCKET_URL ? 'addon' : 'standalone');
    this.log = options.logger.child({ module: 'ha' });
    this.safeUrl = withoutCredentials(options.url);
    this.connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.retryMinMs = options.retryMinMs ?? 1_000;
    this.retryMaxMs = options.retryMaxMs ?? 60_000;
    this.authRetryMs = options.authRetryMs ?? 300_000;
    this.pingIntervalMs = options.pingIntervalMs ?? 30_000;
    this.pingTimeoutMs = options.pingTimeoutMs ?? 10_000;
    this.factory = new HaSocketFactory({
      url: options.url,
      token: options.token,
      connectTimeoutMs: this.connectTimeoutMs,
      onSocketError: (err) => this.log.warn({ reason: err.message }, 'Home Assistant socket error'),
      onFailure: (failure) => {
        if (this.state === 'reconnecting' && failure.kind === 'unreachable') {
          this.lastFailureEpoch = epochSeconds(this.options.clock);
          this.note = `connection to Home Assistant lost; reconnecting (${failure.message})`;
        }
      },
    });
  }

  /**
   * Makes the first connection attempt and returns when it succeeded or
   * failed; a failure is retried in the background, never thrown.
   */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.factory.reset();
    this.failures = 0;
    this.setState('connecting', 'connecting to Home Assistant');
    this.log.info({ url: this.safeUrl, mode: this.mode }, 'connecting to Home Assistant');
    await this.attempt();
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    const wasReachable = this.reachable;
    this.running = false;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.stopPing();
    this.factory.abortAll();
    const conn = this.conn;
    this.conn = null;
    this.subscription = null;
    this.connectedSinceEpoch = null;
    this.setState('stopped', 'stopped');
    if (conn) {
      const socket = conn.socket as unknown as WebSocket | undefined;
      conn.close();
      if (socket) await closed(socket, 2_000);
    }
    if (wasReachable) this.notifyConnection(false);
    this.log.info('Home Assistant link stopped');
  }

  /** True only while an authenticated socket is open. */
  get reachable(): boolean {
    return this.state === 'connected' && this.conn !== null && this.conn.connected;
  }

  status(): HaLinkStatus {
    return {
      state: this.state,
      reachable: this.reachable,
      mode: this.mode,
      url: this.safeUrl,
      ha_version: this.haVersion,
      note: this.reachable ? null : this.note,
      connected_since_epoch: this.reachable ? this.connectedSinceEpoch : null,
      last_failure_epoch: this.lastFailureEpoch,
    };
  }

  /** The health `ha` block (spec 2.5). A link exists only when the environment configured one. */
  health(): HaHealth {
    return {
      env_configured: true,
      reachable: this.reachable,
      snapshot_source: this.snapshotSources[0] ?? null,
    };
  }

  /** The `ha` subsystem status for HealthRegistry.set(). */
  subsystemStatus(): { status: SubsystemStatus; note: string | null } {
    switch (this.state) {
      case 'connected':
        return this.reachable
          ? { status: 'ok', note: null }
          : { status: 'unavailable', note: 'connection lost' };
      case 'idle':
      case 'connecting':
        return { status: 'starting', note: this.note };
      case 'auth_failed':
        return { status: 'invalid', note: this.note };
      case 'stopped':
        return { status: 'disabled', note: null };
      default:
        return { status: 'unavailable', note: this.note };
    }
  }

  /**
   * A weather source fed from this link names itself for the health block's
   * `snapshot_source`; the returned function withdraws it.
   */
  registerSnapshotSource(sourceId: string): () => void {
    this.snapshotSources.push(sourceId);
    return () => {
      const index = this.snapshotSources.indexOf(sourceId);
      if (index !== -1) this.snapshotSources.splice(index, 1);
    };
  }

  /** Called with true after every (re)connect and false when the connection drops. */
  onConnectionChange(listener: ConnectionListener): () => void {
    this.connectionListeners.add(listener);
    return () => {
      this.connectionListeners.delete(listener);
    };
  }

  getStates(): Promise<HaState[]> {
    return this.request('get_states', (conn) => haGetStates(conn) as Promise<HaState[]>);
  }

  getConfig(): Promise<HaConfig> {
    return this.request('get_config', (conn) => haGetConfig(conn));
  }

  /** Resolves with HA's result (`{context, response}`); rejects with HaRequestError. */
  callService(
    domain: string,
    service: string,
    data?: Record<string, unknown>,
    target?: HaServiceTarget,
  ): Promise<unknown> {
    return this.request(`call_service ${domain}.${service}`, (conn) =>
      haCallService(conn, domain, service, data, target),
    );
  }

  /**
   * Live state changes of the given entities (new_state null: the entity was
   * removed). All subscribers share one `subscribe_events state_changed`
   * subscription, filtered here; it survives reconnects. Registering while
   * disconnected is fine: delivery starts with the next connection.
   */
  subscribeStates(entityIds: readonly string[], onState: StateListener): () => void {
    const subscriber: StateSubscriber = { entityIds: new Set(entityIds), onState };
    this.subscribers.add(subscriber);
    this.ensureSubscription();
    return () => {
      if (!this.subscribers.delete(subscriber)) return;
      if (this.subscribers.size === 0) this.dropSubscription();
    };
  }

  // --- connection management -------------------------------------------------

  private async attempt(): Promise<void> {
    this.retryTimer = null;
    if (!this.running) return;
    let conn: Connection;
    try {
      conn = await createConnection({ createSocket: this.factory.create, setupRetry: 0 });
    } catch (err) {
      if (this.running) this.connectFailed(err);
      return;
    }
    if (!this.running) {
      conn.close();
      return;
    }
    this.adopt(conn);
  }

  private adopt(conn: Connection): void {
    this.conn = conn;
    conn.addEventListener('disconnected', () => {
      if (this.conn !== conn || !this.running) return;
      this.stopPing();
      this.connectedSinceEpoch = null;
      this.lastFailureEpoch = epochSeconds(this.options.clock);
      this.setState('reconnecting', 'connection to Home Assistant lost; reconnecting');
      this.log.warn('Home Assistant connection lost; reconnecting');
      this.notifyConnection(false);
    });
    conn.addEventListener('ready', () => {
      if (this.conn !== conn || !this.running) return;
      this.connected(conn, true);
    });
    // The library ends its reconnect loop on auth_invalid; take over with the slow auth back-off.
    conn.addEventListener('reconnect-error', (_conn, err) => {
      if (this.conn !== conn || !this.running) return;
      this.conn = null;
      this.subscription = null;
      conn.close();
      this.connectFailed(err);
    });
    this.connected(conn, false);
  }

  private connected(conn: Connection, reconnect: boolean): void {
    this.failures = 0;
    this.haVersion = conn.haVersion || null;
    this.connectedSinceEpoch = epochSeconds(this.options.clock);
    this.setState('connected', null);
    this.log.info(
      { url: this.safeUrl, ha_version: this.haVersion },
      reconnect ? 'reconnected to Home Assistant' : 'connected to Home Assistant',
    );
    this.startPing(conn);
    this.ensureSubscription();
    this.notifyConnection(true);
  }

  private connectFailed(err: unknown): void {
    const failure: HaConnectFailure = this.factory.lastFailure ?? {
      kind: err === ERR_INVALID_AUTH ? 'auth_invalid' : 'unreachable',
      message: describeError(err),
    };
    if (failure.kind === 'aborted') return;
    this.lastFailureEpoch = epochSeconds(this.options.clock);
    const repeated = this.failures > 0;
    let delay: number;
    if (failure.kind === 'auth_invalid') {
      delay = this.authRetryMs;
      this.setState(
        'auth_failed',
        `Home Assistant rejected the access token (auth_invalid: ${failure.message}); check the token`,
      );
    } else {
      delay = Math.min(this.retryMaxMs, this.retryMinMs * 2 ** Math.min(this.failures, 16));
      this.setState('unreachable', `Home Assistant not reachable at ${this.safeUrl}: ${failure.message}`);
    }
    this.failures += 1;
    const fields = { url: this.safeUrl, reason: failure.message, retry_in_ms: delay };
    if (repeated) this.log.debug(fields, 'Home Assistant connect failed again');
    else if (failure.kind === 'auth_invalid')
      this.log.error(fields, 'Home Assistant rejected the access token');
    else this.log.warn(fields, 'Home Assistant not reachable');
    this.retryTimer = setTimeout(() => void this.attempt(), delay);
    this.retryTimer.unref();
  }

  private setState(state: HaLinkState, note: string | null): void {
    this.state = state;
    this.note = note;
  }

  private notifyConnection(connected: boolean): void {
    for (const listener of [...this.connectionListeners]) {
      try {
        listener(connected);
      } catch (err) {
        this.log.error({ err }, 'Home Assistant connection listener failed');
      }
    }
  }

  // --- keep-alive --------------------------------------------------------------

  /** The library does not ping by itself; without pings a half-open socket looks connected for hours. */
  private startPing(conn: Connection): void {
    this.stopPing();
    if (this.pingIntervalMs <= 0) return;
    this.pingTimer = setInterval(() => void this.ping(conn), this.pingIntervalMs);
    this.pingTimer.unref();
  }

  private stopPing(): void {
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.pingTimer = null;
    this.pingInFlight = false;
  }

  private async ping(conn: Connection): Promise<void> {
    if (this.pingInFlight || this.conn !== conn || !conn.connected) return;
    this.pingInFlight = true;
    const socket = conn.socket as unknown as WebSocket | undefined;
    try {
      await withTimeout(conn.ping(), this.pingTimeoutMs);
    } catch (err) {
      if (err instanceof TimeoutError && this.conn === conn && conn.socket === (socket as unknown)) {
        this.log.warn(
          { timeout_ms: this.pingTimeoutMs },
          'Home Assistant did not answer a ping; reconnecting',
        );
        socket?.terminate();
      }
    } finally {
      this.pingInFlight = false;
    }
  }

  // --- requests --------------------------------------------------------------

  private async request<T>(label: string, run: (conn: Connection) => Promise<T>): Promise<T> {
    const conn = this.conn;
    if (!conn || !this.reachable) {
      throw new HaRequestError('not_connected', `Home Assistant is not connected (${label})`);
    }
    try {
      return await withTimeout(run(conn), this.requestTimeoutMs);
    } catch (err) {
      throw toRequestError(err, label, this.requestTimeoutMs);
    }
  }

  // --- the shared state_changed subscription ---------------------------------

  private ensureSubscription(): void {
    const conn = this.conn;
    if (!conn || this.subscribers.size === 0 || this.subscription?.conn === conn) return;
    const entry: SharedSubscription = {
      conn,
      unsubscribe: conn
        .subscribeEvents<StateChangedEvent>((event) => {
          if (this.subscription === entry) this.dispatch(event);
        }, 'state_changed')
        .catch((err: unknown) => {
          this.log.error({ reason: describeError(err) }, 'Home Assistant refused the state subscription');
          if (this.subscription === entry) this.subscription = null;
          return null;
        }),
    };
    this.subscription = entry;
  }

  private dropSubscription(): void {
    const entry = this.subscription;
    this.subscription = null;
    if (!entry) return;
    void entry.unsubscribe
      .then((unsubscribe) => unsubscribe?.())
      .catch(() => {
        // Already gone with the connection.
      });
  }

  private dispatch(event: StateChangedEvent): void {
    const entityId = event?.data?.entity_id;
    if (typeof entityId !== 'string') return;
    const state = (event.data.new_state ?? null) as HaState | null;
    for (const subscriber of [...this.subscribers]) {
      if (!subscriber.entityIds.has(entityId)) continue;
      try {
        subscriber.onState(entityId, state);
      } catch (err) {
        this.log.error({ err, entity_id: entityId }, 'Home Assistant state listener failed');
      }
    }
  }
}

// --- helpers ---------------------------------------------------------------------

class TimeoutError extends Error {}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new TimeoutError(`no answer within ${ms} ms`)), ms);
    timer.unref();
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

/** The library rejects with bare numbers (ERR_*) or HA's `{code, message}` error objects. */
function toRequestError(err: unknown, label: string, timeoutMs: number): HaRequestError {
  if (err instanceof HaRequestError) return err;
  if (err instanceof TimeoutError) {
    return new HaRequestError('timeout', `Home Assistant did not answer ${label} within ${timeoutMs} ms`);
  }
  if (err === ERR_CONNECTION_LOST) {
    return new HaRequestError('connection_lost', `connection to Home Assistant lost during ${label}`);
  }
  if (typeof err === 'object' && err !== null && 'code' in err) {
    const { code, message } = err as { code: unknown; message?: unknown };
    // The library's own "connection lost" arrives as {code: 3, message: 'Connection lost'}.
    if (code === ERR_CONNECTION_LOST) {
      return new HaRequestError('connection_lost', `connection to Home Assistant lost during ${label}`);
    }
    return new HaRequestError(
      String(code),
      `${label}: ${typeof message === 'string' ? message : String(code)}`,
    );
  }
  return new HaRequestError('error', `${label}: ${describeError(err)}`);
}

function describeError(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === 'number') return `library error ${err}`;
  return String(err);
}

function withoutCredentials(raw: string): string {
  try {
    const url = new URL(raw);
    url.username = '';
    url.password = '';
    url.search = '';
    return url.toString();
  } catch {
    return raw;
  }
}

/** Resolves once the socket closed (a clean close handshake), terminating it after `ms`. */
function closed(socket: WebSocket, ms: number): Promise<void> {
  if (socket.readyState === socket.CLOSED) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      socket.terminate();
      resolve();
    }, ms);
    timer.unref();
    socket.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
