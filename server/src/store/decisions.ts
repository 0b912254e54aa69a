import type { Statement } from 'better-sqlite3';
import type { Database } from './database';
import { fromJson, toJson, type JsonValue } from './json';
import { JSON_BYTES } from './runs';

/** One zone's line of a daily decision (spec 2.5 "Daily decision"); a type alias so it is a JsonValue. */
export type DecisionZone = {
  zone: string;
  name: string;
  reason_code: string;
  reason: string;
  water_need: string;
  planned_seconds: number;
  /** The forecast's rain for the next day as this decision read it: the record the forecast skill is judged by. */
  forecast_tomorrow_rain_mm?: number | null;
  forecast_tomorrow_rain_pct?: number | null;
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

/** A daily decision as its row holds it: `zones` is the JSON text written (toJson). */
export interface StoredDailyDecision {
  date_local: string;
  epoch: number;
  kind: string;
  zones: string;
}

type DailyRow = StoredDailyDecision;

/** A decision's row as it would be stored; what the writer compares and writes (one serialization). */
export function storedDaily(decision: DailyDecision): StoredDailyDecision {
  return { ...decision, zones: toJson(decision.zones) };
}

interface DateWindow {
  from_date: string;
  to_date: string;
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

/** Keyset position in (epoch, rowid) order, the order the by-epoch indexes give without a sort. */
export interface EpochCursor {
  epoch: number;
  id: number;
}

/** Before every row: the cursor of a first page. */
export const EPOCH_CURSOR_START: Readonly<EpochCursor> = Object.freeze({
  epoch: Number.MIN_SAFE_INTEGER,
  id: Number.MIN_SAFE_INTEGER,
});

/** One page of daily decisions as UTF-8 JSON joined by commas (empty when no rows); `next` is null on the last page. */
export interface DailyJsonPage {
  json: Buffer;
  next: EpochCursor | null;
}

interface EpochRangeParams {
  seek_from: number;
  after_epoch: number;
  after_id: number;
  until_epoch: number;
  until_id: number;
}

interface EpochPageParams {
  seek_from: number;
  to: number;
  after_epoch: number;
  after_id: number;
  limit: number;
}

/** A keyset page of transitions; as in RunsRepository, the search starts at the later of `from` and the cursor. */
const TRANSITION_PAGE_SQL =
  `SELECT ${TRANSITION_COLUMNS} FROM verdict_transitions WHERE epoch BETWEEN @seek_from AND @to ` +
  'AND (epoch, id) > (@after_epoch, @after_id) ORDER BY epoch, id LIMIT @limit';

/** The page end of daily decisions: an index-only walk of `limit` entries. */
const DAILY_PAGE_END_SQL =
  'SELECT epoch, rowid AS id FROM daily_decisions WHERE epoch BETWEEN @seek_from AND @to ' +
  'AND (epoch, rowid) > (@after_epoch, @after_id) ORDER BY epoch, rowid LIMIT 1 OFFSET @limit - 1';

/** Spec 2.5 Daily decision as JSON; `zones` is spliced in as stored (always written by toJson). */
const DAILY_JSON =
  `'{"date_local":' || json_quote(date_local) || ',"epoch":' || epoch || ` +
  `',"kind":' || json_quote(kind) || ',"zones":' || zones || '}'`;

/** Daily decisions in (after, until] as one buffer, in index order (see RANGE_FROM in runs.ts). */
const DAILY_JSON_RANGE_SQL =
  `SELECT ${JSON_BYTES(`group_concat(${DAILY_JSON}, ',')`)} FROM daily_decisions INDEXED BY daily_decisions_by_epoch ` +
  'WHERE epoch BETWEEN @seek_from AND @until_epoch AND (epoch, rowid) > (@after_epoch, @after_id) ' +
  'AND (epoch, rowid) <= (@until_epoch, @until_id)';

function epochPageParams(from: number, to: number, after: EpochCursor, limit: number): EpochPageParams {
  return {
    seek_from: Math.max(from, after.epoch),
    to,
    after_epoch: after.epoch,
    after_id: after.id,
    limit,
  };
}

export class DecisionsRepository {
  private readonly upsertDailyStmt: Statement<[DailyRow]>;
  private readonly dailyWindowStmt: Statement<[Window], DailyRow>;
  private readonly dailyDatesStmt: Statement<[DateWindow], DailyRow>;
  private readonly latestOfDayStmt: Statement<[string], DailyRow>;
  private readonly insertTransitionStmt: Statement<[Omit<TransitionRow, 'id'>]>;
  private readonly transitionWindowStmt: Statement<[Window], TransitionRow>;
  private readonly latestTransitionStmt: Statement<[], TransitionRow>;
  private readonly dailyPageEndStmt: Statement<[EpochPageParams], EpochCursor>;
  private readonly dailyJsonRangeStmt: Statement<[EpochRangeParams], Buffer>;
  private readonly transitionPageStmt: Statement<[EpochPageParams], TransitionRow>;
  private readonly transitionAtStmt: Statement<[number], TransitionRow>;
  private readonly decidedDatesStmt: Statement<[string, string], string>;

  constructor(db: Database) {
    this.upsertDailyStmt = db.prepare<[DailyRow]>(
      'INSERT INTO daily_decisions (date_local, kind, epoch, zones) VALUES (@date_local, @kind, @epoch, @zones) ' +
        'ON CONFLICT (date_local, kind) DO UPDATE SET epoch = excluded.epoch, zones = excluded.zones',
    );
    this.dailyWindowStmt = db.prepare<[Window], DailyRow>(
      'SELECT date_local, epoch, kind, zones FROM daily_decisions ' +
        'WHERE epoch BETWEEN @from AND @to ORDER BY epoch, date_local, kind',
    );
    this.dailyDatesStmt = db.prepare<[DateWindow], DailyRow>(
      'SELECT date_local, epoch, kind, zones FROM daily_decisions ' +
        'WHERE date_local BETWEEN @from_date AND @to_date ORDER BY epoch, date_local, kind',
    );
    // The order listDaily gives, reversed: the row a reader taking "the day's latest" ends on.
    this.latestOfDayStmt = db.prepare<[string], DailyRow>(
      'SELECT date_local, epoch, kind, zones FROM daily_decisions WHERE date_local = ? ' +
        'ORDER BY epoch DESC, kind DESC LIMIT 1',
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
    this.dailyPageEndStmt = db.prepare<[EpochPageParams], EpochCursor>(DAILY_PAGE_END_SQL);
    this.dailyJsonRangeStmt = db.prepare<[EpochRangeParams], Buffer>(DAILY_JSON_RANGE_SQL).pluck();
    this.transitionPageStmt = db.prepare<[EpochPageParams], TransitionRow>(TRANSITION_PAGE_SQL);
    this.transitionAtStmt = db.prepare<[number], TransitionRow>(
      `SELECT ${TRANSITION_COLUMNS} FROM verdict_transitions WHERE epoch <= ? ORDER BY epoch DESC, id DESC LIMIT 1`,
    );
    this.decidedDatesStmt = db
      .prepare<[string, string], string>(
        'SELECT DISTINCT date_local FROM daily_decisions WHERE date_local BETWEEN ? AND ? ORDER BY date_local',
      )
      .pluck();
  }

  /** The latest decision for a local day and kind replaces the earlier one. */
  upsertDaily(decision: DailyDecision): void {
    this.writeDaily(storedDaily(decision));
  }

  /** upsertDaily of a row already serialized (storedDaily). */
  writeDaily(row: StoredDailyDecision): void {
    this.upsertDailyStmt.run(row);
  }

  /** Decisions whose epoch lies in [from, to] inclusive, oldest first. */
  listDaily(from: number, to: number): DailyDecision[] {
    return this.dailyWindowStmt.all({ from, to }).map(toDaily);
  }

  /**
   * Decisions of the local dates [fromDate, toDate] (YYYY-MM-DD), in listDaily's order: for
   * readers that want whole days, whatever time of its day each row's epoch records.
   */
  listDailyDates(fromDate: string, toDate: string): DailyDecision[] {
    return this.dailyDatesStmt.all({ from_date: fromDate, to_date: toDate }).map(toDaily);
  }

  /** The day's latest row as stored (latest epoch, then kind), null when the day has none. */
  latestOfDay(dateLocal: string): StoredDailyDecision | null {
    return this.latestOfDayStmt.get(dateLocal) ?? null;
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

  /**
   * One keyset page of daily decisions with epoch in [from, to], in (epoch, rowid) order,
   * as one buffer of spec 2.5 Daily decision JSON objects built by SQLite (see
   * RunsRepository.windowJsonPage): the page end first, then the rows up to it.
   */
  dailyJsonPage(from: number, to: number, after: EpochCursor, limit: number): DailyJsonPage {
    const params = epochPageParams(from, to, after, limit);
    const end = this.dailyPageEndStmt.get(params) ?? null;
    const json = this.dailyJsonRangeStmt.get({
      seek_from: params.seek_from,
      after_epoch: after.epoch,
      after_id: after.id,
      until_epoch: end?.epoch ?? to,
      until_id: end?.id ?? Number.MAX_SAFE_INTEGER,
    });
    return { json: json ?? Buffer.alloc(0), next: end };
  }

  /** One keyset page of transitions with epoch in [from, to], in (epoch, id) order, read as one array. */
  transitionsPage(from: number, to: number, after: EpochCursor, limit: number): StoredVerdictTransition[] {
    const rows: StoredVerdictTransition[] = [];
    for (const row of this.transitionPageStmt.iterate(epochPageParams(from, to, after, limit))) {
      rows.push(toTransition(row));
    }
    return rows;
  }

  /** The verdict in force at `epoch`: the latest transition at or before it. */
  transitionAt(epoch: number): StoredVerdictTransition | null {
    const row = this.transitionAtStmt.get(epoch);
    return row ? toTransition(row) : null;
  }

  /** Local dates in [fromDate, toDate] (YYYY-MM-DD) for which the engine recorded a daily decision. */
  decidedDates(fromDate: string, toDate: string): string[] {
    return this.decidedDatesStmt.all(fromDate, toDate);
  }
}

function toDaily(row: DailyRow): DailyDecision {
  return { ...row, zones: fromJson<DecisionZone[]>(row.zones) };
}

function toTransition(row: TransitionRow): StoredVerdictTransition {
  return { ...row, reason: fromJson(row.reason) };
}
