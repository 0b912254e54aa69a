import dgram from 'node:dgram';
import { isIP } from 'node:net';
import { lazySchema } from '../../../core/zod-lazy';
import type { Logger } from '../../../core/logger';
import type { Reading, SourceContext, SourceKindDefinition, WeatherSource } from '../../source';
import { parseSourceConfig } from '../../source';
import { parseTempestDatagram, TEMPEST_PROVIDES, tempestToBatch } from './tempest-messages';
import { TempestTimeState } from './tempest-time-state';

/**
 * `tempest_udp`: listens for the Tempest hub's LAN broadcast (UDP port 50222,
 * one JSON message per datagram). Every valid datagram from the configured
 * hub (any hub when `hub_serial` is null) is one contact and one batch; a
 * datagram that does not parse is counted and dropped, never published.
 */

export const TEMPEST_UDP_KIND = 'tempest_udp';
export const TEMPEST_UDP_DEFAULT_BIND = '0.0.0.0:50222';
/** After a failed bind (port taken, no permission) the socket is retried this often. */
const REBIND_DELAY_MS = 30_000;

export interface BindAddress {
  host: string;
  port: number;
}

/**
 * `host:port`, `[v6host]:port`, `:port` or a bare `port` (any IPv4 address).
 * Port 0 asks the system for a free port (tests). Null when it does not parse.
 */
export function parseBindAddr(text: string): BindAddress | null {
  const s = text.trim();
  let host: string;
  let portText: string;
  const v6 = /^\[([^\]]+)\]:(\d+)$/.exec(s);
  if (v6) {
    host = v6[1]!;
    portText = v6[2]!;
    if (isIP(host) !== 6) return null;
  } else if (/^\d+$/.test(s)) {
    host = '0.0.0.0';
    portText = s;
  } else {
    const colon = s.lastIndexOf(':');
    if (colon < 0) return null;
    host = s.slice(0, colon) || '0.0.0.0';
    portText = s.slice(colon + 1);
    if (host.includes(':') || !/^\d+$/.test(portText)) return null;
    if (isIP(host) === 0 && !/^[A-Za-z0-9.-]+$/.test(host)) return null;
  }
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) return null;
  return { host, port };
}

export const tempestUdpConfigSchema = lazySchema((z) =>
  z.looseObject({
    bind_addr: z
      .string()
      .min(1)
      .refine((s) => parseBindAddr(s) !== null, { message: 'expected host:port, e.g. 0.0.0.0:50222' })
      .default(TEMPEST_UDP_DEFAULT_BIND),
    hub_serial: z.string().nullish().describe('null = accept any hub'),
  }),
);

export interface TempestUdpStats {
  /** Datagrams parsed, from the configured hub, published. */
  accepted: number;
  /** Datagrams that did not parse (garbage, unknown type, wrong shape). */
  rejected: number;
  /** Valid datagrams from another hub (hub_serial filter). */
  filtered: number;
}

export interface TempestUdpOptions {
  rebindDelayMs?: number;
}

export class TempestUdpSource implements WeatherSource {
  readonly kind = TEMPEST_UDP_KIND;
  readonly id: string;
  private readonly bind: BindAddress;
  private readonly hubSerial: string | null;
  private readonly log: Logger;
  private readonly time: TempestTimeState;
  private readonly rebindDelayMs: number;
  private socket: dgram.Socket | null = null;
  private rebindTimer: NodeJS.Timeout | null = null;
  private stopped = true;
  private counts: TempestUdpStats = { accepted: 0, rejected: 0, filtered: 0 };

  constructor(
    private readonly ctx: SourceContext,
    options: TempestUdpOptions = {},
  ) {
    this.id = ctx.id;
    const config = parseSourceConfig(tempestUdpConfigSchema, ctx);
    this.bind = parseBindAddr(config.bind_addr)!;
    this.hubSerial = normalizeSerial(config.hub_serial);
    this.log = ctx.logger.child({ module: 'weather.tempest_udp', source: ctx.id });
    this.time = new TempestTimeState(ctx.location.timezone);
    this.rebindDelayMs = options.rebindDelayMs ?? REBIND_DELAY_MS;
  }

