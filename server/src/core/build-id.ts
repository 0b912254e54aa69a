import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * An id of the running build, for caches that must not outlive a code change
 * (config/validated-cache.ts). It is computed at boot from the compiled tree
 * (`dist/server`): every compiled module's relative path, size and modification time
 * (`dist/server/src`), the size and modification time of the dependency mirror's
 * manifest (`dist/server/node_modules`, rewritten whenever
 * scripts/slim-server-build.mjs rebuilds the mirror: its thousands of files
 * are not listed), plus the Node version and the versions of the packages that
 * decide what a config validates to (zod, smol-toml).
 *
 * Why at boot and not a hash written by a build step: a build-id file written
 * by a separate step goes stale when the compiler is run without that step
 * (the bench, `tsc --watch`), and a stale id would let a cache survive a code
 * change. Listing and stat-ing the ~260 compiled modules takes a few
 * milliseconds and reads no content (reading and hashing them would cost
 * boot time and memory); every rebuild rewrites the files, so a
 * rebuild always changes the id (a rebuild of identical code only costs one
 * re-validation).
 *
 * Running from TypeScript sources (ts-jest, no `dist/server` above this file)
 * there is no build id: null, and callers cache nothing.
 */

/** Written by scripts/slim-server-build.mjs each time it mirrors the dependencies. */
export const MIRROR_MANIFEST = '.raincheck-mirror.json';

let computed: { id: string | null } | null = null;

export function buildId(): string | null {
  return (computed ??= { id: computeBuildId(__dirname) }).id;
}

/** The id of the compiled tree that holds `fromDir`, or null when `fromDir` is not inside one. */
export function computeBuildId(fromDir: string): string | null {
  const root = compiledRoot(fromDir);
  if (!root) return null;
  const hash = createHash('sha256');
  hash.update(`node ${process.version}\n`);
  for (const name of ['zod', 'smol-toml']) hash.update(`${name} ${packageVersion(name)}\n`);
  try {
    // Compiled modules only (.js): source maps do not run. One listing call, then a stat each.
    const files = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.js'))
      .sort();
    for (const file of files) {
      const stat = statSync(join(root, 'src', file));
      hash.update(`${file} ${stat.size} ${stat.mtimeMs}\n`);
    }
    const mirror = statSync(join(root, 'node_modules', MIRROR_MANIFEST), { throwIfNoEntry: false });
    if (mirror) hash.update(`mirror ${mirror.size} ${mirror.mtimeMs}\n`);
  } catch {
    return null;
  }
  return hash.digest('hex');
}

/** The `dist/server` directory above `dir`, if there is one. */
function compiledRoot(dir: string): string | null {
  for (let at = dir; dirname(at) !== at; at = dirname(at)) {
    if (basename(at) === 'server' && basename(dirname(at)) === 'dist') return at;
  }
  return null;
}

/** A dependency's version from its package.json, found from its resolved entry without loading it. */
function packageVersion(name: string): string {
  try {
    let dir = dirname(require.resolve(name));
    for (; dirname(dir) !== dir; dir = dirname(dir)) {
      try {
        const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
          name?: string;
          version?: string;
        };
        if (pkg.name === name) return pkg.version ?? 'unknown';
      } catch {
        // no package.json at this level
      }
    }
  } catch {
    // not resolvable
  }
  return 'unknown';
}
