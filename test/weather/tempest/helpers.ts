import fs from 'node:fs';
import path from 'node:path';
import { ManualClock } from '../../../server/src/core/clock';
import { silentLogger } from '../../../server/src/core/logger';
import type { Reading, SourceBatch, SourceContext, SourceSink } from '../../../server/src/weather/source';
import { httpFetch } from '../../../server/src/core/http-fetch';

/**
 * The fixture lines (copied from the shared fixtures: real message formats,
 * see tempest-udp.md beside the original). Index 0 is line 1.
 */
export const FIXTURE_LINES: string[] = fs
  .readFileSync(path.join(__dirname, 'fixtures', 'tempest-udp-samples.jsonl'), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '');

/** Fixture line by its 1-based number, as the fixture's line table names them. */
export function line(n: number): string {
  const text = FIXTURE_LINES[n - 1];
  if (text === undefined) throw new Error(`no fixture line ${n}`);
  return text;
}

export class RecordingSink implements SourceSink {
  readonly batches: SourceBatch[] = [];
  readonly contacts: { ok: boolean; note?: string }[] = [];
  publish(batch: SourceBatch): void {
    this.batches.push(batch);
  }
  contact(ok: boolean, note?: string): void {
    this.contacts.push(note === undefined ? { ok } : { ok, note });
  }
  get last(): SourceBatch {
    const b = this.batches[this.batches.length - 1];
    if (!b) throw new Error('no batch published');
    return b;
  }
}

export function makeContext(
  config: Record<string, unknown>,
  options: { id?: string; timezone?: string; nowMs?: number } = {},
): { ctx: SourceContext; sink: RecordingSink; clock: ManualClock } {
  const sink = new RecordingSink();
  const clock = new ManualClock(options.nowMs ?? Date.UTC(2026, 2, 8, 12));
  const ctx: SourceContext = {
    id: options.id ?? 'tempest',
    config,
    clock,
    logger: silentLogger(),
    location: { lat: 40.7, lon: -74.0, elevationM: 10, timezone: options.timezone ?? 'America/New_York' },
    sink,
    fetch: httpFetch,
  };
  return { ctx, sink, clock };
}

/** Polls until `predicate` holds (real I/O arrives asynchronously). */
export async function waitFor(predicate: () => boolean, what = 'condition', timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The reading of `field` in a batch, or undefined when the batch has none. */
export function reading(batch: SourceBatch, field: string): Reading | undefined {
  return batch.readings?.find((r) => r.field === field);
}

/** All readings of a batch as field -> value. */
export function values(batch: SourceBatch): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const r of batch.readings ?? []) out[r.field] = r.value;
  return out;
}

export function epochOf(iso: string): number {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new Error(`bad date ${iso}`);
  return ms / 1000;
}

/** A UDP obs_st datagram with the given epoch and rain (mm); the rest from the official example. */
export function obsSt(
  epoch: number,
  rainMm: number | null,
  extra: { hub?: string; strikes?: number; distKm?: number } = {},
): string {
  const obs = [
    epoch,
    0.18,
    0.22,
    0.27,
    144,
    6,
    1017.57,
    22.37,
    50.26,
    328,
    0.03,
    3,
    rainMm,
    rainMm ? 1 : 0,
    extra.distKm ?? 0,
    extra.strikes ?? 0,
    2.41,
    1,
  ];
  return JSON.stringify({
    serial_number: 'ST-00000512',
    type: 'obs_st',
    hub_sn: extra.hub ?? 'HB-00013030',
    obs: [obs],
    firmware_revision: 129,
  });
}
