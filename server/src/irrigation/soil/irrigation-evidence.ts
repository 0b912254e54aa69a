import type { RunRecord } from '../snapshot-schema';
import type { LocalCalendar } from '../skip/local-days';

/**
 * What one run record contributes to the soil: THE place that decides it
 * (spec 3 run evidence rules). Both the engine's applied water and the soil
 * ledger read runs only through `runContribution`.
 *
 * - Watering evidence is a row with status `completed`, no skip reason and
 *   source `ha_refresher`, `manual` or `manual:<id>`, open for a positive
 *   number of seconds. `dry_run` rows are pretend water, `smart_morning`
 *   rows are skip markers; `intended`, `running`, `aborted` and `skipped`
 *   rows are not delivered water.
 * - The contribution is the valve-open interval [start, start + duration).
 *   Callers union intervals per zone: a manual run appears twice (request row
 *   and observed hardware row), and summing would double-count.
 * - The evidence kind says how the seconds are known: `metered` (a flow meter),
 *   `observed` (the controller reported the valve open), `commanded` (only the
 *   command is known, e.g. a fire-and-forget controller). A row that does not
 *   say counts as `observed`, what the run ledger records today. The ledger
 *   keeps the weakest kind of each day's water, so a day watered only on the
 *   word of a command says so.
 */

export type IrrigationEvidence = 'metered' | 'observed' | 'commanded';

/** The run-record fields the soil reads; `evidence` is optional until run records carry it. */
export type EvidenceRow = Pick<
  RunRecord,
  'zone' | 'start_epoch' | 'duration_s' | 'skip_reason' | 'source' | 'status'
> & { evidence?: string | null };

export interface RunContribution {
  start: number;
  end: number;
  evidence: IrrigationEvidence;
}

const WATERING_SOURCE = /^(?:ha_refresher|manual(?::\S+)?)$/;
const EVIDENCE_RANK: Record<IrrigationEvidence, number> = { commanded: 1, observed: 2, metered: 3 };

export function runContribution(run: EvidenceRow): RunContribution | null {
  if (run.status !== 'completed' || run.skip_reason !== null || !WATERING_SOURCE.test(run.source))
    return null;
  if (!Number.isFinite(run.duration_s) || run.duration_s <= 0) return null;
  return { start: run.start_epoch, end: run.start_epoch + run.duration_s, evidence: evidenceOf(run) };
}

function evidenceOf(run: EvidenceRow): IrrigationEvidence {
  const e = run.evidence;
  return e === 'metered' || e === 'commanded' || e === 'observed' ? e : 'observed';
}

export function weakerEvidence(a: IrrigationEvidence, b: IrrigationEvidence): IrrigationEvidence {
  return EVIDENCE_RANK[a] <= EVIDENCE_RANK[b] ? a : b;
}

export interface DayIrrigation {
  /** Valve-open seconds of the local day (union of intervals). */
  seconds: number;
  evidence: IrrigationEvidence;
}

/**
 * Per local date of one zone: the union of its watering intervals split at
 * local midnights, with the weakest evidence kind of the runs that day.
 */
export function dailyIrrigation(
  zone: string,
  runs: readonly EvidenceRow[],
  cal: Pick<LocalCalendar, 'dateOf' | 'dayEnd'>,
): Map<string, DayIrrigation> {
  const parts = runs
    .filter((r) => r.zone === zone)
    .map(runContribution)
    .filter((c): c is RunContribution => c !== null);
  const out = new Map<string, DayIrrigation>();
  for (const [a, b] of unionIntervals(parts.map((p) => [p.start, p.end] as const))) {
    for (let t = a; t < b;) {
      const date = cal.dateOf(t);
      const end = Math.min(b, cal.dayEnd(date));
      const prev = out.get(date);
      out.set(date, { seconds: (prev?.seconds ?? 0) + (end - t), evidence: prev?.evidence ?? 'metered' });
      t = end;
    }
  }
  for (const p of parts) {
    for (let t = p.start; t < p.end; t = cal.dayEnd(cal.dateOf(t))) {
      const day = out.get(cal.dateOf(t));
      if (day) day.evidence = weakerEvidence(day.evidence, p.evidence);
    }
  }
  return out;
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
