import type WebSocket from 'ws';
import { lazySchema } from '../../../core/zod-lazy';
import type { Logger } from '../../../core/logger';
import type { Reading, SourceContext, SourceKindDefinition, WeatherSource } from '../../source';
import { parseSourceConfig } from '../../source';
import { parseTempestMessage, TEMPEST_PROVIDES, tempestToBatch } from './tempest-messages';
import { TempestTimeState } from './tempest-time-state';

/**
 * `tempest_ws`: the vendor cloud websocket (WeatherFlow Tempest API,
 * `wss://ws.weatherflow.com/swd/data?token=...`). After the connection opens
 * it asks for the device's observations (`listen_start`) and 3-second wind
 * (`listen_rapid_start`); the data messages have the UDP shapes, except that
 * obs_st carries 22 elements (index 18 = rain so far on the station's local
 * day, used for rain_in_today).
 *
 * The connection is kept up for as long as the source runs: on close, error
 * or silence it reconnects after an exponential back-off (1 s doubling to
 * 60 s, with jitter), reset by the first data message of a connection.
 */

export const TEMPEST_WS_KIND = 'tempest_ws';
export const TEMPEST_WS_DEFAULT_URL = 'wss://ws.weatherflow.com/swd/data';

function isWebsocketUrl(text: string): boolean {
  try {
    const u = new URL(text);
    return u.protocol === 'wss:' || u.protocol === 'ws:';
  } catch {
    return false;
  }
}

export const tempestWsConfigSchema = lazySchema((z) =>
  z.looseObject({
    token: z.string().min(1),
    device_id: z.number().int().positive(),
    url: z
      .string()
      .refine(isWebsocketUrl, { message: 'expected a ws:// or wss:// URL' })
      .nullish()
      .describe(`null = ${TEMPEST_WS_DEFAULT_URL}`),
  }),
);

export interface TempestWsOptions {
  /** First reconnect delay (default 1000 ms); doubles per failed attempt. */
  backoffInitialMs?: number;
  /** Longest reconnect delay (default 60000 ms). */
  backoffMaxMs?: number;
  /** A connection with no message for this long is dropped and redialled (default 180000 ms). */
  staleAfterMs?: number;
  /** Jitter source, [0, 1). */
  random?: () => number;
}

export interface TempestWsStats {
  /** Connections opened. */
  connects: number;
  /** Data messages published. */
  accepted: number;
  /** Frames that did not parse or were not understood. */
  rejected: number;
  /** Data messages for another device id. */
  filtered: number;
}

/** Delay before reconnect attempt `attempt` (0-based): initial x 2^attempt, +-25 % jitter, capped. */
export function backoffDelayMs(
  attempt: number,
  initialMs: number,
  maxMs: number,
  random: () => number,
): number {
  const base = Math.min(maxMs, initialMs * 2 ** Math.min(attempt, 30));
  return Math.max(0, Math.min(maxMs, Math.round(base * (0.75 + 0.5 * random()))));
}

const OFFLINE_EVENTS = new Set(['evt_device_offline', 'evt_station_offline']);
const ONLINE_EVENTS = new Set(['evt_device_online', 'evt_station_online']);

export class TempestWsSource implements WeatherSource {
  readonly kind = TEMPEST_WS_KIND;
  readonly id: string;
  private readonly token: string;
  private readonly deviceId: number;
  private readonly baseUrl: string;
  private readonly log: Logger;
  private readonly time: TempestTimeState;
  private readonly backoffInitialMs: number;
  private readonly backoffMaxMs: number;
  private readonly staleAfterMs: number;
  private readonly random: () => number;
  private ws: WebSocket | null = null;
  private attempt = 0;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private staleTimer: NodeJS.Timeout | null = null;
  private stopped = true;
  /** Why the current connection ended, when known before its close event. */
  private closeNote: string | null = null;
  private counts: TempestWsStats = { connects: 0, accepted: 0, rejected: 0, filtered: 0 };

  constructor(
    private readonly ctx: SourceContext,
    options: TempestWsOptions = {},
  ) {
    this.id = ctx.id;
    const config = parseSourceConfig(tempestWsConfigSchema, ctx);
    this.token = config.token;
    this.deviceId = config.device_id;
    this.baseUrl = config.url ?? TEMPEST_WS_DEFAULT_URL;
    this.log = ctx.logger.child({ module: 'weather.tempest_ws', source: ctx.id });
    this.time = new TempestTimeState(ctx.location.timezone);
    this.backoffInitialMs = options.backoffInitialMs ?? 1000;
    this.backoffMaxMs = options.backoffMaxMs ?? 60_000;
    this.staleAfterMs = options.staleAfterMs ?? 180_000;
    this.random = options.random ?? Math.random;
  }

  /** Starts connecting; resolves at once (the link comes and goes on its own). */
  async start(): Promise<void> {
    this.stopped = false;
    this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    this.disarmStale();
    const ws = this.ws;
    this.ws = null;
    if (!ws || ws.readyState === ws.CLOSED) return;
    await new Promise<void>((resolve) => {
      const force = setTimeout(() => {
        ws.terminate();
        resolve();
      }, 2000);
      force.unref();
      ws.once('close', () => {
        clearTimeout(force);
        resolve();
      });
      if (ws.readyState === ws.OPEN) ws.close(1000, 'source stopped');
      else ws.terminate();
    });
  }

  readingsAt(nowEpoch: number): Reading[] {
    return this.time.readingsAt(nowEpoch);
  }

  stats(): TempestWsStats {
    return { ...this.counts };
  }

