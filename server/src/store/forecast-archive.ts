import { createHash } from 'node:crypto';
import type { Statement, Transaction } from 'better-sqlite3';
import type { Database } from './database';

/** The archive keeps each fetch's hours at leads 0 to 47 (within 48 hours of the fetch). */
export const ARCHIVE_LEAD_MAX_H = 47;

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

/** A cursor this service did not issue, or issued for other filters; the HTTP layer answers 400. */
export class InvalidCursorError extends Error {
  constructor() {
    super('invalid archive cursor');
    this.name = 'InvalidCursorError';
  }
}

/** Page order and cursor position: the primary key after `track`. */
type Key = [target_epoch: number, lead_h: number, fetched_at: number];

/** The filters a cursor belongs to; `limit` may change between pages, these may not. */
export interface CursorScope {
  track: string;
  from: number;
  to: number;
  lead_h: number | null;
}

/**
 * Version 2 carries a tag of the query's filters: a position is only meaningful
 * in the result set it came from, and reusing it with another track, range or
 * lead would silently skip rows. Version 1 (no tag) was never served.
 */
const CURSOR_VERSION = 2;
/** The tag of a cursor encoded without a scope (tests, tools); page() never accepts it. */
const UNSCOPED = 0;
const BEFORE_ANY: Key = [Number.MIN_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, Number.MIN_SAFE_INTEGER];

/** 48 bits of SHA-256 over the filters, never 0: a safe integer like the rest of the tuple. */
function scopeTag(scope: CursorScope): number {
  const digest = createHash('sha256')
    .update(JSON.stringify([scope.track, scope.from, scope.to, scope.lead_h]))
    .digest();
  return digest.readUIntBE(0, 6) || 1;
}

export function encodeCursor(key: Key, scope?: CursorScope): string {
  const tag = scope ? scopeTag(scope) : UNSCOPED;
  return Buffer.from(JSON.stringify([CURSOR_VERSION, ...key, tag])).toString('base64url');
}

/** The cursor's position; with `scope`, throws unless the cursor was issued for exactly those filters. */
export function decodeCursor(cursor: string, scope?: CursorScope): Key {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidCursorError();
  }
  if (!isCursorTuple(parsed)) throw new InvalidCursorError();
  if (scope && parsed[4] !== scopeTag(scope)) throw new InvalidCursorError();
  return [parsed[1], parsed[2], parsed[3]];
}

function isCursorTuple(value: unknown): value is [number, ...Key, number] {
  return (
    Array.isArray(value) &&
    value.length === 5 &&
    value[0] === CURSOR_VERSION &&
    value.every((n) => Number.isSafeInteger(n))
  );
}

interface PageParams {
  track: string;
  /** max(from, cursor's target): where the index search starts (see PAGE_WHERE). */
  seek_from: number;
  to: number;
  lead_h: number | null;
  after_target: number;
  after_lead: number;
  after_fetched: number;
  limit: number;
}

const ROW_COLUMNS = 'track, provider, model, target_epoch, lead_h, pop_pct, precip_in, fetched_at';
/**
 * The lower bound is the later of `from` and the cursor's target hour, not `from`:
 * SQLite starts the index search at the BETWEEN bound and only filters by the
 * row-value comparison, so with `from` every page re-read all rows before the
 * cursor (a middle page of a 400-day range cost 3x the first, a full walk grew
 * quadratically). The row-value comparison implies target_epoch >= the cursor's.
 */
const PAGE_WHERE = 'WHERE track = @track AND target_epoch BETWEEN @seek_from AND @to';

/**
 * Retention, one primary-key range per track. A bare `WHERE target_epoch < ?` has
 * no index to use (every index leads with track) and scanned the whole table
 * while holding the write lock: 0.5 s for one day's rows of a 400-day, 2-track
 * archive. The tracks come from a skip scan (min(track) > previous), so this
 * costs per track, not per row.
 */
const PRUNE_SQL = `
  WITH RECURSIVE tracks (track) AS (
    SELECT min(track) FROM forecast_archive
    UNION ALL
    SELECT (SELECT min(track) FROM forecast_archive WHERE track > tracks.track) FROM tracks
    WHERE track IS NOT NULL
  )
  DELETE FROM forecast_archive
  WHERE track IN (SELECT track FROM tracks WHERE track IS NOT NULL) AND target_epoch < ?`;

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
    this.pruneStmt = db.prepare<[number]>(PRUNE_SQL);
    this.insertBatch = db.transaction((rows: readonly ArchiveRow[]) => {
      for (const row of rows) this.insertStmt.run(row);
    });
  }

  insertMany(rows: readonly ArchiveRow[]): void {
    this.insertBatch(rows);
  }

  /**
   * One page in (target_epoch, lead_h, fetched_at) order; throws InvalidCursorError on a
   * cursor this service did not issue or issued for other filters (track, from, to, lead_h).
   */
  page(query: ArchiveQuery): ArchivePage {
    if (!Number.isSafeInteger(query.limit) || query.limit < 1) throw new RangeError('limit must be >= 1');
    const scope: CursorScope = {
      track: query.track,
      from: query.from,
      to: query.to,
      lead_h: query.lead_h ?? null,
    };
    const [afterTarget, afterLead, afterFetched] = query.cursor
      ? decodeCursor(query.cursor, scope)
      : BEFORE_ANY;
    const params: PageParams = {
      track: query.track,
      seek_from: Math.max(query.from, afterTarget),
      to: query.to,
      lead_h: query.lead_h ?? null,
      after_target: afterTarget,
      after_lead: afterLead,
      after_fetched: afterFetched,
      // One extra row tells whether another page exists without a trailing empty page.
      limit: query.limit + 1,
    };
    const stmt = query.lead_h === undefined ? this.pageStmt : this.pageByLeadStmt;
    return toPage(stmt.all(params), query.limit, scope);
  }

  /** Retention: removes rows whose target hour is before the cutoff, returns how many. */
  deleteTargetsBefore(cutoffEpoch: number): number {
    return this.pruneStmt.run(cutoffEpoch).changes;
  }
}

function toPage(rows: ArchiveRow[], limit: number, scope: CursorScope): ArchivePage {
  if (rows.length <= limit) return { rows, next_cursor: null };
  const page = rows.slice(0, limit);
  const last = page[limit - 1] as ArchiveRow;
  return {
    rows: page,
    next_cursor: encodeCursor([last.target_epoch, last.lead_h, last.fetched_at], scope),
  };
}
