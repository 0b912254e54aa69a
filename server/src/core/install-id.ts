import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './atomic-write';

/**
 * The stable per-install id (/info `uuid`): generated once, kept in the data
 * folder so it survives upgrades and a lost database. Null if the folder is
 * not writable: an id that changes every boot would be worse than none.
 */
export function loadInstallId(dataDir: string): string | null {
  const path = join(dataDir, 'install-id');
  try {
    if (existsSync(path)) {
      const id = readFileSync(path, 'utf8').trim();
      if (/^[0-9a-f-]{36}$/.test(id)) return id;
    }
    const id = randomUUID();
    writeFileAtomic(path, `${id}\n`);
    return id;
  } catch {
    return null;
  }
}
