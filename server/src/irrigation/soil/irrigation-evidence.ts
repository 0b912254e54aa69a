import { depthMmOfVolume } from '../../agronomy/catalogs/units';
import type { IrrigationBasisKind } from '../../store/soil-ledger';
import type { RunRecord } from '../snapshot-schema';
import type { LocalCalendar } from '../skip/local-days';

/**
 * What one run record contributes to the soil: THE place that decides it
 * (spec 3 run evidence rules). Both the engine's applied water and the soil
 * ledger read runs only through `runContribution` and `dailyIrrigation`.
 *
 * - Watering evidence is a row with status `completed`, no skip reason and
 *   source `ha_refresher`, `manual` or `manual:<id>`, open for a positive
 *   number of seconds. `dry_run` rows are pretend water, `smart_morning`
 *   rows are skip markers; `intended`, `running`, `aborted` and `skipped`
 *   rows are not delivered water.
 * - The one exception is the demo's synthetic yard (`features.demo_mode`):
 *   there a completed `dry_run` row with evidence `simulated` (what a demo's
 *   dry-run valve records) waters the yard, so the demo's soil and decisions
 *   follow its pretend runs. Callers pass `syntheticYard` from the config in
 *   force: outside demo mode the same rows count as nothing, and a dry-run
 *   controller's rows (evidence `commanded`) never count anywhere.
 * - The contribution is the valve-open interval [start, start + duration).
 *   Callers union intervals per zone: a manual run appears twice (request row
 *   and observed hardware row), and summing would double-count.
 * - The evidence kind says how the seconds are known: `metered` (a flow meter),
 *   `observed` (the controller reported the valve open), `commanded` (only the
 *   command is known, e.g. a fire-and-forget controller), `simulated` (the
 *   demo's pretend seconds, never a real yard's water). A row that does not
 *   say counts as `observed`, what the run ledger records today. The ledger
 *   keeps the weakest kind of each day's water, so a day watered only on the
 *   word of a command says so.
 *
 * How much water (the depth basis), per union cluster (a maximal stretch of
 * overlapping or touching intervals of one zone):
 * - `meter`: a `metered` row's interval covers the whole cluster and the
 *   zone's `area_sqft` is known. The meter measured everything that flowed
 *   through the zone in that interval, so the cluster's gross depth is that
 *   row's `volume_gal` over the area, once, whatever other rows lie inside it
 *   (the request row and the observer's hardware row of one run cover the
 *   same seconds; when both carry the reading, one is taken: the largest).
 * - `rate`: otherwise, open seconds x the zone's precipitation rate: no
 *   metered row, no area, or a stretch of the cluster no metered row covers
 *   (an unmetered run sticking out of a metered one, or two metered rows that
 *   only partly overlap, whose volumes would count the shared seconds twice).
 * A cluster that crosses local midnight splits its metered depth between the
 * days in proportion to its seconds in each.
 */

export type IrrigationEvidence = 'metered' | 'observed' | 'commanded' | 'simulated';

/** The run-record fields the soil reads; `evidence` and `volume_gal` are optional (older rows). */
export type EvidenceRow = Pick<
  RunRecord,
  'zone' | 'start_epoch' | 'duration_s' | 'skip_reason' | 'source' | 'status'
> & { evidence?: string | null; volume_gal?: number | null };

export interface RunContribution {
  start: number;
  end: number;
  evidence: IrrigationEvidence;
  /** The meter's volume over [start, end), US gal; null unless the row is `metered`. */
  metered_gal: number | null;
}

const WATERING_SOURCE = /^(?:ha_refresher|manual(?::\S+)?)$/;
const SIMULATED_SOURCE = /^dry_run(?::\S+)?$/;
const EVIDENCE_RANK: Record<IrrigationEvidence, number> = {
  simulated: 0,
  commanded: 1,
  observed: 2,
  metered: 3,
};

/** `syntheticYard`: the config in force is the demo's (`features.demo_mode`), whose simulated rows water it. */
export function runContribution(run: EvidenceRow, syntheticYard = false): RunContribution | null {
  if (run.status !== 'completed' || run.skip_reason !== null) return null;
  if (!Number.isFinite(run.duration_s) || run.duration_s <= 0) return null;
  const simulated = run.evidence === 'simulated';
  if (simulated ? !syntheticYard || !SIMULATED_SOURCE.test(run.source) : !WATERING_SOURCE.test(run.source))
    return null;
  const evidence = evidenceOf(run);
  const volume = run.volume_gal;
  return {
    start: run.start_epoch,
    end: run.start_epoch + run.duration_s,
    evidence,
    metered_gal:
      evidence === 'metered' && typeof volume === 'number' && Number.isFinite(volume) && volume >= 0
        ? volume
        : null,
  };
}

