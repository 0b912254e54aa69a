import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { ManualClock } from '../../../server/src/core/clock';
import { silentLogger } from '../../../server/src/core/logger';
import type { WeatherField } from '../../../server/src/weather/fields';
import type {
  ExtraReading,
  Reading,
  SourceBatch,
  SourceContext,
  SourceSink,
} from '../../../server/src/weather/source';
import { httpFetch } from '../../../server/src/core/http-fetch';

export const FIXTURES = path.join(__dirname, 'fixtures');

export function livedataFixture(): unknown {
  return JSON.parse(fs.readFileSync(path.join(FIXTURES, 'ecowitt-livedata-sample.json'), 'utf8')) as unknown;
}

export function livedataFixtureText(): string {
  return fs.readFileSync(path.join(FIXTURES, 'ecowitt-livedata-sample.json'), 'utf8');
}

/** The non-comment lines of the upload sample, in order (7 Ecowitt bodies, then the Wunderground query). */
export function uploadBodies(): string[] {
  return fs
    .readFileSync(path.join(FIXTURES, 'ecowitt-upload-sample.txt'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/** Records everything a source hands over, and lets a test wait for the next publish. */
export class RecordingSink implements SourceSink {
  readonly batches: SourceBatch[] = [];
  readonly contacts: { ok: boolean; note?: string }[] = [];
  private waiters: (() => void)[] = [];

  publish(batch: SourceBatch): void {
    this.batches.push(batch);
    this.wake();
  }

  contact(ok: boolean, note?: string): void {
    this.contacts.push(note === undefined ? { ok } : { ok, note });
    this.wake();
  }

  /** Resolves once `predicate` holds (checked after every publish or contact). */
  async until(predicate: () => boolean, timeoutMs = 5000): Promise<void> {
    if (predicate()) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('timed out waiting for the sink')), timeoutMs);
      const check = (): void => {
        if (predicate()) {
          clearTimeout(timer);
          resolve();
        } else {
          this.waiters.push(check);
        }
      };
      this.waiters.push(check);
    });
  }

  private wake(): void {
    const waiting = this.waiters.splice(0);
    for (const check of waiting) check();
  }
}

export const TIMEZONE = 'America/Chicago';

export function makeContext(
  config: Record<string, unknown>,
  options: { clock?: ManualClock; sink?: RecordingSink; id?: string } = {},
): { ctx: SourceContext; sink: RecordingSink; clock: ManualClock } {
  const clock = options.clock ?? new ManualClock(Date.UTC(2024, 6, 16, 12, 0, 0));
  const sink = options.sink ?? new RecordingSink();
  const ctx: SourceContext = {
    id: options.id ?? 'gw1',
    config,
    clock,
    logger: silentLogger(),
    location: { lat: 30.4, lon: -97.7, elevationM: 200, timezone: TIMEZONE },
    sink,
    fetch: httpFetch,
  };
  return { ctx, sink, clock };
}

export function readingOf(batch: SourceBatch, field: WeatherField): Reading | undefined {
  return batch.readings?.find((r) => r.field === field);
}

export function valueOf(batch: SourceBatch, field: WeatherField): number | null | undefined {
  return readingOf(batch, field)?.value;
}

export function extraOf(batch: SourceBatch, key: string): ExtraReading | undefined {
  return batch.extras?.find((e) => e.key === key);
}

export interface Reply {
  status: number;
  body: string;
  contentType?: string;
}

/** A loopback HTTP server standing in for the gateway; records the paths it was asked for. */
export class FakeGateway {
  readonly paths: string[] = [];
  private server: http.Server | null = null;
  host = '';

  /** A handler answering 'hang' holds the request open without answering (timeouts). */
  constructor(public handler: (path: string) => Reply | 'hang') {}

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const reqPath = new URL(req.url ?? '/', 'http://gateway').pathname;
      this.paths.push(reqPath);
      const reply = this.handler(reqPath);
      if (reply === 'hang') return;
      res.writeHead(reply.status, { 'content-type': reply.contentType ?? 'application/json' });
      res.end(reply.body);
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.host = `127.0.0.1:${port}`;
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

/** host:port on loopback where nothing listens (a port that was just released). */
export async function refusedHost(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `127.0.0.1:${port}`;
}
