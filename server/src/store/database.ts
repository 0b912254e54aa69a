import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { Logger } from '../core/logger';
import { assertNotTooNew, MIGRATIONS, runMigrations, schemaVersion, type Migration } from './migrations';

export type Database = BetterSqlite3.Database;

/** The file name the service uses inside its data directory. */
export const DEFAULT_DB_FILENAME = 'raincheck.db';

/** How long a writer waits for another connection's lock (a backup copy, a second process) before failing. */
const BUSY_TIMEOUT_MS = 5000;

/**
 * Connection settings, applied to every connection that writes the file.
 *
 * WAL lets HTTP reads run while the engine writes. With WAL, synchronous=NORMAL
 * already survives a killed process (a commit is in the OS page cache before
 * it returns) but can lose the last commits on power loss or a kernel crash,
 * which is the common failure on the small always-on boxes this runs on. FULL
 * fsyncs the WAL on each commit so a recorded run or a pause the owner just set
 * survives a power cut too. Write volume is low and readings are batched, so
 * one fsync per commit is cheap here.
 */
export const CONNECTION_PRAGMAS: readonly string[] = [
  'journal_mode = WAL',
  'synchronous = FULL',
  'foreign_keys = ON',
  `busy_timeout = ${BUSY_TIMEOUT_MS}`,
];

export interface OpenOptions {
  /** Schema history to apply; tests substitute their own. */
  migrations?: readonly Migration[];
}

export function openDatabase(file: string, logger: Logger, options: OpenOptions = {}): Database {
  const log = logger.child({ module: 'store' });
  if (file !== ':memory:') ensureDirectory(path.dirname(file));
  const migrations = options.migrations ?? MIGRATIONS;
  const db = new BetterSqlite3(file, { timeout: BUSY_TIMEOUT_MS });
  try {
    // Checked before any pragma so a database from a newer build is left exactly as found.
    assertNotTooNew(db, migrations);
    applyPragmas(db, log);
    const applied = runMigrations(db, log, migrations);
    log.info({ file, schema_version: schemaVersion(db), applied }, 'database open');
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/** mkdir reports a file in the way only as EEXIST; name the actual problem for the health error. */
function ensureDirectory(dir: string): void {
  const existing = fs.statSync(dir, { throwIfNoEntry: false });
  if (existing && !existing.isDirectory()) throw new Error(`${dir} exists and is not a directory`);
  fs.mkdirSync(dir, { recursive: true });
}

function applyPragmas(db: Database, log: Logger): void {
  for (const pragma of CONNECTION_PRAGMAS) {
    const result = db.pragma(pragma, { simple: true });
    // journal_mode answers with the mode actually in force: memory databases and some network filesystems refuse WAL.
    if (pragma.startsWith('journal_mode') && result !== 'wal') {
      log.warn({ journal_mode: result }, 'database is not in WAL mode');
    }
  }
}

/** Folds the WAL back into the main file so a copied or backed-up file is complete on its own. */
export function closeDatabase(db: Database): void {
  if (!db.open) return;
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}
