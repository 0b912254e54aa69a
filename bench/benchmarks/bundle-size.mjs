import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { constants, gzipSync } from 'node:zlib';
import { REPO_ROOT } from '../lib/harness.mjs';

/**
 * The web app's bundle as the build wrote it (dist/web, or RAINCHECK_WEB_DIR
 * as the service reads it): Vite's .vite/manifest.json and the files in pkg/.
 * Sizes are gzip at level 9 of the plain files, measured here (the .gz files
 * beside them are not trusted to be current); kB = 1000 bytes.
 *
 * - bundle-first-load-js: what the first page load fetches, the entry chunk
 *   (isEntry) and its static `imports`, recursively; `dynamicImports` (the
 *   lazy pages) are left out.
 * - bundle-first-load-css: the CSS of those same chunks.
 * - bundle-total-js: every .js file in pkg/. Shown beside it, for reference:
 *   the largest lazily imported chunk (isDynamicEntry: a page, or a component
 *   such as the chart), and the one whose loading costs most, its chunk plus
 *   the static imports the first load lacks.
 */

const KB = 1000;
const kb = (bytes) => `${(bytes / KB).toFixed(1)} kB`;

function webDir() {
  return process.env.RAINCHECK_WEB_DIR || join(REPO_ROOT, 'dist/web');
}

function gzipBytes(dir, file) {
  return gzipSync(readFileSync(join(dir, file)), { level: constants.Z_BEST_COMPRESSION }).length;
}

/** Manifest keys of the chunks `roots` load, with their static imports, recursively. */
function staticClosure(manifest, roots) {
  const seen = new Set();
  const visit = (key) => {
    if (seen.has(key) || !manifest[key]) return;
    seen.add(key);
    for (const imported of manifest[key].imports ?? []) visit(imported);
  };
  for (const key of roots) visit(key);
  return seen;
}

const jsFiles = (manifest, keys) =>
  [...new Set([...keys].map((key) => manifest[key].file))].filter((file) => file.endsWith('.js'));

/** Each dynamic import: its own chunk, and with the static imports the first load does not bring. */
function lazyChunks(manifest, firstKeys, gz) {
  return Object.entries(manifest)
    .filter(([, chunk]) => chunk.isDynamicEntry && chunk.file.endsWith('.js'))
    .map(([key, chunk]) => {
      const extra = [...staticClosure(manifest, [key])].filter((k) => !firstKeys.has(k));
      const withImports = jsFiles(manifest, extra).reduce((total, file) => total + gz(file), 0);
      return { file: chunk.file, bytes: gz(chunk.file), withImports };
    });
}

function measureBundle() {
  const dir = webDir();
  const manifestFile = join(dir, '.vite/manifest.json');
  if (!existsSync(manifestFile)) {
    throw new Error(`no ${manifestFile}: build the web app first (npm run build)`);
  }
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
  const size = new Map();
  const gz = (file) => {
    if (!size.has(file)) size.set(file, gzipBytes(dir, file));
    return size.get(file);
  };
  const entries = Object.keys(manifest).filter((key) => manifest[key].isEntry);
  if (entries.length === 0) throw new Error('the manifest has no entry chunk (isEntry)');
  const firstKeys = staticClosure(manifest, entries);
  const firstJs = jsFiles(manifest, firstKeys);
  const firstCss = [...new Set([...firstKeys].flatMap((key) => manifest[key].css ?? []))];
  const allJs = readdirSync(join(dir, 'pkg'))
    .filter((name) => name.endsWith('.js'))
    .map((name) => `pkg/${name}`);
  const pages = lazyChunks(manifest, firstKeys, gz);
  const sum = (files) => files.reduce((total, file) => total + gz(file), 0);
  return {
    dir,
    firstJs: { files: firstJs, bytes: sum(firstJs) },
    firstCss: { files: firstCss, bytes: sum(firstCss) },
    allJs: { files: allJs, bytes: sum(allJs) },
    largestPage: [...pages].sort((a, b) => b.bytes - a.bytes)[0] ?? null,
    heaviestPage: [...pages].sort((a, b) => b.withImports - a.withImports)[0] ?? null,
    gz,
  };
}

let measured = null;
/** Measured once for the three benchmarks. */
function bundle() {
  measured ??= measureBundle();
  return measured;
}

function reportFiles(report, label, files, gz) {
  for (const file of files) report(`  ${label} ${file}`, kb(gz(file)));
}

const firstLoadJs = {
  name: 'bundle-first-load-js',
  title: 'First-load JS: the entry chunk and its static imports, gzip -9 (kB = 1000 bytes)',
  budget: { metric: 'first-load JS gzipped', better: 'lower', limit: 150, unit: 'kB' },

  async run(report) {
    const b = bundle();
    report('build', b.dir);
    reportFiles(report, 'js', b.firstJs.files, b.gz);
    report('first-load JS', `${kb(b.firstJs.bytes)} in ${b.firstJs.files.length} file(s)`);
    const value = b.firstJs.bytes / KB;
    return { value, display: `${value.toFixed(1)} kB` };
  },
};

const firstLoadCss = {
  name: 'bundle-first-load-css',
  title: 'First-load CSS: the stylesheets of the first-load chunks, gzip -9 (kB = 1000 bytes)',
  budget: { metric: 'first-load CSS gzipped', better: 'lower', limit: 30, unit: 'kB' },

  async run(report) {
    const b = bundle();
    reportFiles(report, 'css', b.firstCss.files, b.gz);
    report('first-load CSS', `${kb(b.firstCss.bytes)} in ${b.firstCss.files.length} file(s)`);
    const value = b.firstCss.bytes / KB;
    return { value, display: `${value.toFixed(1)} kB` };
  },
};

const totalJs = {
  name: 'bundle-total-js',
  title: 'All JS chunks in pkg/, gzip -9 (kB = 1000 bytes); the lazy chunks for reference',
  budget: { metric: 'total JS gzipped', better: 'lower', limit: 400, unit: 'kB' },

  async run(report) {
    const b = bundle();
    report('total JS', `${kb(b.allJs.bytes)} in ${b.allJs.files.length} chunk(s)`);
    const page = b.largestPage;
    report('largest lazy chunk (informational)', page ? `${page.file} ${kb(page.bytes)}` : 'none');
    const heaviest = b.heaviestPage;
    report(
      'heaviest lazy chunk with its imports (informational)',
      heaviest ? `${heaviest.file} ${kb(heaviest.withImports)}` : 'none',
    );
    const value = b.allJs.bytes / KB;
    return { value, display: `${value.toFixed(1)} kB` };
  },
};

export default [firstLoadJs, firstLoadCss, totalJs];
