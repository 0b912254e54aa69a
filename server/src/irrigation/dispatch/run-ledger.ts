import type { RunsRepository, RunSource, StoredRun } from '../../store/runs';
import type { RecordedWater } from './water-amount';

/**
 * The run ledger: every watering job and skip as run records (spec 2.5),
 * written once and moved through its statuses here and nowhere else.
 *
 * Status transitions (spec 3 leaves them open; this is the contract):
 *
 *   intended  -> running    the controller accepted the command
 *   intended  -> skipped    the command failed (skip_reason `dispatch_failed`,
 *                           note = the controller's error), or a restart found
 *                           it never confirmed
 *   running   -> completed  the valve ran to its planned end (controller
 *                           timer, our shutoff, or readback saw it close at
 *                           or after the end); duration_s = the planned
 *                           seconds, or longer when our shutoff came late
 *   running   -> aborted    cut short; `note` says by whom: the controller
 *                           (its app, a button, a program), a controller
 *                           restart, a readback outage, or Raincheck (stop,
 *                           stop_all, a flow alarm, a replacing run);
 *                           duration_s = the seconds the evidence supports
 *                           (readback-evidence.ts)
 *   (new)     -> skipped    a zone not run: skip-day marker (`smart_morning`),
 *                           zone already running, no route to a controller
 *
 * Rows are never deleted or rewritten afterwards except by retention, and by
 * the run-log reconciliation, which may only shorten a finished row to what
 * the controller's own log holds (run-log-reconcile.ts).
 * `applied_mm`/`volume_gal` are filled only on completed/aborted rows of real
 * controllers; pretend (dry-run) and skip rows keep them null. Finished rows
 * carry `evidence` (`observed`, `metered`, `commanded`; store/runs.ts) and,
 * with a flow meter, `mean_flow_gpm`.
 */

export interface NewRun {
  session_id: string | null;
  zone: string;
  start_epoch: number;
  /** Planned seconds (the row's duration until it finishes). */
  duration_s: number;
  source: RunSource;
  controller_id: string | null;
  cycle_index?: number | null;
  cycle_count?: number | null;
  note?: string | null;
}

export class RunLedger {
  private readonly finishedListeners: ((row: StoredRun) => void)[] = [];

  constructor(private readonly runs: RunsRepository | null) {}

  /** Called with each row once it is completed or aborted (run-log-reconcile.ts checks it against the controller's log). */
  onFinished(listener: (row: StoredRun) => void): void {
    this.finishedListeners.push(listener);
  }

  /**
   * A finished row's open time cut to what the controller's own log says
   * (run-log-reconcile.ts); the one rewrite of a finished row besides retention.
   */
  trimmedToLog(id: number, openSeconds: number, water: RecordedWater, note: string): void {
    if (!this.runs || id === 0) return;
    this.runs.update(id, {
      duration_s: Math.max(0, Math.round(openSeconds)),
      applied_mm: water.applied_mm,
      volume_gal: water.volume_gal,
      evidence: water.evidence,
      note,
    });
  }

  /** The command is about to be sent. Returns the row id (0 without a database). */
  intend(run: NewRun): number {
    return this.insert(run, 'intended', null);
  }

  /** A row that is running from the start (a run the observer saw open). */
  observedOpen(run: NewRun): number {
    return this.insert(run, 'running', null);
  }

  started(id: number): void {
    if (!this.runs || id === 0) return;
    this.runs.update(id, { status: 'running' });
  }

  completed(id: number, openSeconds: number, water: RecordedWater, note?: string): void {
    this.finish(id, 'completed', openSeconds, water, note);
  }

  aborted(id: number, openSeconds: number, water: RecordedWater, note: string): void {
    this.finish(id, 'aborted', openSeconds, water, note);
  }

  /** An intended row whose command failed: not water, and why. */
  failed(id: number, error: string): void {
    if (!this.runs || id === 0) return;
    this.runs.update(id, {
      status: 'skipped',
      duration_s: 0,
      note: error,
      skip_reason: `dispatch_failed: ${error}`,
    });
  }

  /** A zone that was not run, with why (skip markers, already running, unbound). */
  skipped(run: NewRun, reason: string): number {
    if (!this.runs) return 0;
    return this.runs.insert({
      ...base(run),
      duration_s: 0,
      skip_reason: reason,
      status: 'skipped',
    });
  }

  get(id: number): StoredRun | null {
    return this.runs && id !== 0 ? this.runs.get(id) : null;
  }

  open(): StoredRun[] {
    return this.runs?.listOpen() ?? [];
  }

  session(sessionId: string): StoredRun[] {
    return this.runs?.listSession(sessionId) ?? [];
  }

  private insert(run: NewRun, status: 'intended' | 'running', skip: string | null): number {
    if (!this.runs) return 0;
    return this.runs.insert({ ...base(run), skip_reason: skip, status });
  }

  private finish(
    id: number,
    status: 'completed' | 'aborted',
    openSeconds: number,
    water: RecordedWater,
    note?: string,
  ): void {
    if (!this.runs || id === 0) return;
    this.runs.update(id, {
      status,
      duration_s: Math.max(0, Math.round(openSeconds)),
      applied_mm: water.applied_mm,
      volume_gal: water.volume_gal,
      evidence: water.evidence,
      mean_flow_gpm: water.mean_flow_gpm,
      ...(note === undefined ? {} : { note }),
    });
    if (this.finishedListeners.length === 0) return;
    const row = this.runs.get(id);
    if (row) for (const listener of this.finishedListeners) listener(row);
  }
}

function base(run: NewRun) {
  return {
    session_id: run.session_id,
    zone: run.zone,
    start_epoch: Math.floor(run.start_epoch),
    duration_s: Math.max(0, Math.round(run.duration_s)),
    source: run.source,
    controller_id: run.controller_id,
    applied_mm: null,
    volume_gal: null,
    note: run.note ?? null,
    cycle_index: run.cycle_index ?? null,
    cycle_count: run.cycle_count ?? null,
  };
}
