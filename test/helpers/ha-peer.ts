import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';

/**
 * A loopback Home Assistant core that speaks the websocket API as the fixture
 * (shared/fixtures/ha-websocket.md) and HA itself do: auth_required on
 * connect, auth -> auth_ok / auth_invalid (then close), then commands with
 * strictly increasing integer ids (`id_reuse` otherwise), each answered with a
 * `result` (or `pong`): get_states, get_config, subscribe_events /
 * unsubscribe_events with `event` messages on the subscription's id,
 * call_service (recorded), supported_features (coalesced events arrive as
 * arrays, as HA sends them), and `unknown_command` for the rest.
 */

export interface PeerState {
  entity_id: string;
  state: string;
  attributes: Record<string, unknown>;
  last_changed: string;
  last_updated: string;
  last_reported?: string;
  context: { id: string; parent_id: string | null; user_id: string | null };
}

/** A state as a test writes it; timestamps default to now. */
export interface PeerStateInput {
  entity_id: string;
  state: string;
  attributes?: Record<string, unknown>;
  last_changed?: string;
  last_updated?: string;
  last_reported?: string;
}

export interface RecordedCall {
  domain: string;
  service: string;
  service_data: Record<string, unknown> | undefined;
  target: Record<string, unknown> | undefined;
  return_response: boolean | undefined;
}

export interface HaPeerOptions {
  token?: string;
  haVersion?: string;
  states?: PeerStateInput[];
  config?: Record<string, unknown>;
  /** Listen on this port (a restart on a known port); 0 = ephemeral. */
  port?: number;
}

interface PeerClient {
  ws: WebSocket;
  authed: boolean;
  lastId: number;
  coalesce: boolean;
  /** Subscription id -> event type (null = all events). */
  subscriptions: Map<number, string | null>;
}

type Message = Record<string, unknown>;

export const PEER_TOKEN = 'peer-long-lived-token-3f9a';

export const DEFAULT_HA_CONFIG = {
  latitude: 40.015,
  longitude: -105.2705,
  elevation: 1655,
  unit_system: {
    length: 'mi',
    accumulated_precipitation: 'in',
    mass: 'lb',
    pressure: 'psi',
    temperature: '°F',
    volume: 'gal',
    wind_speed: 'mph',
  },
  location_name: 'Home',
  time_zone: 'America/Denver',
  components: ['sensor', 'switch', 'valve', 'input_number', 'input_boolean'],
  config_dir: '/config',
  allowlist_external_dirs: [],
  allowlist_external_urls: [],
  version: '2025.8.1',
  config_source: 'storage',
  recovery_mode: false,
  safe_mode: false,
  state: 'RUNNING',
  external_url: null,
  internal_url: null,
  currency: 'USD',
  country: 'US',
  language: 'en',
  radius: 100,
};

/** HA's timestamp form: microseconds and `+00:00`. */
export function haTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '000+00:00');
}

let contextCounter = 0;
function context(): PeerState['context'] {
  contextCounter += 1;
  return {
    id: `01K2J1EAWZ9AEH2SXE3NB${String(contextCounter).padStart(5, '0')}`,
    parent_id: null,
    user_id: null,
  };
}

export class HaPeer {
  readonly calls: RecordedCall[] = [];
  /** Every command received after auth, in order. */
  readonly received: Message[] = [];
  /** Every access token offered, in order. */
  readonly authAttempts: string[] = [];
  /** Connections accepted since start. */
  connectionCount = 0;
  pings = 0;
  /** false: ignore pings (a half-open connection). */
  respondToPings = true;
  /** Command types received but never answered (a stuck HA). */
  readonly ignoreCommands = new Set<string>();
  /** `domain.service` names answered with `service_not_found`. */
  readonly rejectServices = new Set<string>();
  /** `domain.service` names answered with this HA error (`unauthorized`, `service_validation_error`, ...). */
  readonly failServices = new Map<string, { code: string; message: string }>();
  token: string;
  readonly haVersion: string;
  config: Record<string, unknown>;

  private readonly states = new Map<string, PeerState>();
  private readonly clients = new Set<PeerClient>();

