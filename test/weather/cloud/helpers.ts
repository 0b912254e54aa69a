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
import { httpFetch } from '../../../server/src/core/http-fetch';

export {
  json,
  LoopbackPeer,
  refusedBaseUrl,
  type PeerHandler,
  type PeerReply,
  type SeenRequest,
} from '../../helpers/loopback-peer';

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
    fetch: httpFetch,
  };
  return { ctx, sink, clock };
}
