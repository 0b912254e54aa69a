import BetterSqlite3 from 'better-sqlite3';
import { latestVersion } from '../../store/migrations';
import { refuse } from './restore-error';

/**
 * Checks a database before it may be staged: SQLite opens it, `PRAGMA
 * integrity_check` answers ok, and its schema version is inside the
 * migration window (1 up to what this build knows; an older one migrates at
 * the next boot). Counts its rows per table for the restore preview.
 */

/** The tables the preview counts (the user's history, accounts and controls). */
export const COUNTED_TABLES = [
  'runs',
  'daily_decisions',
  'verdict_transitions',
  'readings',
  'forecast_archive',
  'accounts',
  'api_tokens',
  'push_subscriptions',
  'controls',
] as const;

export interface DatabaseFacts {
  schema_version: number;
  /** The version the next boot migrates it to. */
  migrates_to: number;
  rows: Record<string, number>;
}

export function checkDatabase(file: string): DatabaseFacts {
  let db: BetterSqlite3.Database;
  try {
    db = new BetterSqlite3(file, { fileMustExist: true });
  } catch (err) {
    throw invalid(err);
  }
  try {
    const integrity = db.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok')
      throw refuse('backup_database_invalid', `the database fails its integrity check: ${String(integrity)}`);
    const version = db.pragma('user_version', { simple: true }) as number;
    const latest = latestVersion();
    if (version > latest) {
      throw refuse(
        'backup_schema_too_new',
        `the database has schema version ${version}, newer than this build supports (${latest}); restore it with a newer Raincheck`,
        { schema_version: version, supported: latest },
      );
    }
    if (version < 1)
      throw refuse(
        'backup_database_invalid',
        'the file is an SQLite database, but not a Raincheck one (no schema version)',
      );
    return { schema_version: version, migrates_to: latest, rows: countRows(db) };
  } catch (err) {
    throw (err as { status?: unknown }).status !== undefined ? err : invalid(err);
  } finally {
    db.close();
  }
}

/** Row counts of the live database, for the preview's before-and-after. */
export function countRows(db: BetterSqlite3.Database): Record<string, number> {
  const present = new Set(
    (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map(
      (r) => r.name,
    ),
  );
  const rows: Record<string, number> = {};
  for (const table of COUNTED_TABLES) {
    if (!present.has(table)) continue;
    rows[table] = (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
  }
  return rows;
}

function invalid(err: unknown): Error {
  const message = err instanceof Error ? err.message : String(err);
  return refuse('backup_database_invalid', `the database cannot be read: ${message}`);
}
