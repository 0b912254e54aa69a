import type { Reading } from '../../../store/readings';
import { localIsoOf } from '../../schedule/local-date';

/** Readings grouped by source, then field, each list oldest first. */
export function bySourceAndField(readings: readonly Reading[]): Map<string, Map<string, Reading[]>> {
  const out = new Map<string, Map<string, Reading[]>>();
  for (const r of readings) {
    let fields = out.get(r.source_id);
    if (!fields) out.set(r.source_id, (fields = new Map()));
    const list = fields.get(r.field) ?? [];
    list.push(r);
    fields.set(r.field, list);
  }
  for (const fields of out.values())
    for (const list of fields.values()) list.sort((a, b) => a.epoch - b.epoch);
  return out;
}

/** `2025-07-20 14:05` local. */
export function describeTime(epoch: number, timezone: string): string {
  return localIsoOf(epoch, timezone).slice(0, 16).replace('T', ' ');
}

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
