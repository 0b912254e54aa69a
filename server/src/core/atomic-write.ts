import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Writes a file so that a crash at any point leaves either the old or the new
 * content, never a torn one: write a temp file beside it, fsync it, rename it
 * over the target, fsync the directory. Hand-written (not write-file-atomic) so
 * the crash test can stop it between every step.
 */

export type AtomicWriteStep = 'open' | 'write' | 'fsync' | 'close' | 'rename' | 'fsync_dir';

/** Test hook: called before each step; throwing simulates a crash there. */
export type StepHook = (step: AtomicWriteStep) => void;

const TEMP_MARK = '.tmp-';

export function writeFileAtomic(path: string, data: string, beforeStep: StepHook = () => {}): void {
  const temp = join(dirname(path), `${basename(path)}${TEMP_MARK}${process.pid}-${Date.now()}`);
  beforeStep('open');
  const fd = openSync(temp, 'w', 0o600);
  try {
    beforeStep('write');
    writeSync(fd, data);
    beforeStep('fsync');
    fsyncSync(fd);
    beforeStep('close');
  } finally {
    closeSync(fd);
  }
  beforeStep('rename');
  renameSync(temp, path);
  beforeStep('fsync_dir');
  syncDirectory(dirname(path));
}

function syncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Removes temp files an interrupted write left beside `path`; returns how many. */
export function removeStaleTempFiles(path: string): number {
  const prefix = `${basename(path)}${TEMP_MARK}`;
  let removed = 0;
  for (const name of safeReaddir(dirname(path))) {
    if (!name.startsWith(prefix)) continue;
    unlinkSync(join(dirname(path), name));
    removed += 1;
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
