import type { Statement } from 'better-sqlite3';
import type { Database } from './database';

export type RunStatus = 'intended' | 'running' | 'completed' | 'aborted' | 'skipped';

export type RunSource =
  'ha_refresher' | 'manual' | `manual:${string}` | 'dry_run' | `dry_run:${string}` | 'smart_morning';

/**
 * Where a finished row's `duration_s` comes from (an extra run-record field,
 * spec 2.5 lets records carry extras): `observed` = the controller's readback
 * saw the valve open that long; `metered` = observed, and a flow meter measured
 * `volume_gal`; `commanded` = what was asked of a controller that cannot
 * report (or a stretch nobody saw): planned-only evidence; `simulated` = a
 * demo's dry-run valve (`features.demo_mode`): pretend seconds that water the
 * demo's synthetic yard and never a real one. Null on rows that are not water
 * (skipped, intended, running) and on legacy rows.
 */
export type RunEvidence = 'observed' | 'commanded' | 'metered' | 'simulated';

/** Spec 2.5 "Run record". Nullable fields stay null when nothing was observed. */
export interface RunRecord {
  session_id: string | null;
  zone: string;
  start_epoch: number;
  duration_s: number;
  skip_reason: string | null;
  source: RunSource;
  status: RunStatus;
  controller_id: string | null;
  applied_mm: number | null;
  volume_gal: number | null;
  note: string | null;
  cycle_index: number | null;
  cycle_count: number | null;
  /** Extra: see RunEvidence. Absent on insert = null. */
  evidence?: RunEvidence | null;
  /** Extra: the mean metered flow while the valve was open (US gal/min); null without a meter. */
  mean_flow_gpm?: number | null;
}

export interface StoredRun extends RunRecord {
  id: number;
}

/** Fields that change after a run starts. A key that is present is written, null included. */
export type RunUpdate = Partial<
  Pick<
    RunRecord,
    | 'status'
    | 'duration_s'
    | 'applied_mm'
    | 'volume_gal'
    | 'note'
    | 'skip_reason'
    | 'evidence'
    | 'mean_flow_gpm'
  >
>;

const UPDATABLE = [
  'status',
  'duration_s',
  'applied_mm',
  'volume_gal',
  'note',
  'skip_reason',
  'evidence',
  'mean_flow_gpm',
] as const;

const COLUMNS =
  'session_id, zone, start_epoch, duration_s, skip_reason, source, status, ' +
  'controller_id, applied_mm, volume_gal, note, cycle_index, cycle_count, evidence, mean_flow_gpm';

const INSERT_SQL =
  `INSERT INTO runs (${COLUMNS}) VALUES (@session_id, @zone, @start_epoch, @duration_s, @skip_reason, ` +
  '@source, @status, @controller_id, @applied_mm, @volume_gal, @note, @cycle_index, @cycle_count, ' +
  '@evidence, @mean_flow_gpm)';

// One statement for every patch shape: a set_<col> flag of 1 writes the new value, 0 keeps the old one.
const UPDATE_SQL =
  'UPDATE runs SET ' +
  UPDATABLE.map((c) => `${c} = CASE WHEN @set_${c} THEN @${c} ELSE ${c} END`).join(', ') +
  ' WHERE id = @id';

type UpdateParams = Record<string, string | number | null>;
interface WindowParams {
  from: number;
  to: number;
  zone: string | null;
}

/** Keyset position in (start_epoch, id) order: the last row of the previous page. */
export interface RunCursor {
  start_epoch: number;
  id: number;
}

/** Before every row: the cursor of a first page. */
export const RUN_CURSOR_START: Readonly<RunCursor> = Object.freeze({
  start_epoch: Number.MIN_SAFE_INTEGER,
  id: Number.MIN_SAFE_INTEGER,
});

/** One page of Run records as UTF-8 JSON joined by commas (empty when no rows); `next` is null on the last page. */
export interface RunJsonPage {
  json: Buffer;
  next: RunCursor | null;
}

interface PageParams {
  seek_from: number;
  to: number;
  after_start: number;
  after_id: number;
  limit: number;
}

interface RangeParams {
  seek_from: number;
  after_start: number;
  after_id: number;
  until_start: number;
  until_id: number;
}

/**
 * Keyset page over runs_by_start (start_epoch, then the rowid the index carries):
 * no OFFSET, and the index search starts at the later of `from` and the cursor
 * (the row-value comparison alone would make SQLite walk every earlier row).
 */
const PAGE_WHERE =
  'WHERE start_epoch BETWEEN @seek_from AND @to AND (start_epoch, id) > (@after_start, @after_id) ' +
  'ORDER BY start_epoch, id LIMIT @limit';

