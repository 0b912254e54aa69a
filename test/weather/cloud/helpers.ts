import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { ManualClock } from '../../../server/src/core/clock';
import type { Logger } from '../../../server/src/core/logger';
import type { WeatherField } from '../../../server/src/weather/fields';
import type {
  Reading,
  SourceBatch,
  SourceContext,
  SourceLocation,
  SourceSink,
} from '../../../server/src/weather/source';

/** One request as the loopback peer saw it. */
export interface SeenRequest {
  method: string;
  /** Path and query exactly as sent. */
  url: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
}

export interface PeerReply {
  status: number;
  body: string;
  contentType?: string;
  /** Hold the request open and never answer (timeouts). */
  hang?: boolean;
}

export type PeerHandler = (req: SeenRequest) => PeerReply;

/** A small HTTP server on 127.0.0.1 that answers like the provider and records what it was asked. */
export class LoopbackPeer {
  readonly requests: SeenRequest[] = [];
  private server: http.Server | null = null;
  baseUrl = '';

  constructor(public handler: PeerHandler) {}

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://loopback');
      const seen: SeenRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
      };
      this.requests.push(seen);
      const reply = this.handler(seen);
      if (reply.hang) return;
      res.writeHead(reply.status, { 'content-type': reply.contentType ?? 'application/json; charset=utf-8' });
      res.end(reply.body);
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.baseUrl = `http://127.0.0.1:${port}`;
    return this;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    this.server = null;
  }
}

export function json(
  status: number,
  body: unknown,
  contentType = 'application/json; charset=utf-8',
): PeerReply {
  return { status, body: JSON.stringify(body), contentType };
}

/** A base URL nothing listens on (a port that was just freed). */
export async function refusedBaseUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/** Records what a source hands over. */
export class RecordingSink implements SourceSink {
  readonly batches: SourceBatch[] = [];
  readonly contacts: { ok: boolean; note?: string }[] = [];

  publish(batch: SourceBatch): void {
    this.batches.push(batch);
  }

  contact(ok: boolean, note?: string): void {
    this.contacts.push(note === undefined ? { ok } : { ok, note });
  }

  /** The readings of the last batch, by field. */
  readings(): Map<WeatherField, Reading> {
    const last = this.batches[this.batches.length - 1];
    return new Map((last?.readings ?? []).map((r) => [r.field, r]));
  }

  value(field: WeatherField): number | null | undefined {
    return this.readings().get(field)?.value;
  }

  lastContact(): { ok: boolean; note?: string } | undefined {
    return this.contacts[this.contacts.length - 1];
  }
}

/** A logger whose lines are kept, to check nothing secret is written. */
export function capturingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { logger: pino({ level: 'trace' }, stream), lines };
}

export interface ContextOptions {
  id?: string;
  config?: Record<string, unknown>;
  location?: Partial<SourceLocation>;
  clock?: ManualClock;
  logger?: Logger;
}

export function makeContext(options: ContextOptions = {}): {
  ctx: SourceContext;
  sink: RecordingSink;
  clock: ManualClock;
} {
  const sink = new RecordingSink();
  const clock = options.clock ?? new ManualClock(Date.UTC(2025, 6, 15, 17, 5, 0));
  const ctx: SourceContext = {
    id: options.id ?? 'cloud',
    config: options.config ?? {},
    clock,
    logger: options.logger ?? capturingLogger().logger,
    location: {
      lat: 38.58,
      lon: -121.49,
      elevationM: null,
      timezone: 'America/Los_Angeles',
      ...options.location,
    },
    sink,
    fetch: globalThis.fetch,
  };
  return { ctx, sink, clock };
}
