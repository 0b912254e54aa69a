import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Writes a file so that a crash at any point leaves either the old or the new
 * content, never a torn one: write a temp file beside it, fsync it, rename it
 * over the target, fsync the directory. Hand-written (not write-file-atomic) so
 * the crash test can stop it between every step. A write the file system
 * refuses (ENOSPC, EDQUOT) removes its temp file before the error goes up.
 */

export type AtomicWriteStep = 'open' | 'write' | 'fsync' | 'close' | 'rename' | 'fsync_dir';

/** Test hook: called before each step; throwing simulates a crash there. */
export type StepHook = (step: AtomicWriteStep) => void;

const TEMP_MARK = '.tmp-';

export function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  beforeStep: StepHook = () => {},
): void {
  const temp = join(dirname(path), `${basename(path)}${TEMP_MARK}${process.pid}-${Date.now()}`);
  beforeStep('open');
  const fd = openSync(temp, 'w', 0o600);
  // A failing file system call (a full disk) removes the temp file; a crash (the hook
  // throwing, or the process dying) leaves it for the next boot's sweep.
  const orRemove = <T>(operation: () => T): T => {
    try {
      return operation();
    } catch (err) {
      removeQuietly(temp);
      throw err;
    }
  };
  try {
    beforeStep('write');
    orRemove(() => (typeof data === 'string' ? writeAll(fd, Buffer.from(data, 'utf8')) : writeAll(fd, data)));
    beforeStep('fsync');
    orRemove(() => fsyncSync(fd));
    beforeStep('close');
  } finally {
    closeSync(fd);
  }
  beforeStep('rename');
  orRemove(() => renameSync(temp, path));
  beforeStep('fsync_dir');
  syncDirectory(dirname(path));
}

function removeQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // already gone, or the directory is unreadable: the boot sweep tries again
  }
}

/** writeSync may write less than asked (a disk filling up): write until all of it is, or it throws. */
function writeAll(fd: number, data: Uint8Array): void {
  let offset = 0;
  while (offset < data.length) offset += writeSync(fd, data, offset, data.length - offset);
}

/**
 * Makes the rename durable. By now the new content is what every reader sees,
 * so a failure here (some file systems refuse a directory fsync) does not undo
 * the write; it only weakens durability against power loss.
 */
export function syncDirectory(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // see above
  }
}

/** Flushes an already written file to disk (opened r+: some systems refuse fsync on read-only fds). */
export function syncFile(path: string): void {
  const fd = openSync(path, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Removes temp files an interrupted write left beside `path`; returns how many. */
export function removeStaleTempFiles(path: string): number {
  const prefix = `${basename(path)}${TEMP_MARK}`;
  return removeMatching(dirname(path), (name) => name.startsWith(prefix));
}

/** Removes every temp file an interrupted write left in `dir`; returns how many. */
export function removeStaleTempFilesIn(dir: string): number {
  return removeMatching(dir, (name) => name.includes(TEMP_MARK));
}

function removeMatching(dir: string, matches: (name: string) => boolean): number {
  let removed = 0;
  for (const name of safeReaddir(dir)) {
    if (!matches(name)) continue;
    try {
      unlinkSync(join(dir, name));
      removed += 1;
    } catch {
      // not a file of ours (a directory), or already gone: boot goes on
    }
  }
  return removed;
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
