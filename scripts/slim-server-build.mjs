#!/usr/bin/env node
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { minifySync } from 'rolldown/experimental';

/**
 * The server build's second step (`npm run build:server`, after tsc): V8 keeps
 * the source text of every module it loaded in the heap for as long as the
 * process runs (it compiles functions lazily from it), so the built service
 * carries less of it (issue 27, docs/architecture.md "Idle memory"):
 *
 * 1. Every compiled module under dist/server/src is minified in place, one
 *    file per module, so each `require()`, lazy ones included, loads what it
 *    did before. Names of functions and classes are kept (errors name
 *    themselves after their class), parameters too (fastify reads a hook's
 *    arity), non-ASCII characters are escaped so sources are one-byte strings,
 *    and the source map is carried through for `--enable-source-maps`.
 * 2. The production dependencies are mirrored, minified the same way, into
 *    dist/server/node_modules, which node's module resolution reaches from
 *    dist/server/src before the repository's node_modules: the same package
 *    tree, versions and files (less tests, docs and type declarations), so
 *    every package still loads once. Packages that build a native addon
 *    (better-sqlite3) stay where they are: their `.node` file belongs to the
 *    install. The mirror is rebuilt whole on every run (never stale against
 *    package-lock.json) and its manifest is part of the build id
 *    (server/src/core/build-id.ts).
 *
 * The minifier is the one the web build already uses (rolldown's, oxc).
 */

const root = fileURLToPath(new URL('..', import.meta.url));
const distServer = join(root, 'dist', 'server');
const mirrorDir = join(distServer, 'node_modules');
/** The mirror's manifest: server/src/core/build-id.ts stats it (MIRROR_MANIFEST there). */
const MIRROR_MANIFEST = '.raincheck-mirror.json';

const MINIFY = {
  compress: { target: 'node20', keepNames: { function: true, class: true } },
  mangle: { toplevel: true, keepNames: true },
  codegen: { asciiOnly: true, legalComments: 'none' },
};

/** Directories and files of a package that never load at run time. */
const SKIPPED_DIRS = new Set([
  'node_modules',
  'test',
  'tests',
  '__tests__',
  'bench',
  'benchmark',
  'benchmarks',
  'example',
  'examples',
  'docs',
  '.github',
  'prebuilds',
]);
const SKIPPED_FILE = /\.(d\.[cm]?ts|ts|map|md|markdown)$/;

function minify(file, source, isModule, inputMap) {
  const text = source.startsWith('#!') ? source.replace(/^#!.*/, '') : source;
  const result = minifySync(basename(file), text, {
    ...MINIFY,
    module: isModule,
    ...(inputMap ? { sourcemap: true, inputMap } : {}),
  });
  if (result.errors.length > 0) return null;
  return result;
}

/** Step 1: dist/server/src, each module minified in place with its source map carried through. */
function minifyCompiledModules() {
  const src = join(distServer, 'src');
  const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'));
  for (const file of files) {
    const path = join(src, file);
    const mapPath = `${path}.map`;
    const inputMap = existsSync(mapPath) ? JSON.parse(readFileSync(mapPath, 'utf8')) : undefined;
    const result = minify(path, readFileSync(path, 'utf8'), false, inputMap);
    if (!result) throw new Error(`slim-server-build: cannot minify ${relative(root, path)}`);
    if (result.map) {
      writeFileSync(mapPath, JSON.stringify({ ...result.map, file: basename(path) }));
      writeFileSync(path, `${result.code}\n//# sourceMappingURL=${basename(mapPath)}\n`);
    } else {
      writeFileSync(path, result.code);
    }
  }
  return files.length;
}

/** The production packages of package-lock.json that are installed: [lock path, version]. */
function productionPackages() {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
  return Object.entries(lock.packages)
    .filter(([path, entry]) => path.startsWith('node_modules/') && !entry.dev && !entry.link)
    .filter(([path]) => existsSync(join(root, path)))
    .map(([path, entry]) => [path, entry.version ?? null]);
}

function buildsNativeAddon(dir) {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).some(
    (file) => file.endsWith('.node') || basename(file) === 'binding.gyp',
  );
}

/** Whether a script is an ES module: `.mjs`, or a `.js` whose nearest package.json says `"type": "module"`. */
function moduleTypeOf(packageDir) {
  const byDir = new Map();
  const typeAt = (dir) => {
    if (!byDir.has(dir)) {
      const manifest = join(dir, 'package.json');
      if (existsSync(manifest)) byDir.set(dir, JSON.parse(readFileSync(manifest, 'utf8')).type ?? 'commonjs');
      else byDir.set(dir, dir === packageDir ? 'commonjs' : typeAt(dirname(dir)));
    }
    return byDir.get(dir);
  };
  return (file) =>
    file.endsWith('.mjs') ? true : file.endsWith('.cjs') ? false : typeAt(dirname(file)) === 'module';
}

/** Copies one package (without its nested node_modules) into the mirror, scripts minified. */
function mirrorPackage(from, to) {
  const isModule = moduleTypeOf(from);
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) walk(path);
        continue;
      }
      if (SKIPPED_FILE.test(entry.name)) continue;
      const target = join(to, relative(from, path));
      mkdirSync(dirname(target), { recursive: true });
      const script = /\.[cm]?js$/.test(entry.name);
      const result = script ? minify(path, readFileSync(path, 'utf8'), isModule(path)) : null;
      if (result) writeFileSync(target, result.code);
      else copyFileSync(path, target); // not a script, or one the minifier does not parse: as shipped
    }
  };
  walk(from);
}

/** Step 2: the production dependencies, minified, in dist/server/node_modules. */
function mirrorDependencies() {
  rmSync(mirrorDir, { recursive: true, force: true });
  const mirrored = {};
  const leftOut = [];
  for (const [path, version] of productionPackages()) {
    const from = join(root, path);
    if (buildsNativeAddon(from)) {
      leftOut.push(path);
      continue;
    }
    mirrorPackage(from, join(mirrorDir, relative(join(root, 'node_modules'), from)));
    mirrored[path] = version;
  }
  mkdirSync(mirrorDir, { recursive: true });
  writeFileSync(join(mirrorDir, MIRROR_MANIFEST), `${JSON.stringify({ mirrored, leftOut }, null, 1)}\n`);
  return { mirrored: Object.keys(mirrored).length, leftOut };
}

const modules = minifyCompiledModules();
const { mirrored, leftOut } = mirrorDependencies();
console.log(
  `slim-server-build: ${modules} compiled modules minified; ${mirrored} packages mirrored into dist/server/node_modules` +
    (leftOut.length > 0 ? ` (left in node_modules, native: ${leftOut.join(', ')})` : ''),
);