/** The keyset position of the page's last row: an index-only walk of `limit` entries. */
const PAGE_END_SQL =
  'SELECT start_epoch, id FROM runs WHERE start_epoch BETWEEN @seek_from AND @to ' +
  'AND (start_epoch, id) > (@after_start, @after_id) ORDER BY start_epoch, id LIMIT 1 OFFSET @limit - 1';

/**
 * Rows in (after, until], each with its stored JSON record (migration 8) as
 * `r.json` (the LEFT JOIN keeps `runs` the outer loop); the BETWEEN bound is
 * `until_start` so the index search stops at the page end. Used by one group_concat without its own ORDER BY: an aggregate ORDER BY
 * re-sorts every rendered row (the whole 60,000-run ledger took 87 ms instead of 58 ms
 * against a 100 ms budget), while INDEXED BY pins the walk to runs_by_start, which
 * SQLite steps forward in (start_epoch, rowid) order. The history tests hold that order,
 * ties and page boundaries included (a reversed walk fails them); never set
 * PRAGMA reverse_unordered_selects on this connection.
 */
const RANGE_FROM =
  'FROM runs INDEXED BY runs_by_start LEFT JOIN run_records r ON r.id = runs.id ' +
  'WHERE start_epoch BETWEEN @seek_from AND @until_start ' +
  'AND (start_epoch, runs.id) > (@after_start, @after_id) AND (start_epoch, runs.id) <= (@until_start, @until_id)';

/**
 * The Run record's fields (no internal id) as one JSON object, built in SQLite
 * rather than per row in JS: the fallback for a run without a stored record.
 */
const RUN_JSON =
  'json_object(' +
  COLUMNS.split(', ')
    .map((c) => `'${c}', ${c}`)
    .join(', ') +
  ')';

/**
 * An aggregate's text as a BLOB: better-sqlite3 hands it over as a Buffer, the bytes the
 * socket sends, instead of a JS string that is encoded to UTF-8 again on write (12 ms
 * and 26 MB of garbage less for the whole ledger).
 */
export const JSON_BYTES = (text: string): string => `CAST(coalesce(${text}, '') AS BLOB)`;

function pageParams(from: number, to: number, after: RunCursor, limit: number): PageParams {
  return {
    seek_from: Math.max(from, after.start_epoch),
    to,
    after_start: after.start_epoch,
    after_id: after.id,
    limit,
  };
}

export class RunsRepository {
  private readonly insertStmt: Statement<[RunRecord]>;
  private readonly updateStmt: Statement<[UpdateParams]>;
  private readonly windowStmt: Statement<[WindowParams], StoredRun>;
  private readonly pruneStmt: Statement<[number]>;
  private readonly openStmt: Statement<[], StoredRun>;
  private readonly sessionStmt: Statement<[string], StoredRun>;
  private readonly byIdStmt: Statement<[number], StoredRun>;
  private readonly pageStmt: Statement<[PageParams], StoredRun>;
  private readonly pageEndStmt: Statement<[PageParams], RunCursor>;
  private readonly jsonRangeStmt: Statement<[RangeParams], Buffer>;
  private readonly scheduledStartsStmt: Statement<[number, number], number>;
  private readonly meteredStmt: Statement<[string, number], number>;

  constructor(db: Database) {
    this.insertStmt = db.prepare<[RunRecord]>(INSERT_SQL);
    this.updateStmt = db.prepare<[UpdateParams]>(UPDATE_SQL);
    this.windowStmt = db.prepare<[WindowParams], StoredRun>(
      `SELECT id, ${COLUMNS} FROM runs WHERE start_epoch BETWEEN @from AND @to ` +
        'AND (@zone IS NULL OR zone = @zone) ORDER BY start_epoch, id',
    );
    this.pruneStmt = db.prepare<[number]>('DELETE FROM runs WHERE start_epoch < ?');
    this.openStmt = db.prepare<[], StoredRun>(
      `SELECT id, ${COLUMNS} FROM runs WHERE status IN ('intended', 'running') ORDER BY start_epoch, id`,
    );
    this.sessionStmt = db.prepare<[string], StoredRun>(
      `SELECT id, ${COLUMNS} FROM runs WHERE session_id = ? ORDER BY start_epoch, id`,
    );
    this.byIdStmt = db.prepare<[number], StoredRun>(`SELECT id, ${COLUMNS} FROM runs WHERE id = ?`);
    this.pageStmt = db.prepare<[PageParams], StoredRun>(`SELECT id, ${COLUMNS} FROM runs ${PAGE_WHERE}`);
    this.pageEndStmt = db.prepare<[PageParams], RunCursor>(PAGE_END_SQL);
    this.jsonRangeStmt = db
      .prepare<[RangeParams], Buffer>(
        `SELECT ${JSON_BYTES(`group_concat(coalesce(r.json, ${RUN_JSON}), ',')`)} ${RANGE_FROM}`,
      )
      .pluck();
    this.scheduledStartsStmt = db
      .prepare<[number, number], number>(
        'SELECT start_epoch FROM runs WHERE start_epoch BETWEEN ? AND ? ' +
          "AND source IN ('smart_morning', 'ha_refresher') ORDER BY start_epoch",
      )
      .pluck();
    this.meteredStmt = db
      .prepare<[string, number], number>(
        // One sample per watering job: its request and observed rows (and cycle segments) are one run.
        'SELECT avg(mean_flow_gpm) FROM runs WHERE zone = ? AND mean_flow_gpm IS NOT NULL ' +
          "AND status = 'completed' GROUP BY coalesce(session_id, 'row:' || id) " +
          'ORDER BY max(start_epoch) DESC, max(id) DESC LIMIT ?',
      )
      .pluck();
  }

