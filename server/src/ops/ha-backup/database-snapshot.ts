import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';

/**
 * Home Assistant backups of the add-on (config.yaml: `backup: hot`,
 * `backup_pre`, `backup_post`, docs/operations.md). The Supervisor tars /data
 * while the service runs; a live SQLite file copied mid-write is torn, so the
 * live database (and its WAL) is excluded from the tar and, just before it,
 * `backup_pre` writes a consistent copy with `VACUUM INTO` (one read
 * transaction: a single committed state, while the service keeps writing).
 * `backup_post` removes the copy. After HA restores the backup, /data holds
 * the copy and no live database: the next boot moves the copy into place.
 *
 * Why not `backup: cold`: the Supervisor would stop the add-on for the
 * backup, and HA's automatic backups run at night, in the watering window.
 */

export const HA_BACKUP_DIR = 'ha-backup';
/** Not named like the live file: the backup_exclude patterns name the live one by name. */
export const HA_BACKUP_FILE = 'raincheck-snapshot.sqlite';

const BUSY_TIMEOUT_MS = 10_000;

/** backup_pre: a consistent copy of the live database beside it (nothing when there is none). */
export function writeDatabaseSnapshot(dataDir: string, databaseFile: string): string | null {
  const live = join(dataDir, databaseFile);
  if (!existsSync(live)) return null;
  const dir = join(dataDir, HA_BACKUP_DIR);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const target = join(dir, HA_BACKUP_FILE);
  const temp = `${target}.tmp-${process.pid}`;
  rmSync(temp, { force: true });
  const db = new BetterSqlite3(live, { fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
  try {
    db.prepare('VACUUM INTO ?').run(temp);
  } finally {
    db.close();
  }
  fsyncPath(temp);
  renameSync(temp, target);
  fsyncPath(dir);
  return target;
}

/** backup_post: the copy is in the backup now. */
export function removeDatabaseSnapshot(dataDir: string): void {
  rmSync(join(dataDir, HA_BACKUP_DIR), { recursive: true, force: true });
}

/**
 * Boot: a restored HA backup leaves the copy and no live database; move it in.
 * A copy beside a live database is a backup_post that never ran: drop it.
 */
export function adoptDatabaseSnapshot(dataDir: string, databaseFile: string): boolean {
  const copy = join(dataDir, HA_BACKUP_DIR, HA_BACKUP_FILE);
  if (!existsSync(copy)) return false;
  const live = join(dataDir, databaseFile);
  if (existsSync(live)) {
    removeDatabaseSnapshot(dataDir);
    return false;
  }
  for (const suffix of ['-wal', '-shm']) rmSync(live + suffix, { force: true });
  renameSync(copy, live);
  removeDatabaseSnapshot(dataDir);
  fsyncPath(dataDir);
  return true;
}

function fsyncPath(path: string): void {
  try {
    const fd = openSync(path, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // A directory fsync some file systems refuse; the rename stands.
  }
}
