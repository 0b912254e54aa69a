import type { Statement } from 'better-sqlite3';
import type { Database } from './database';
import { fromJson, toJson, type JsonValue } from './json';

/** One zone's line of a daily decision (spec 2.5 "Daily decision"); a type alias so it is a JsonValue. */
export type DecisionZone = {
  zone: string;
  name: string;
  reason_code: string;
  reason: string;
  water_need: string;
  planned_seconds: number;
};

export interface DailyDecision {
  date_local: string;
  epoch: number;
  kind: string;
  zones: DecisionZone[];
}

/** One change of the skip-check verdict; `reason` is the evidence the engine gave, kept as JSON. */
export interface VerdictTransition {
  epoch: number;
  verdict: string;
  previous_verdict: string | null;
  reason: JsonValue;
}

export interface StoredVerdictTransition extends VerdictTransition {
  id: number;
}

interface DailyRow {
  date_local: string;
  epoch: number;
  kind: string;
  zones: string;
}

interface TransitionRow {
  id: number;
  epoch: number;
  verdict: string;
  previous_verdict: string | null;
  reason: string;
}

interface Window {
  from: number;
  to: number;
}

const TRANSITION_COLUMNS = 'id, epoch, verdict, previous_verdict, reason';

export class DecisionsRepository {
  private readonly upsertDailyStmt: Statement<[DailyRow]>;
  private readonly dailyWindowStmt: Statement<[Window], DailyRow>;
  private readonly insertTransitionStmt: Statement<[Omit<TransitionRow, 'id'>]>;
  private readonly transitionWindowStmt: Statement<[Window], TransitionRow>;
  private readonly latestTransitionStmt: Statement<[], TransitionRow>;

  constructor(db: Database) {
    this.upsertDailyStmt = db.prepare<[DailyRow]>(
      'INSERT INTO daily_decisions (date_local, kind, epoch, zones) VALUES (@date_local, @kind, @epoch, @zones) ' +
        'ON CONFLICT (date_local, kind) DO UPDATE SET epoch = excluded.epoch, zones = excluded.zones',
    );
    this.dailyWindowStmt = db.prepare<[Window], DailyRow>(
      'SELECT date_local, epoch, kind, zones FROM daily_decisions ' +
        'WHERE epoch BETWEEN @from AND @to ORDER BY epoch, date_local, kind',
    );
    this.insertTransitionStmt = db.prepare<[Omit<TransitionRow, 'id'>]>(
      'INSERT INTO verdict_transitions (epoch, verdict, previous_verdict, reason) ' +
        'VALUES (@epoch, @verdict, @previous_verdict, @reason)',
    );
    this.transitionWindowStmt = db.prepare<[Window], TransitionRow>(
      `SELECT ${TRANSITION_COLUMNS} FROM verdict_transitions WHERE epoch BETWEEN @from AND @to ORDER BY epoch, id`,
    );
    this.latestTransitionStmt = db.prepare<[], TransitionRow>(
      `SELECT ${TRANSITION_COLUMNS} FROM verdict_transitions ORDER BY epoch DESC, id DESC LIMIT 1`,
    );
  }

  /** The latest decision for a local day and kind replaces the earlier one. */
  upsertDaily(decision: DailyDecision): void {
    this.upsertDailyStmt.run({ ...decision, zones: toJson(decision.zones) });
  }

  /** Decisions whose epoch lies in [from, to] inclusive, oldest first. */
  listDaily(from: number, to: number): DailyDecision[] {
    return this.dailyWindowStmt
      .all({ from, to })
      .map((r) => ({ ...r, zones: fromJson<DecisionZone[]>(r.zones) }));
  }

  insertTransition(t: VerdictTransition): number {
    const row = { ...t, reason: toJson(t.reason) };
    return Number(this.insertTransitionStmt.run(row).lastInsertRowid);
  }

  /** Transitions in [from, to] inclusive, oldest first. */
  listTransitions(from: number, to: number): StoredVerdictTransition[] {
    return this.transitionWindowStmt.all({ from, to }).map(toTransition);
  }

  /** The verdict in force, so the engine records a transition only on a change. */
  latestTransition(): StoredVerdictTransition | null {
    const row = this.latestTransitionStmt.get();
    return row ? toTransition(row) : null;
  }
}

function toTransition(row: TransitionRow): StoredVerdictTransition {
  return { ...row, reason: fromJson(row.reason) };
}
