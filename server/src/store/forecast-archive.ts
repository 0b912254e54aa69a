import type { Statement, Transaction } from 'better-sqlite3';
import type { Database } from './database';

/** Spec 2.4 "Archive row": what one fetch of one track predicted for one target hour. */
export interface ArchiveRow {
  track: string;
  provider: string;
  model: string | null;
  target_epoch: number;
  lead_h: number;
  pop_pct: number | null;
  precip_in: number | null;
  fetched_at: number;
}

export interface ArchivePage {
  rows: ArchiveRow[];
  next_cursor: string | null;
}

export interface ArchiveQuery {
  track: string;
  /** Inclusive target-hour range. */
  from: number;
  to: number;
  lead_h?: number;
  limit: number;
  /** A `next_cursor` from the previous page of the same query. */
  cursor?: string | null;
}

/** A cursor that was not produced by this service; the HTTP layer answers 400. */
export class InvalidCursorError extends Error {
  constructor() {
    super('invalid archive cursor');
    this.name = 'InvalidCursorError';
  }
}

/** Page order and cursor position: the primary key after `track`. */
type Key = [target_epoch: number, lead_h: number, fetched_at: number];

const CURSOR_VERSION = 1;
const BEFORE_ANY: Key = [Number.MIN_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, Number.MIN_SAFE_INTEGER];

export function encodeCursor(key: Key): string {
  return Buffer.from(JSON.stringify([CURSOR_VERSION, ...key])).toString('base64url');
}

export function decodeCursor(cursor: string): Key {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidCursorError();
  }
  if (!isCursorTuple(parsed)) throw new InvalidCursorError();
  return [parsed[1], parsed[2], parsed[3]];
}

function isCursorTuple(value: unknown): value is [number, ...Key] {
  return (
    Array.isArray(value) &&
    value.length === 4 &&
    value[0] === CURSOR_VERSION &&
    value.every((n) => Number.isSafeInteger(n))
  );
}

interface PageParams {
  track: string;
  from: number;
  to: number;
  lead_h: number | null;
  after_target: number;
  after_lead: number;
  after_fetched: number;
  limit: number;
}

const ROW_COLUMNS = 'track, provider, model, target_epoch, lead_h, pop_pct, precip_in, fetched_at';
const PAGE_WHERE = 'WHERE track = @track AND target_epoch BETWEEN @from AND @to';

export class ForecastArchiveRepository {
  private readonly insertStmt: Statement<[ArchiveRow]>;
  private readonly pageStmt: Statement<[PageParams], ArchiveRow>;
  private readonly pageByLeadStmt: Statement<[PageParams], ArchiveRow>;
  private readonly pruneStmt: Statement<[number]>;
  private readonly insertBatch: Transaction<(rows: readonly ArchiveRow[]) => void>;

  constructor(db: Database) {
    // Re-archiving the same fetch is a retry, not a conflict: last write wins.
    this.insertStmt = db.prepare<[ArchiveRow]>(
      `INSERT INTO forecast_archive (${ROW_COLUMNS}) VALUES (@track, @provider, @model, @target_epoch, ` +
        '@lead_h, @pop_pct, @precip_in, @fetched_at) ON CONFLICT (track, target_epoch, lead_h, fetched_at) ' +
        'DO UPDATE SET provider = excluded.provider, model = excluded.model, ' +
        'pop_pct = excluded.pop_pct, precip_in = excluded.precip_in',
    );
    this.pageStmt = db.prepare<[PageParams], ArchiveRow>(
      `SELECT ${ROW_COLUMNS} FROM forecast_archive ${PAGE_WHERE} ` +
        'AND (target_epoch, lead_h, fetched_at) > (@after_target, @after_lead, @after_fetched) ' +
        'ORDER BY target_epoch, lead_h, fetched_at LIMIT @limit',
    );
    // With lead_h fixed the order reduces to (target_epoch, fetched_at), which the by-lead index serves.
    this.pageByLeadStmt = db.prepare<[PageParams], ArchiveRow>(
      `SELECT ${ROW_COLUMNS} FROM forecast_archive ${PAGE_WHERE} AND lead_h = @lead_h ` +
        'AND (target_epoch, fetched_at) > (@after_target, @after_fetched) ' +
        'ORDER BY target_epoch, fetched_at LIMIT @limit',
    );
    this.pruneStmt = db.prepare<[number]>('DELETE FROM forecast_archive WHERE target_epoch < ?');
    this.insertBatch = db.transaction((rows: readonly ArchiveRow[]) => {
      for (const row of rows) this.insertStmt.run(row);
    });
  }

  insertMany(rows: readonly ArchiveRow[]): void {
    this.insertBatch(rows);
  }

  /** One page in (target_epoch, lead_h, fetched_at) order; throws InvalidCursorError on a foreign cursor. */
  page(query: ArchiveQuery): ArchivePage {
    if (!Number.isSafeInteger(query.limit) || query.limit < 1) throw new RangeError('limit must be >= 1');
    const [afterTarget, afterLead, afterFetched] = query.cursor ? decodeCursor(query.cursor) : BEFORE_ANY;
    const params: PageParams = {
      track: query.track,
      from: query.from,
      to: query.to,
      lead_h: query.lead_h ?? null,
      after_target: afterTarget,
      after_lead: afterLead,
      after_fetched: afterFetched,
      // One extra row tells whether another page exists without a trailing empty page.
      limit: query.limit + 1,
    };
    const stmt = query.lead_h === undefined ? this.pageStmt : this.pageByLeadStmt;
    return toPage(stmt.all(params), query.limit);
  }

  /** Retention: removes rows whose target hour is before the cutoff, returns how many. */
  deleteTargetsBefore(cutoffEpoch: number): number {
    return this.pruneStmt.run(cutoffEpoch).changes;
  }
}

function toPage(rows: ArchiveRow[], limit: number): ArchivePage {
  if (rows.length <= limit) return { rows, next_cursor: null };
  const page = rows.slice(0, limit);
  const last = page[limit - 1] as ArchiveRow;
  return { rows: page, next_cursor: encodeCursor([last.target_epoch, last.lead_h, last.fetched_at]) };
}
