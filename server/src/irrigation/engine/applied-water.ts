import type { RunRecord } from '../snapshot-schema';

/** The run-record fields the ledger reads. */
export type LedgerRow = Pick<
  RunRecord,
  'zone' | 'start_epoch' | 'duration_s' | 'skip_reason' | 'source' | 'status'
>;
import type { LocalCalendar } from '../skip/local-days';

/**
 * Applied water from the run ledger (spec 2.5 "Run record", spec 3 run
 * evidence rules). Pure.
 *
 * - Watering evidence is a row with status `completed`, no skip reason and
 *   source `ha_refresher`, `manual` or `manual:<id>`. `dry_run` rows are
 *   pretend water, `smart_morning` rows are skip markers, `intended`,
 *   `running`, `aborted` and `skipped` rows are not (yet) delivered water.
 * - Applied water is the UNION of valve-open intervals per zone: a manually
 *   started run appears twice (request row and observed hardware row), and
 *   session/observer rows overlap; summing them would double-count.
 * - Depth: gross mm = valve-open hours x the zone's precipitation rate. The
 *   row's own `applied_mm` is not summed (it cannot be unioned).
 * - Intervals are split at local midnights so each local day gets its own seconds.
 */

const WATERING_SOURCE = /^(?:ha_refresher|manual(?::\S+)?)$/;

export function isWateringEvidence(run: LedgerRow): boolean {
  return (
    run.status === 'completed' &&
    run.skip_reason === null &&
    WATERING_SOURCE.test(run.source) &&
    Number.isFinite(run.duration_s) &&
    run.duration_s > 0
  );
}

export type Interval = readonly [number, number];

/** Sorted, disjoint union of `[start, end)` intervals (touching intervals merge). */
export function unionIntervals(intervals: readonly Interval[]): Interval[] {
  const sorted = [...intervals].filter(([a, b]) => b > a).sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const out: [number, number][] = [];
  for (const [a, b] of sorted) {
    const last = out[out.length - 1];
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

export interface ZoneLedger {
  /** Valve-open seconds per local date (union, watering evidence only). */
  seconds_by_date: Map<string, number>;
  /** The unioned valve-open intervals. */
  intervals: Interval[];
  /** Start of the newest watering-evidence interval; 0 when none. */
  last_run_epoch: number;
  /** A row of this zone has status `running` (the ledger believes the valve is open). */
  ledger_running: boolean;
  /** Rows counted / rows ignored, for the trace. */
  counted_rows: number;
  ignored_rows: { dry_run: number; skip_marker: number; not_completed: number; other: number };
}

export function zoneLedger(zone: string, runs: readonly LedgerRow[], cal: LocalCalendar): ZoneLedger {
  const mine = runs.filter((r) => r.zone === zone);
  const ignored = { dry_run: 0, skip_marker: 0, not_completed: 0, other: 0 };
  const raw: Interval[] = [];
  for (const r of mine) {
    if (isWateringEvidence(r)) raw.push([r.start_epoch, r.start_epoch + r.duration_s]);
    else if (r.source.startsWith('dry_run')) ignored.dry_run += 1;
    else if (r.source === 'smart_morning' || r.skip_reason !== null) ignored.skip_marker += 1;
    else if (r.status !== 'completed') ignored.not_completed += 1;
    else ignored.other += 1;
  }
  const intervals = unionIntervals(raw);
  const seconds = new Map<string, number>();
  for (const [a, b] of intervals) {
    let t = a;
    while (t < b) {
      const date = cal.dateOf(t);
      const end = Math.min(b, cal.dayEnd(date));
      seconds.set(date, (seconds.get(date) ?? 0) + (end - t));
      t = end;
    }
  }
  return {
    seconds_by_date: seconds,
    intervals,
    last_run_epoch: intervals.length > 0 ? Math.floor((intervals[intervals.length - 1] as Interval)[0]) : 0,
    ledger_running: mine.some((r) => r.status === 'running'),
    counted_rows: raw.length,
    ignored_rows: ignored,
  };
}

/** Gross mm delivered in `seconds` at `rateMmHr`. */
export function grossMm(seconds: number, rateMmHr: number): number {
  return (seconds / 3600) * rateMmHr;
}
