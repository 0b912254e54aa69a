import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { syncDirectory, syncFile, writeFileAtomic } from '../../core/atomic-write';
import type { Logger } from '../../core/logger';

/**
 * A restored database waits in `<data dir>/restore/` until the next boot: the
 * live one is open and being written, so it cannot be replaced under the
 * running service. `pending.json` is the commit point: written last when
 * staging, removed last when swapping, so a crash at any step leaves either
 * the old database or the restored one, and a swap interrupted by a crash
 * finishes at the following boot. The replaced database (and its WAL) is kept
 * in `restore/previous/` until the next restore.
 */

export const STAGING_DIR = 'restore';
/** Spec 2.5 `restart_reasons` entry while a restored database waits. */
export const RESTORE_RESTART_REASON = 'a restored database swaps in at the next restart';
const MARKER = 'pending.json';
const STAGED_DB = 'raincheck.db';
const STAGED_INSTALL_ID = 'install-id';

export interface PendingRestore {
  staged_epoch: number;
  schema_version: number;
  /** `bundle` or `database`: what the upload was. */
  from: string;
}

/** Stages a checked database (and the bundle's install id); the caller's work dir is on the same file system. */
export function stageDatabase(
  dataDir: string,
  database: string,
  installId: string | null,
  pending: PendingRestore,
): void {
  const dir = join(dataDir, STAGING_DIR);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  rmSync(join(dir, MARKER), { force: true });
  syncFile(database);
  renameSync(database, join(dir, STAGED_DB));
  if (installId) writeFileAtomic(join(dir, STAGED_INSTALL_ID), `${installId}\n`);
  else rmSync(join(dir, STAGED_INSTALL_ID), { force: true });
  writeFileAtomic(join(dir, MARKER), JSON.stringify(pending));
}

/** The restore waiting for the next boot, or null. */
export function pendingRestore(dataDir: string): PendingRestore | null {
  const marker = join(dataDir, STAGING_DIR, MARKER);
  if (!existsSync(marker)) return null;
  try {
    return JSON.parse(readFileSync(marker, 'utf8')) as PendingRestore;
  } catch {
    return null;
  }
}

/**
 * Boot, before the database opens: swaps a staged database in. The WAL and
 * shared-memory files of the replaced one move out first (a stale WAL beside
 * the restored file would be replayed into it), its main file last.
 */
export function applyStagedRestore(
  dataDir: string,
  databaseFile: string,
  logger: Logger,
): PendingRestore | null {
  const pending = pendingRestore(dataDir);
  const dir = join(dataDir, STAGING_DIR);
  if (!pending && !existsSync(join(dir, MARKER))) return null;
  const staged = join(dir, STAGED_DB);
  const live = join(dataDir, databaseFile);
  if (existsSync(staged)) {
    const previous = join(dir, 'previous');
    mkdirSync(previous, { recursive: true, mode: 0o700 });
    for (const suffix of ['-wal', '-shm', '']) {
      if (existsSync(live + suffix)) renameSync(live + suffix, join(previous, databaseFile + suffix));
    }
    renameSync(staged, live);
  }
  const installId = join(dir, STAGED_INSTALL_ID);
  if (existsSync(installId)) renameSync(installId, join(dataDir, 'install-id'));
  rmSync(join(dir, MARKER), { force: true });
  syncDirectory(dataDir);
  logger
    .child({ module: 'restore' })
    .warn(
      { schema_version: pending?.schema_version ?? null, staged_epoch: pending?.staged_epoch ?? null },
      'swapped in the restored database; the replaced one is in restore/previous/',
    );
  return pending;
}

/** Boot: a restore's work dir or a backup's database copy left by a crash (both are named `*.tmp-*`). */
export function removeLeftovers(dataDir: string): number {
  if (!existsSync(dataDir)) return 0;
  const leftovers = readdirSync(dataDir).filter(
    (name) => name.startsWith('restore-work.tmp-') || name.startsWith('raincheck.db.backup.tmp-'),
  );
  for (const name of leftovers) rmSync(join(dataDir, name), { recursive: true, force: true });
  return leftovers.length;
}
