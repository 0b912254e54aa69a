import type { RunRecord } from '../../store/runs';
import { reasonText, type DecisionRecord } from './decision-record';

/**
 * Rows of the csv export (spec 4.4): `timestamp_utc,zone,event,duration_s,reason`,
 * RFC 4180 (CRLF line ends; a field holding a comma, a quote, CR, LF or
 * leading/trailing space is quoted, quotes doubled).
 *
 * - A run: its start as ISO-8601 UTC (`2025-06-16T09:30:00Z`), its zone,
 *   event `skip` when it carries a skip_reason (a skip event, not a run) and
 *   otherwise its status (`completed`, `aborted`, ...), its duration_s, and
 *   reason = skip_reason, else note, else empty.
 * - A verdict change: zone and duration_s empty, event `verdict:<verdict>`,
 *   reason the stored reason_code.
 *
 * The csv is an event log, not applied water: dry-run and request rows are
 * listed like the others (the json export carries `source` to tell them apart).
 */

export const CSV_HEADER = 'timestamp_utc,zone,event,duration_s,reason';
export const CRLF = '\r\n';

const NEEDS_QUOTES = /[",\r\n]|^\s|\s$/;

export function csvField(value: string): string {
  return NEEDS_QUOTES.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** ISO-8601 UTC to the second: `2025-06-16T09:30:00Z`. */
export function isoUtc(epoch: number): string {
  return new Date(epoch * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function line(fields: string[]): string {
  return fields.map(csvField).join(',') + CRLF;
}

export function runEvent(run: Pick<RunRecord, 'skip_reason' | 'status'>): string {
  return run.skip_reason !== null ? 'skip' : run.status;
}

export function runCsvLine(run: RunRecord): string {
  const reason = run.skip_reason ?? run.note ?? '';
  return line([isoUtc(run.start_epoch), run.zone, runEvent(run), String(run.duration_s), reason]);
}

export function decisionCsvLine(decision: DecisionRecord): string {
  return line([isoUtc(decision.epoch), '', `verdict:${decision.verdict}`, '', reasonText(decision.reason)]);
}
