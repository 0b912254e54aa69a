import type { RunRecord } from '../../store/runs';
import type { SessionPlan } from '../../store/session-plans';
import { isWateringEvidence, unionIntervals, type Interval } from '../engine/applied-water';

/**
 * Scheduled sessions that really watered: a session plan joined with the run
 * ledger's watering evidence of the same session id (completed, real water;
 * dry-run, skip and aborted rows are not). Delivered seconds are the union of
 * the session's valve-open intervals (cycle segments, observer rows), never
 * their sum. Pure.
 */

export interface WateredSession {
  plan: SessionPlan;
  delivered_seconds: number;
}

export function wateredSessions(plans: readonly SessionPlan[], runs: readonly RunRecord[]): WateredSession[] {
  const intervals = new Map<string, Interval[]>();
  for (const run of runs) {
    if (run.session_id === null || !isWateringEvidence(run)) continue;
    const list = intervals.get(run.session_id) ?? [];
    list.push([run.start_epoch, run.start_epoch + run.duration_s]);
    intervals.set(run.session_id, list);
  }
  return plans.flatMap((plan) => {
    const mine = intervals.get(plan.session_id);
    if (!mine) return [];
    const delivered = unionIntervals(mine).reduce((sum, [a, b]) => sum + (b - a), 0);
    return [{ plan, delivered_seconds: delivered }];
  });
}

/** The ceiling in force now, in seconds (spec 2.6: null = 60 minutes). */
export function capSeconds(maxRunMinutes: number | null | undefined): number {
  return (maxRunMinutes ?? 60) * 60;
}

/** Whole minutes, rounded up to the next multiple of 5. */
export function ceilToFiveMinutes(seconds: number): number {
  return Math.ceil(seconds / 300) * 5;
}

export function minutes(seconds: number): string {
  return `${Math.round(seconds / 60)} min`;
}
