import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The built web app (Vite, `npm run build` -> dist/web): one HTML shell served
 * for every page path, and its hashed assets under `pkg/`. Nothing of the
 * bundler runs here; this only finds and adapts the files.
 */

/** Page paths that answer with the shell (the app routes them itself). */
export const APP_PAGES = [
  '/',
  '/login',
  '/setup',
  '/setup/:step',
  '/zones',
  '/zones/:slug',
  '/schedules',
  '/history',
  '/tuning',
  '/devices',
  '/settings',
  '/settings/:section',
] as const;

// From dist/server/src/web (built) and from server/src/web (ts-jest) alike.
const BUILD_CANDIDATES = ['../../../web', '../../../dist/web'];

/**
 * The directory holding index.html and pkg/, or null when the app was not
 * built. `RAINCHECK_WEB_DIR` points at another build (front-end development).
 */
export function webBuildDir(override = process.env.RAINCHECK_WEB_DIR): string | null {
  if (override) return existsSync(join(override, 'index.html')) ? override : null;
  for (const up of BUILD_CANDIDATES) {
    const dir = join(__dirname, up);
    if (existsSync(join(dir, 'index.html'))) return dir;
  }
  return null;
}

/**
 * The shell's `<base href>` for a page path: the app root relative to the
 * page (`./` on /login, `../` on /zones/front_lawn). Relative, so HA's ingress
 * prefix in front of the path is kept without the service knowing it. The
 * query string does not count; a trailing slash does (the browser resolves
 * /zones/ as a directory).
 */
export function relativeBase(pagePath: string): string {
  const path = pagePath.split(/[?#]/, 1)[0] ?? '';
  const depth = path.replace(/^\/+/, '').split('/').length - 1;
  return depth <= 0 ? './' : '../'.repeat(depth);
}

/** The shell's `<base href="...">` tag as the build writes it (the service worker rewrites it too). */
export const BASE_TAG = /<base href="[^"]*"\s*\/?>/;

/** The shell for a page path: its `<base href>` rewritten, or added first in `<head>` when the build has none. */
export function shellFor(template: string, pagePath: string): string {
  const tag = `<base href="${relativeBase(pagePath)}" />`;
  if (BASE_TAG.test(template)) return template.replace(BASE_TAG, () => tag);
  return template.replace(/<head(?:\s[^>]*)?>/i, (head) => `${head}${tag}`);
}

/** Asset names the bundler writes: hashed, single segment, no traversal. */
const ASSET_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]*\.(js|css|map|woff2|svg|png)$/;
const TYPES: Record<string, string> = {
  js: 'application/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  map: 'application/json; charset=utf-8',
  woff2: 'font/woff2',
  svg: 'image/svg+xml',
  png: 'image/png',
};

/** The content type of a bundle asset name, or null for a name we never serve. */
export function assetType(name: string): string | null {
  const match = ASSET_NAME.exec(name);
  return match ? (TYPES[match[1]!] ?? null) : null;
}
