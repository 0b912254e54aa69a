import type { WateringFinishedEvent } from '../../core/bus';
import type { RunSource } from '../../store/runs';
import type { RecordedWater } from './water-amount';

/**
 * Adds up one watering job (a session's cycle segments) as its rows finish,
 * for `watering.finished`: announced when the job's last segment ends or a
 * segment is cut short (the scheduler drops the rest). `duration_s` is what
 * the run ledger credits for the job: observed (or metered) seconds, which
 * the observer's hardware rows credit even when the request row is aborted;
 * the commanded seconds of a completed run on a controller that cannot
 * report; nothing for a cut-short run nobody saw. Pretend (dry-run) water
 * counts its seconds, and `source` says it is pretend.
 */

interface JobRun {
  zone: string;
  sessionId: string;
  source: RunSource;
  startEpoch: number;
  cycle?: { index: number; count: number };
}

interface Totals {
  status: 'completed' | 'aborted';
  start: number;
  seconds: number;
  applied: number | null;
  volume: number | null;
  notes: string[];
}

/** A job whose last segment never ran (its dispatch failed) is forgotten after this long. */
const FORGET_AFTER_S = 2 * 86_400;

export class JobTally {
  private readonly jobs = new Map<string, Totals>();

  /** Counts one finished row; returns the announcement when the job ended with it. */
  add(
    run: JobRun,
    how: 'completed' | 'aborted',
    seconds: number,
    water: RecordedWater,
    note: string | null,
    now: number,
  ): WateringFinishedEvent | null {
    for (const [session, job] of this.jobs) if (job.start < now - FORGET_AFTER_S) this.jobs.delete(session);
    const totals = this.jobs.get(run.sessionId) ?? {
      status: 'completed',
      start: run.startEpoch,
      seconds: 0,
      applied: null,
      volume: null,
      notes: [],
    };
    const credited =
      how === 'completed' || water.evidence !== 'commanded' || run.source.startsWith('dry_run');
    if (credited) {
      totals.seconds += seconds;
      totals.applied = addNullable(totals.applied, water.applied_mm);
      totals.volume = addNullable(totals.volume, water.volume_gal);
    }
    if (how === 'aborted') totals.status = 'aborted';
    if (note) totals.notes.push(note);
    const last = !run.cycle || run.cycle.index >= run.cycle.count || how === 'aborted';
    if (!last) {
      this.jobs.set(run.sessionId, totals);
      return null;
    }
    this.jobs.delete(run.sessionId);
    return {
      zone: run.zone,
      session_id: run.sessionId,
      source: run.source,
      status: totals.status,
      start_epoch: totals.start,
      end_epoch: now,
      duration_s: totals.seconds,
      applied_mm: totals.applied === null ? null : Math.round(totals.applied * 100) / 100,
      volume_gal: totals.volume === null ? null : Math.round(totals.volume * 10) / 10,
      note: totals.notes.length > 0 ? totals.notes.join('; ') : null,
    };
  }
}

function addNullable(sum: number | null, value: number | null): number | null {
  if (value === null) return sum;
  return (sum ?? 0) + value;
}
