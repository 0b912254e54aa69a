import type { Statement } from 'better-sqlite3';
import type { Database } from './database';

export type RunStatus = 'intended' | 'running' | 'completed' | 'aborted' | 'skipped';

export type RunSource =
  'ha_refresher' | 'manual' | `manual:${string}` | 'dry_run' | `dry_run:${string}` | 'smart_morning';

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
}

export interface StoredRun extends RunRecord {
  id: number;
}

/** Fields that change after a run starts. A key that is present is written, null included. */
export type RunUpdate = Partial<
  Pick<RunRecord, 'status' | 'duration_s' | 'applied_mm' | 'volume_gal' | 'note'>
>;

const UPDATABLE = ['status', 'duration_s', 'applied_mm', 'volume_gal', 'note'] as const;

const COLUMNS =
  'session_id, zone, start_epoch, duration_s, skip_reason, source, status, ' +
  'controller_id, applied_mm, volume_gal, note, cycle_index, cycle_count';

const INSERT_SQL =
  `INSERT INTO runs (${COLUMNS}) VALUES (@session_id, @zone, @start_epoch, @duration_s, @skip_reason, ` +
  '@source, @status, @controller_id, @applied_mm, @volume_gal, @note, @cycle_index, @cycle_count)';

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

export class RunsRepository {
  private readonly insertStmt: Statement<[RunRecord]>;
  private readonly updateStmt: Statement<[UpdateParams]>;
  private readonly windowStmt: Statement<[WindowParams], StoredRun>;
  private readonly pruneStmt: Statement<[number]>;

  constructor(db: Database) {
    this.insertStmt = db.prepare<[RunRecord]>(INSERT_SQL);
    this.updateStmt = db.prepare<[UpdateParams]>(UPDATE_SQL);
    this.windowStmt = db.prepare<[WindowParams], StoredRun>(
      `SELECT id, ${COLUMNS} FROM runs WHERE start_epoch BETWEEN @from AND @to ` +
        'AND (@zone IS NULL OR zone = @zone) ORDER BY start_epoch, id',
    );
    this.pruneStmt = db.prepare<[number]>('DELETE FROM runs WHERE start_epoch < ?');
  }

  /** Returns the new row id, the handle for later status updates. */
  insert(run: RunRecord): number {
    return Number(this.insertStmt.run(run).lastInsertRowid);
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
}