function evidenceOf(run: EvidenceRow): IrrigationEvidence {
  const e = run.evidence;
  return e === 'metered' || e === 'commanded' || e === 'observed' || e === 'simulated' ? e : 'observed';
}

export function weakerEvidence(a: IrrigationEvidence, b: IrrigationEvidence): IrrigationEvidence {
  return EVIDENCE_RANK[a] <= EVIDENCE_RANK[b] ? a : b;
}

export interface DayIrrigation {
  /** Valve-open seconds of the local day (union of intervals). */
  seconds: number;
  evidence: IrrigationEvidence;
  /** Seconds whose depth is open time x the zone's rate (clusters without a covering meter reading). */
  rate_seconds: number;
  /** Gross depth the meter measured (clusters with a covering reading), mm. */
  metered_mm: number;
  /** The metered volume behind `metered_mm`, US gal. */
  metered_gal: number;
}

/** A day's gross depth: the metered clusters' depth plus the rest at the zone's rate. */
export function grossDepthMm(day: DayIrrigation, rateMmHr: number): number {
  return day.metered_mm + (day.rate_seconds / 3600) * rateMmHr;
}

/** How a day's gross depth was reckoned (stored on its soil ledger row). */
export function depthBasis(day: DayIrrigation | undefined): IrrigationBasisKind {
  if (!day || day.seconds <= 0) return 'none';
  const metered = day.seconds - day.rate_seconds > 0;
  if (!metered) return 'rate';
  return day.rate_seconds > 0 ? 'meter_and_rate' : 'meter';
}

/**
 * Per local date of one zone: the union of its watering intervals split at
 * local midnights, the depth basis of each stretch, and the weakest evidence
 * kind of the runs that day. `areaSqft` (the zone's `area_sqft`) turns a
 * meter's volume into depth; without it every stretch is reckoned by rate.
 * `syntheticYard`: see `runContribution`.
 */
export function dailyIrrigation(
  zone: string,
  runs: readonly EvidenceRow[],
  cal: Pick<LocalCalendar, 'dateOf' | 'dayEnd'>,
  areaSqft: number | null = null,
  syntheticYard = false,
): Map<string, DayIrrigation> {
  const parts = runs
    .filter((r) => r.zone === zone)
    .map((r) => runContribution(r, syntheticYard))
    .filter((c): c is RunContribution => c !== null);
  const out = new Map<string, DayIrrigation>();
  for (const cluster of clustersOf(parts)) {
    const gallons = meteredVolume(cluster, areaSqft);
    const span = cluster.end - cluster.start;
    for (let t = cluster.start; t < cluster.end;) {
      const date = cal.dateOf(t);
      const end = Math.min(cluster.end, cal.dayEnd(date));
      const day = out.get(date) ?? emptyDay();
      const seconds = end - t;
      day.seconds += seconds;
      if (gallons === null || areaSqft === null) day.rate_seconds += seconds;
      else {
        day.metered_gal += (gallons * seconds) / span;
        day.metered_mm += depthMmOfVolume((gallons * seconds) / span, areaSqft);
      }
      out.set(date, day);
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

function emptyDay(): DayIrrigation {
  return { seconds: 0, evidence: 'metered', rate_seconds: 0, metered_mm: 0, metered_gal: 0 };
}

interface Cluster {
  start: number;
  end: number;
  members: RunContribution[];
}

/** Maximal stretches of overlapping or touching intervals, with the rows in each. */
function clustersOf(parts: readonly RunContribution[]): Cluster[] {
  const sorted = [...parts].sort((x, y) => x.start - y.start || x.end - y.end);
  const out: Cluster[] = [];
  for (const part of sorted) {
    const last = out[out.length - 1];
    if (last && part.start <= last.end) {
      last.end = Math.max(last.end, part.end);
      last.members.push(part);
    } else out.push({ start: part.start, end: part.end, members: [part] });
  }
  return out;
}

/** The cluster's metered volume: a metered row covering all of it (the largest reading), else null. */
function meteredVolume(cluster: Cluster, areaSqft: number | null): number | null {
  if (areaSqft === null || !(areaSqft > 0)) return null;
  const covering = cluster.members
    .filter((m) => m.metered_gal !== null && m.start <= cluster.start && m.end >= cluster.end)
    .map((m) => m.metered_gal as number);
  return covering.length > 0 ? Math.max(...covering) : null;
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