  /** The address dialled, without the token (for logs and status). */
  get endpoint(): string {
    try {
      const u = new URL(this.baseUrl);
      return `${u.origin}${u.pathname}`;
    } catch {
      return this.baseUrl;
    }
  }

  private url(): string {
    const u = new URL(this.baseUrl);
    u.searchParams.set('token', this.token);
    return u.toString();
  }

  private connect(): void {
    if (this.stopped) return;
    let ws: WebSocket;
    try {
      // Loaded on first connect: installs without a cloud websocket source never load ws.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const Socket = require('ws') as typeof WebSocket;
      ws = new Socket(this.url(), { handshakeTimeout: 15_000, maxPayload: 1 << 20 });
    } catch (err) {
      this.connectionLost(`cannot connect to ${this.endpoint}: ${this.scrub(errorMessage(err))}`);
      return;
    }
    this.ws = ws;
    this.closeNote = null;
    ws.on('open', () => {
      if (this.ws !== ws) return;
      this.counts.connects++;
      this.log.info(
        { endpoint: this.endpoint, device_id: this.deviceId },
        'connected to the Tempest websocket',
      );
      this.armStale(ws);
      const send = (type: string) =>
        ws.send(JSON.stringify({ type, device_id: this.deviceId, id: `raincheck-${this.id}-${type}` }));
      send('listen_start');
      send('listen_rapid_start');
    });
    ws.on('message', (data, isBinary) => {
      if (this.ws !== ws) return;
      this.staleTimer?.refresh();
      if (isBinary) {
        this.counts.rejected++;
        return;
      }
      this.onText(rawDataToString(data));
    });
    ws.on('error', (err) => {
      if (this.ws === ws) this.closeNote = describeError(err);
    });
    ws.on('close', (code) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.disarmStale();
      if (this.stopped) return;
      this.connectionLost(
        this.scrub(this.closeNote ?? `connection closed by ${this.endpoint} (code ${code})`),
      );
    });
  }

  private connectionLost(note: string): void {
    this.log.warn({ note }, 'Tempest websocket connection lost');
    this.ctx.sink.contact(false, note);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.reconnectTimer) return;
    const delay = backoffDelayMs(this.attempt, this.backoffInitialMs, this.backoffMaxMs, this.random);
    this.attempt++;
    this.log.debug({ delay_ms: delay, attempt: this.attempt }, 'reconnecting to the Tempest websocket');
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.connect();
    }, delay);
    this.reconnectTimer.unref();
  }

  private armStale(ws: WebSocket): void {
    this.disarmStale();
    this.staleTimer = setTimeout(() => {
      if (this.ws !== ws) return;
      this.log.warn({ after_ms: this.staleAfterMs }, 'no message from the Tempest websocket; redialling');
      this.closeNote = `no message for ${formatDuration(this.staleAfterMs)}`;
      ws.terminate();
    }, this.staleAfterMs);
    this.staleTimer.unref();
  }

  private disarmStale(): void {
    if (this.staleTimer) clearTimeout(this.staleTimer);
    this.staleTimer = null;
  }

  private onText(text: string): void {
    try {
      let raw: unknown;
      try {
        raw = JSON.parse(text);
      } catch {
        this.counts.rejected++;
        return;
      }
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
        this.counts.rejected++;
        return;
      }
      const o = raw as Record<string, unknown>;
      const type = typeof o.type === 'string' ? o.type : '';
      const status = vendorError(o.status);
      if (status !== null) {
        this.log.warn({ type, status }, 'the Tempest websocket reported an error');
        this.ctx.sink.contact(false, `vendor cloud: ${status}`);
        return;
      }
      if (type === 'connection_opened' || type === 'ack' || ONLINE_EVENTS.has(type)) {
        this.ctx.sink.contact(true);
        return;
      }
      if (OFFLINE_EVENTS.has(type)) {
        this.ctx.sink.contact(false, 'the vendor cloud reports the station offline');
        return;
      }
      const message = parseTempestMessage(raw);
      if (!message) {
        this.counts.rejected++;
        this.log.debug({ type }, 'ignored a websocket message it does not understand');
        return;
      }
      if (message.deviceId !== null && message.deviceId !== this.deviceId) {
        this.counts.filtered++;
        return;
      }
      this.counts.accepted++;
      this.attempt = 0;
      this.time.observe(message);
      this.ctx.sink.contact(true);
      this.ctx.sink.publish(tempestToBatch(message, this.id));
    } catch (err) {
      this.log.error({ err }, 'failed to handle a Tempest websocket message');
    }
  }

  /** Never let the token reach a log line or a status note. */
  private scrub(text: string): string {
    return this.token ? text.split(this.token).join('***') : text;
  }
}

/** `status: {status_code, status_message}`: null when absent or SUCCESS (code 0). */
function vendorError(status: unknown): string | null {
  if (typeof status !== 'object' || status === null) return null;
  const s = status as Record<string, unknown>;
  if (typeof s.status_code !== 'number' || s.status_code === 0) return null;
  const message = typeof s.status_message === 'string' ? s.status_message : 'error';
  return `${message} (status ${s.status_code})`;
}

function rawDataToString(data: WebSocket.RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}

function formatDuration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function describeError(err: Error): string {
  const http = /Unexpected server response: (\d+)/.exec(err.message);
  if (http && (http[1] === '401' || http[1] === '403')) {
    return `the vendor refused the connection (HTTP ${http[1]}): check the token`;
  }
  return err.message;
}

export const tempestWsKind: SourceKindDefinition = {
  kind: TEMPEST_WS_KIND,
  label: 'Tempest station (vendor cloud websocket)',
  provides: TEMPEST_PROVIDES,
  configSchema: tempestWsConfigSchema,
  create: (ctx) => new TempestWsSource(ctx),
};