  private constructor(
    private readonly server: WebSocketServer,
    options: HaPeerOptions,
  ) {
    this.token = options.token ?? PEER_TOKEN;
    this.haVersion = options.haVersion ?? '2025.8.1';
    this.config = { ...DEFAULT_HA_CONFIG, ...options.config };
    for (const state of options.states ?? []) this.setState(state);
    server.on('connection', (ws) => this.accept(ws));
  }

  static start(options: HaPeerOptions = {}): Promise<HaPeer> {
    return new Promise((resolve, reject) => {
      const server = new WebSocketServer({
        host: '127.0.0.1',
        port: options.port ?? 0,
        path: '/api/websocket',
      });
      server.once('error', reject);
      server.once('listening', () => {
        server.off('error', reject);
        resolve(new HaPeer(server, options));
      });
    });
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get url(): string {
    return `ws://127.0.0.1:${this.port}/api/websocket`;
  }

  /** Authenticated connections currently open. */
  get openConnections(): number {
    return [...this.clients].filter((c) => c.authed && c.ws.readyState === WebSocket.OPEN).length;
  }

  /** `state_changed` (or all-event) subscriptions on open authenticated connections. */
  subscriptionCount(): number {
    let count = 0;
    for (const client of this.clients) {
      if (!client.authed || client.ws.readyState !== WebSocket.OPEN) continue;
      for (const type of client.subscriptions.values())
        if (type === null || type === 'state_changed') count += 1;
    }
    return count;
  }

  /** Sets a state without firing an event (what changed while nobody listened). */
  setState(input: PeerStateInput): PeerState {
    const now = haTimestamp(Date.now());
    const state: PeerState = {
      entity_id: input.entity_id,
      state: input.state,
      attributes: input.attributes ?? {},
      last_changed: input.last_changed ?? input.last_updated ?? now,
      last_updated: input.last_updated ?? now,
      last_reported: input.last_reported ?? input.last_updated ?? now,
      context: context(),
    };
    this.states.set(state.entity_id, state);
    return state;
  }

  getState(entityId: string): PeerState | undefined {
    return this.states.get(entityId);
  }

  /**
   * Changes an entity's state and fires `state_changed` to every subscriber,
   * as HA does: attributes default to the old ones, `last_changed` moves only
   * when the state string changed. `null` removes the entity. Returns the
   * number of subscriptions the event went to.
   */
  emitStateChange(entityId: string, newState: Omit<PeerStateInput, 'entity_id'> | null): number {
    const old = this.states.get(entityId) ?? null;
    let next: PeerState | null = null;
    if (newState) {
      const now = haTimestamp(Date.now());
      const changed = old === null || old.state !== newState.state;
      next = this.setState({
        entity_id: entityId,
        state: newState.state,
        attributes: newState.attributes ?? old?.attributes ?? {},
        last_updated: newState.last_updated ?? now,
        last_changed: newState.last_changed ?? (changed ? (newState.last_updated ?? now) : old.last_changed),
        last_reported: newState.last_reported,
      });
    } else {
      this.states.delete(entityId);
    }
    const ctx = next?.context ?? context();
    const event = {
      event_type: 'state_changed',
      data: { entity_id: entityId, old_state: old, new_state: next },
      origin: 'LOCAL',
      time_fired: haTimestamp(Date.now()),
      context: ctx,
    };
    let delivered = 0;
    for (const client of this.clients) {
      if (!client.authed) continue;
      for (const [id, type] of client.subscriptions) {
        if (type !== null && type !== 'state_changed') continue;
        this.send(client, { id, type: 'event', event }, true);
        delivered += 1;
      }
    }
    return delivered;
  }

  /** Drops every connection at once, as an HA restart or a network cut does. */
  dropConnections(): void {
    for (const client of this.clients) client.ws.terminate();
  }

  async close(): Promise<void> {
    this.dropConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(ws: WebSocket): void {
    this.connectionCount += 1;
    const client: PeerClient = { ws, authed: false, lastId: 0, coalesce: false, subscriptions: new Map() };
    this.clients.add(client);
    ws.on('close', () => this.clients.delete(client));
    ws.on('error', () => undefined);
    ws.on('message', (data) => {
      let message: Message;
      try {
        message = JSON.parse(data.toString()) as Message;
      } catch {
        ws.close(1003);
        return;
      }
      if (client.authed) this.command(client, message);
      else this.authenticate(client, message);
    });
    this.send(client, { type: 'auth_required', ha_version: this.haVersion });
  }

  private authenticate(client: PeerClient, message: Message): void {
    if (message.type !== 'auth' || typeof message.access_token !== 'string') {
      this.send(client, {
        type: 'auth_invalid',
        message: 'Auth message incorrectly formatted: expected auth',
      });
      client.ws.close();
      return;
    }
    this.authAttempts.push(message.access_token);
    if (message.access_token !== this.token) {
      this.send(client, { type: 'auth_invalid', message: 'Invalid access token or password' });
      client.ws.close();
      return;
    }
    client.authed = true;
    this.send(client, { type: 'auth_ok', ha_version: this.haVersion });
  }

  private command(client: PeerClient, message: Message): void {
    this.received.push(message);
    const id = message.id;
    if (typeof id !== 'number' || !Number.isInteger(id)) {
      this.send(client, {
        id: null,
        type: 'result',
        success: false,
        error: {
          code: 'invalid_format',
          message: "Message incorrectly formatted: required key not provided @ data['id']",
        },
      });
      return;
    }
    if (id <= client.lastId) {
      this.error(client, id, 'id_reuse', 'Identifier values have to increase.');
      return;
    }
    client.lastId = id;
    if (this.ignoreCommands.has(String(message.type))) return;
    switch (message.type) {
      case 'supported_features': {
        const features = (message.features ?? {}) as Record<string, unknown>;
        client.coalesce = features.coalesce_messages === 1;
        this.result(client, id, null);
        break;
      }
      case 'ping':
        this.pings += 1;
        if (this.respondToPings) this.send(client, { id, type: 'pong' });
        break;
      case 'get_states':
        this.result(client, id, [...this.states.values()]);
        break;
      case 'get_config':
        this.result(client, id, this.config);
        break;
      case 'subscribe_events':
        client.subscriptions.set(id, typeof message.event_type === 'string' ? message.event_type : null);
        this.result(client, id, null);
        break;
      case 'unsubscribe_events':
        if (client.subscriptions.delete(message.subscription as number)) this.result(client, id, null);
        else this.error(client, id, 'not_found', 'Subscription not found.');
        break;
      case 'call_service': {
        const call: RecordedCall = {
          domain: String(message.domain),
          service: String(message.service),
          service_data: message.service_data as RecordedCall['service_data'],
          target: message.target as RecordedCall['target'],
          return_response: message.return_response as boolean | undefined,
        };
        this.calls.push(call);
        const failure = this.failServices.get(`${call.domain}.${call.service}`);
        if (this.rejectServices.has(`${call.domain}.${call.service}`)) {
          this.error(client, id, 'service_not_found', `Action ${call.domain}.${call.service} not found.`);
        } else if (failure) {
          this.error(client, id, failure.code, failure.message);
        } else {
          this.result(client, id, { context: context(), response: null });
        }
        break;
      }
      default:
        this.error(client, id, 'unknown_command', 'Unknown command.');
    }
  }

  private result(client: PeerClient, id: number, result: unknown): void {
    this.send(client, { id, type: 'result', success: true, result });
  }

  private error(client: PeerClient, id: number, code: string, message: string): void {
    this.send(client, { id, type: 'result', success: false, error: { code, message } });
  }

  private send(client: PeerClient, message: Message, coalescible = false): void {
    if (client.ws.readyState !== WebSocket.OPEN) return;
    client.ws.send(JSON.stringify(coalescible && client.coalesce ? [message] : message));
  }
}

/** Polls until `check` holds (or throws after `timeoutMs` with `what`). */
export async function waitFor(check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A port nothing listens on right now (bound and released). */
export async function freePort(): Promise<number> {
  const peer = await HaPeer.start();
  const port = peer.port;
  await peer.close();
  return port;
}
