import type { SessionPlan } from '../../store/session-plans';
import type { IrrigationSnapshot } from '../snapshot-schema';
import { commandPieces, RUN_SECONDS_MAX } from './command-pieces';

/**
 * Today's watering job from the engine's snapshot, in dispatch terms: per
 * zone the cycle segments (seconds each) and the soak between them. Pure.
 * The engine already split long runs into cycle-and-soak segments
 * (`zones[].math.cycles_s`, `soak_s`); without a split a zone runs once for
 * its planned seconds. A segment longer than one valve command runs as
 * consecutive pieces (command-pieces.ts).
 */

export interface ZoneJob {
  zone: string;
  name: string;
  /** Seconds of each valve command (command-pieces.ts: none longer than RUN_SECONDS_MAX). */
  segments: number[];
  soak_s: number;
  /** The soak after each command; absent = `soak_s` after every one. */
  soak_after_s?: number[];
  /** Per command: the note its row records (a piece of a longer run); absent = none. */
  notes?: (string | null)[];
  /** The run session; absent = the smart session `sched-<date>-<zone>`. */
  session_id?: string;
}

/** A job whose segments are cut into valve commands of at most RUN_SECONDS_MAX (command-pieces.ts). */
export function inCommandPieces(job: ZoneJob): ZoneJob {
  if (job.segments.every((s) => s <= RUN_SECONDS_MAX)) return job;
  const pieces = commandPieces(job.segments, job.soak_s);
  return { ...job, segments: pieces.segments, soak_after_s: pieces.soak_after_s, notes: pieces.notes };
}

/** The soak after command `index` of the job. */
export function soakAfter(job: ZoneJob, index: number): number {
  return job.soak_after_s?.[index] ?? job.soak_s;
}

/** A zone's own run window today (`water_plan[0].zones[].run_window`, zone-windows.ts); null = the deployment's. */
export function ownWindowToday(
  snapshot: IrrigationSnapshot,
  zone: string,
): { start_epoch: number; finish_epoch: number } | null {
  const entry = snapshot.water_plan[0]?.zones.find((z) => z.zone === zone) as
    { run_window?: { start_epoch?: unknown; finish_epoch?: unknown } } | undefined;
  const w = entry?.run_window;
  return w && typeof w.start_epoch === 'number' && typeof w.finish_epoch === 'number'
    ? { start_epoch: w.start_epoch, finish_epoch: w.finish_epoch }
    : null;
}

export interface SkipMarker {
  zone: string;
  reason: string;
}

export function zoneJobs(snapshot: IrrigationSnapshot): ZoneJob[] {
  const today = snapshot.water_plan[0];
  if (!today) return [];
  const jobs: ZoneJob[] = [];
  for (const plan of today.zones) {
    if (plan.planned_seconds <= 0) continue;
    const zone = snapshot.zones.find((z) => z.slug === plan.zone);
    const math = (zone?.math ?? {}) as { cycles_s?: unknown; soak_s?: unknown };
    const cycles = Array.isArray(math.cycles_s) ? math.cycles_s.filter(isPositive) : [];
    const soak = typeof math.soak_s === 'number' && math.soak_s > 0 ? math.soak_s : 0;
    const segments = cycles.length > 1 ? cycles : [plan.planned_seconds];
    jobs.push(
      inCommandPieces({ zone: plan.zone, name: plan.name, segments, soak_s: segments.length > 1 ? soak : 0 }),
    );
  }
  return jobs;
}

/**
 * Zones that needed water today but were held back by a skip rule, an
 * override or a pause: each gets a `smart_morning` skip marker saying why.
 * Zones that simply needed nothing get none.
 */
export function skipMarkers(snapshot: IrrigationSnapshot): SkipMarker[] {
  const today = snapshot.water_plan[0];
  if (!today) return [];
  const paused = snapshot.skip_check.is_paused === true;
  return today.zones
    .filter((z) => z.planned_seconds === 0 && (z.water_need === 'due' || paused))
    .map((z) => ({ zone: z.zone, reason: paused ? `paused: ${z.reason}` : `${z.reason_code}: ${z.reason}` }));
}

/**
 * The plan behind a zone's session today, as the run-cap evidence keeps it:
 * planned and uncapped seconds from today's water plan, the ceiling from the
 * decision trace's zone inputs. Null when today's plan has no such zone.
 */
export function sessionPlanOf(
  snapshot: IrrigationSnapshot,
  zone: string,
  sessionId: string,
  epoch: number,
): SessionPlan | null {
  const today = snapshot.water_plan[0];
  const plan = today?.zones.find((z) => z.zone === zone);
  if (!today || !plan) return null;
  const extras = plan as { uncapped_seconds?: unknown };
  const uncapped =
    typeof extras.uncapped_seconds === 'number' ? extras.uncapped_seconds : plan.planned_seconds;
  const trace = (snapshot.decision_trace ?? {}) as {
    zones?: Record<string, { inputs?: { max_run_minutes?: unknown } }>;
  };
  const cap = trace.zones?.[zone]?.inputs?.max_run_minutes;
  return {
    session_id: sessionId,
    zone,
    date_local: today.date_local,
    epoch,
    model: plan.model,
    planned_seconds: plan.planned_seconds,
    uncapped_seconds: Math.max(uncapped, plan.planned_seconds),
    session_capped: plan.session_capped,
    max_run_minutes: typeof cap === 'number' ? cap : null,
  };
}

function isPositive(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}
