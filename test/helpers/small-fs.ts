import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * A real, small file system for full-disk tests: a tmpfs of a few megabytes
 * mounted on a fresh temp directory (the test runs as root, as CI does). When
 * it is full, every write on it fails the way a full disk fails: ENOSPC from
 * the kernel, SQLITE_FULL from SQLite. `fill()` takes every free block with a
 * ballast file and `free()` gives them back.
 */

export interface SmallFileSystem {
  dir: string;
  fill(): void;
  free(): void;
  unmount(): void;
}

const BALLAST = '.ballast';

export function mountSmallFileSystem(megabytes = 16): SmallFileSystem {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'raincheck-full-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m,mode=0700`, 'tmpfs', dir], {
      stdio: 'pipe',
    });
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    const why = (err as { stderr?: Buffer }).stderr?.toString().trim() ?? String(err);
    throw new Error(
      `full-disk tests mount a small tmpfs and need root with mount rights (CAP_SYS_ADMIN): ${why}`,
      { cause: err },
    );
  }
  const ballast = path.join(dir, BALLAST);
  return {
    dir,
    fill: () => fillUp(ballast),
    free: () => fs.rmSync(ballast, { force: true }),
    unmount: () => {
      execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Appends to the ballast until the file system refuses a single byte more. */
function fillUp(file: string): void {
  const fd = fs.openSync(file, 'a');
  try {
    for (let chunk = 1024 * 1024; chunk >= 1; chunk = Math.floor(chunk / 2)) {
      const bytes = Buffer.alloc(chunk);
      for (;;) {
        try {
          fs.writeSync(fd, bytes);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw err;
        }
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}