  /** Binds the socket. Resolves either way: a failed bind is a contact failure, retried later. */
  async start(): Promise<void> {
    this.stopped = false;
    await this.open();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.rebindTimer) clearTimeout(this.rebindTimer);
    this.rebindTimer = null;
    await this.closeSocket();
  }

  readingsAt(nowEpoch: number): Reading[] {
    return this.time.readingsAt(nowEpoch);
  }

  /** Datagram counters (benchmarks, diagnostics). */
  stats(): TempestUdpStats {
    return { ...this.counts };
  }

  /** The bound address (the real port when bind_addr asked for port 0), or null while unbound. */
  address(): BindAddress | null {
    if (!this.socket) return null;
    try {
      const a = this.socket.address();
      return { host: a.address, port: a.port };
    } catch {
      return null;
    }
  }

  private open(): Promise<void> {
    const type = isIP(this.bind.host) === 6 ? 'udp6' : 'udp4';
    const socket = dgram.createSocket({ type, reuseAddr: true });
    this.socket = socket;
    socket.on('message', (buf, rinfo) => this.onDatagram(buf, rinfo));
    return new Promise<void>((resolve) => {
      const onBindError = (err: Error) => {
        socket.removeListener('listening', onListening);
        this.failed(socket, `cannot listen on ${this.bind.host}:${this.bind.port}: ${err.message}`);
        resolve();
      };
      const onListening = () => {
        socket.removeListener('error', onBindError);
        socket.on('error', (err) => this.failed(socket, `UDP socket error: ${err.message}`));
        const a = socket.address();
        this.log.info({ address: a.address, port: a.port }, 'listening for Tempest UDP broadcasts');
        resolve();
      };
      socket.once('error', onBindError);
      socket.once('listening', onListening);
      socket.bind({ address: this.bind.host, port: this.bind.port, exclusive: false });
    });
  }

  private failed(socket: dgram.Socket, note: string): void {
    this.log.error(note);
    this.ctx.sink.contact(false, note);
    if (this.socket === socket) this.socket = null;
    try {
      socket.close();
    } catch {
      // already closed
    }
    if (this.stopped || this.rebindTimer) return;
    this.rebindTimer = setTimeout(() => {
      this.rebindTimer = null;
      if (!this.stopped) void this.open();
    }, this.rebindDelayMs);
    this.rebindTimer.unref();
  }

  private closeSocket(): Promise<void> {
    const socket = this.socket;
    this.socket = null;
    if (!socket) return Promise.resolve();
    return new Promise<void>((resolve) => {
      try {
        socket.close(() => resolve());
      } catch {
        resolve();
      }
    });
  }

  private onDatagram(buf: Buffer, rinfo: dgram.RemoteInfo): void {
    try {
      const message = parseTempestDatagram(buf.toString('utf8'));
      if (!message) {
        this.counts.rejected++;
        this.log.debug({ from: rinfo.address, bytes: buf.length }, 'ignored a datagram that does not parse');
        return;
      }
      if (this.hubSerial !== null && normalizeSerial(message.hubSerial) !== this.hubSerial) {
        this.counts.filtered++;
        return;
      }
      this.counts.accepted++;
      this.time.observe(message);
      const batch = tempestToBatch(message, this.id);
      if (message.type === 'hub_status' && batch.devices) {
        for (const device of batch.devices) device.host = rinfo.address;
      }
      this.ctx.sink.contact(true);
      this.ctx.sink.publish(batch);
    } catch (err) {
      // A throwing sink must not take the socket (or the process) down.
      this.log.error({ err }, 'failed to handle a Tempest datagram');
    }
  }
}

function normalizeSerial(serial: string | null | undefined): string | null {
  const s = serial?.trim().toUpperCase();
  return s ? s : null;
}

export const tempestUdpKind: SourceKindDefinition = {
  kind: TEMPEST_UDP_KIND,
  label: 'Tempest hub (LAN UDP)',
  provides: TEMPEST_PROVIDES,
  configSchema: tempestUdpConfigSchema,
  create: (ctx) => new TempestUdpSource(ctx),
};
