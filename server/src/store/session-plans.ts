import type { Statement } from 'better-sqlite3';
import type { Database } from './database';

/**
 * What a scheduled watering session was planned to be when it began: the
 * engine's seconds, the seconds the zone needed before the per-run ceiling
 * (`max_run_minutes`) cut them, and that ceiling. The run ledger says what
 * ran; this says why it was that long, which is the evidence the run-cap
 * tuning and the cap anomaly read.
 */
export interface SessionPlan {
  session_id: string;
  zone: string;
  date_local: string;
  epoch: number;
  /** `soil` or `weekly`. */
  model: string;
  planned_seconds: number;
  uncapped_seconds: number;
  session_capped: boolean;
  /** The ceiling in force; null when the engine did not report it. */
  max_run_minutes: number | null;
}

interface PlanRow extends Omit<SessionPlan, 'session_capped'> {
  session_capped: number;
}

const COLUMNS =
  'session_id, zone, date_local, epoch, model, planned_seconds, uncapped_seconds, session_capped, max_run_minutes';

export class SessionPlansRepository {
  private readonly insertStmt: Statement<[PlanRow]>;
  private readonly windowStmt: Statement<[{ from: number; to: number; zone: string | null }], PlanRow>;

  constructor(db: Database) {
    // The first plan of a session wins: a catch-up after a restart continues the same session.
    this.insertStmt = db.prepare<[PlanRow]>(
      `INSERT INTO session_plans (${COLUMNS}) VALUES (@session_id, @zone, @date_local, @epoch, @model, ` +
        '@planned_seconds, @uncapped_seconds, @session_capped, @max_run_minutes) ON CONFLICT (session_id) DO NOTHING',
    );
    this.windowStmt = db.prepare(
      `SELECT ${COLUMNS} FROM session_plans WHERE epoch BETWEEN @from AND @to ` +
        'AND (@zone IS NULL OR zone = @zone) ORDER BY epoch, session_id',
    );
  }

  /** Returns false when the session already had a plan. */
  record(plan: SessionPlan): boolean {
    return this.insertStmt.run({ ...plan, session_capped: plan.session_capped ? 1 : 0 }).changes > 0;
  }

  /** Plans of sessions begun in [from, to] inclusive, oldest first. */
  listWindow(from: number, to: number, zone?: string): SessionPlan[] {
    return this.windowStmt
      .all({ from, to, zone: zone ?? null })
      .map((row) => ({ ...row, session_capped: row.session_capped === 1 }));
  }
}