  get(id: number): StoredRun | null {
    return this.byIdStmt.get(id) ?? null;
  }

  /** Rows still `intended` or `running`: what a restart must reconcile. */
  listOpen(): StoredRun[] {
    return this.openStmt.all();
  }

  /** Every row of one watering job (its cycle/soak segments), oldest first. */
  listSession(sessionId: string): StoredRun[] {
    return this.sessionStmt.all(sessionId);
  }

  /** Returns the new row id, the handle for later status updates. */
  insert(run: RunRecord): number {
    const row = { ...run, evidence: run.evidence ?? null, mean_flow_gpm: run.mean_flow_gpm ?? null };
    return Number(this.insertStmt.run(row).lastInsertRowid);
  }

  /**
   * Mean metered flows of a zone's last `limit` completed watering jobs (one
   * per session: its request and hardware rows agree), newest first: what its
   * flow baseline is learnt from.
   */
  recentMeanFlows(zone: string, limit: number): number[] {
    return this.meteredStmt.all(zone, limit);
  }

  /** Returns false when no run has that id. */
  update(id: number, patch: RunUpdate): boolean {
    const params: UpdateParams = { id };
    for (const col of UPDATABLE) {
      const present = Object.prototype.hasOwnProperty.call(patch, col);
      params[`set_${col}`] = present ? 1 : 0;
      params[col] = present ? (patch[col] ?? null) : null;
    }
    return this.updateStmt.run(params).changes > 0;
  }

  /** Runs started within [from, to] inclusive, oldest first. History `days=0` is from = 0. */
  listWindow(from: number, to: number, zone?: string): StoredRun[] {
    return this.windowStmt.all({ from, to, zone: zone ?? null });
  }

  /** Retention: removes runs started before the cutoff, returns how many. */
  deleteBefore(cutoffEpoch: number): number {
    return this.pruneStmt.run(cutoffEpoch).changes;
  }

  /**
   * One keyset page of runs started within [from, to], after `after`, in (start_epoch, id)
   * order. Read through .iterate(): the caller must consume the page before touching the
   * database again (the connection is busy while the iterator is open) and before yielding
   * to the event loop, then ask for the next page with the last row as cursor.
   */
  iterateWindowPage(from: number, to: number, after: RunCursor, limit: number): IterableIterator<StoredRun> {
    return this.pageStmt.iterate(pageParams(from, to, after, limit));
  }

  /**
   * The same page as iterateWindowPage as one buffer of Run record JSON objects
   * (no internal id), built by SQLite: the whole ledger costs a few large strings
   * instead of 60,000 row objects and their garbage (half the time under the
   * service's 1 MB young generation). The page end is found first (index only),
   * then the rows up to it are aggregated in one bounded statement (see RANGE_FROM).
   */
  windowJsonPage(from: number, to: number, after: RunCursor, limit: number): RunJsonPage {
    const params = pageParams(from, to, after, limit);
    const end = this.pageEndStmt.get(params) ?? null;
    const json = this.jsonRangeStmt.get({
      seek_from: params.seek_from,
      after_start: after.start_epoch,
      after_id: after.id,
      until_start: end?.start_epoch ?? to,
      until_id: end?.id ?? Number.MAX_SAFE_INTEGER,
    });
    return { json: json ?? Buffer.alloc(0), next: end };
  }

  /** Start times of scheduled rows (smart_morning markers, ha_refresher runs) in [from, to], oldest first. */
  scheduledStarts(from: number, to: number): number[] {
    return this.scheduledStartsStmt.all(from, to);
  }
}
