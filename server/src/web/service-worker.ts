import { CONTENT_SECURITY_POLICY } from '../http/security-headers';
import { BASE_TAG } from './app-shell';
import { WEB_ICONS } from './assets';

/**
 * GET /sw.js (spec 4.1, public): the service worker, as JavaScript text.
 *
 * - install: caches the app shell (the page at the scope root, the manifest,
 *   the icons) one file at a time, then the bundle files that page references
 *   (`pkg/...` in a src or href); a file that fails or redirects (to /login)
 *   is skipped, so installing never fails on a missing asset.
 * - `pkg/` (hashed, immutable bundle files): cache first into the shell cache.
 * - navigation: network first; offline, the cached shell, else a small
 *   built-in offline page. The shell was fetched at the scope root, so on a
 *   deeper page (zones/front_lawn) its `<base href>` is rewritten to that
 *   page's depth (`../`), as the service does for each page path.
 * - API: never cached and never answered from a cache, with one exception:
 *   the last irrigation snapshot (`api/v1/irrigation/snapshot`), network first
 *   and kept for offline display (an offline answer carries
 *   `X-Raincheck-Offline: 1`).
 * - Cache names carry the service version; activation deletes older ones.
 * - push (Web Push, spec 6.2): shows the notice's title and body with its tag
 *   (a newer notice with the same tag replaces it) and keeps its deep link;
 *   a click focuses a window already on that page, else sends an open app
 *   window there, else opens one. The link is a path from the app root
 *   (`/zones/front_lawn`) resolved under the scope, so it lands under HA's
 *   ingress prefix too; anything else opens the app root.
 *
 * Every path is relative to the worker's scope (the directory it is served
 * from), so it works at the origin root and under HA's ingress prefix alike.
 */

export const SW_CONTENT_TYPE = 'application/javascript; charset=utf-8';
export const SNAPSHOT_PATH = 'api/v1/irrigation/snapshot';

const OFFLINE_PAGE = [
  '<!doctype html>',
  '<html lang="en"><head><meta charset="utf-8">',
  '<meta name="viewport" content="width=device-width, initial-scale=1">',
  '<title>Raincheck (offline)</title></head>',
  '<body><h1>Raincheck is offline</h1>',
  '<p>The service cannot be reached right now. Try again once your network or Home Assistant is back.</p>',
  '<p><a href=".">Try again</a></p></body></html>',
].join('');

// Written as regular expressions here (checked when this module loads), sent as their source text.
const BUNDLE_REF = /\b(?:src|href)\s*=\s*["'](?:\.\/)?(pkg\/[A-Za-z0-9._-]+)["']/;
/** A notice's deep link: a path from the app root, never another origin (`//host`) or a way up (`..`). */
const DEEP_LINK = /^\/(?!\/)(?!.*\.\.)[A-Za-z0-9_\-./]*$/;
const NOTICE_ICON = 'icon-192.png';

export function serviceWorkerSource(version: string): string {
  const shell = ['.', 'manifest.webmanifest', ...WEB_ICONS.map((icon) => icon.path)];
  return `'use strict';
// Raincheck service worker ${version}
const VERSION = ${JSON.stringify(version)};
const CACHE_PREFIX = 'raincheck-';
const SHELL_CACHE = CACHE_PREFIX + 'shell-' + VERSION;
const DATA_CACHE = CACHE_PREFIX + 'data-' + VERSION;
// The app shell, relative to the scope.
const SHELL = ${JSON.stringify(shell)};
// The one API response kept, for offline display.
const SNAPSHOT = ${JSON.stringify(SNAPSHOT_PATH)};
// Hashed bundle files: immutable, so a cached copy is always right.
const BUNDLE_PREFIX = 'pkg/';
// A bundle file the shell page loads: src="./pkg/index-abc.js", href="pkg/index-def.css".
const BUNDLE_REF = new RegExp(${JSON.stringify(BUNDLE_REF.source)}, 'g');
const BASE_TAG = new RegExp(${JSON.stringify(BASE_TAG.source)});
const OFFLINE_PAGE = ${JSON.stringify(OFFLINE_PAGE)};
const DEEP_LINK = new RegExp(${JSON.stringify(DEEP_LINK.source)});
const NOTICE_ICON = ${JSON.stringify(NOTICE_ICON)};
const OFFLINE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': ${JSON.stringify(CONTENT_SECURITY_POLICY)},
  'X-Content-Type-Options': 'nosniff',
};

function scoped(path) {
  return new URL(path, self.registration.scope).href;
}

// The path below the scope, or null for another origin or a path outside the scope.
function pathInScope(url) {
  const scope = new URL(self.registration.scope);
  if (url.origin !== scope.origin || !url.pathname.startsWith(scope.pathname)) return null;
  return url.pathname.slice(scope.pathname.length);
}

function isApi(path) {
  return path === 'api' || path.startsWith('api/');
}

// Only complete same-origin answers that were not redirected (to /login) are kept.
function cacheable(response) {
  return Boolean(response) && response.ok && !response.redirected;
}

self.addEventListener('install', (event) => {
  event.waitUntil(precacheShell().then(() => self.skipWaiting()));
});

async function precacheShell() {
  const cache = await caches.open(SHELL_CACHE);
  await Promise.all(SHELL.map((path) => precache(cache, path)));
  const page = await cache.match(scoped('.'));
  const bundle = page ? bundleFiles(await page.text()) : [];
  await Promise.all(bundle.map((path) => precache(cache, path)));
}

async function precache(cache, path) {
  try {
    const request = new Request(scoped(path), { cache: 'reload', credentials: 'same-origin' });
    const response = await fetch(request);
    if (cacheable(response)) await cache.put(scoped(path), response);
  } catch (err) {
    // Offline or absent: the shell is best effort.
  }
}

// The pkg/ paths the shell page references, each once.
function bundleFiles(html) {
  const found = new Set();
  for (const match of html.matchAll(BUNDLE_REF)) found.add(match[1]);
  return [...found];
}

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) =>
        Promise.all(
          keys
            .filter((key) => key.startsWith(CACHE_PREFIX) && key !== SHELL_CACHE && key !== DATA_CACHE)
            .map((key) => caches.delete(key)),
        ),
      )
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const path = pathInScope(new URL(request.url));
  if (path === null) return;
  if (path === SNAPSHOT) {
    event.respondWith(snapshot(request));
    return;
  }
  // Every other API call goes to the network untouched: nothing is cached.
  if (isApi(path)) return;
  if (request.mode === 'navigate') {
    event.respondWith(navigate(request, path));
    return;
  }
  if (SHELL.includes(path) || path.startsWith(BUNDLE_PREFIX)) event.respondWith(cacheFirst(request, path));
});

async function snapshot(request) {
  const cache = await caches.open(DATA_CACHE);
  try {
    const response = await fetch(request);
    if (cacheable(response)) await cache.put(scoped(SNAPSHOT), response.clone());
    return response;
  } catch (err) {
    const cached = await cache.match(scoped(SNAPSHOT));
    if (!cached) throw err;
    const headers = new Headers(cached.headers);
    headers.set('X-Raincheck-Offline', '1');
    return new Response(cached.body, { status: cached.status, statusText: cached.statusText, headers });
  }
}

async function navigate(request, path) {
  try {
    const response = await fetch(request);
    if (path === '' && cacheable(response)) {
      const cache = await caches.open(SHELL_CACHE);
      await cache.put(scoped('.'), response.clone());
    }
    return response;
  } catch (err) {
    const cache = await caches.open(SHELL_CACHE);
    const shell = await cache.match(scoped('.'));
    if (!shell) return new Response(OFFLINE_PAGE, { status: 503, headers: OFFLINE_HEADERS });
    return path.includes('/') ? shellAt(shell, path) : shell;
  }
}

// The root shell for a deeper page: its <base href> points back up to the scope.
async function shellAt(shell, path) {
  const base = '../'.repeat(path.split('/').length - 1);
  const html = (await shell.text()).replace(BASE_TAG, () => '<base href="' + base + '" />');
  const headers = new Headers(shell.headers);
  headers.delete('content-length');
  return new Response(html, { status: shell.status, statusText: shell.statusText, headers });
}

async function cacheFirst(request, path) {
  const cache = await caches.open(SHELL_CACHE);
  const cached = await cache.match(scoped(path));
  if (cached) return cached;
  const response = await fetch(request);
  if (cacheable(response)) await cache.put(scoped(path), response.clone());
  return response;
}

// Web Push: each notice shown with its tag and deep link.
self.addEventListener('push', (event) => {
  event.waitUntil(showNotice(readNotice(event.data)));
});

function readNotice(data) {
  if (!data) return {};
  try {
    const notice = data.json();
    return notice && typeof notice === 'object' ? notice : {};
  } catch (err) {
    return { body: data.text() };
  }
}

function showNotice(notice) {
  const text = (value) => (typeof value === 'string' ? value : '');
  const tag = text(notice.tag);
  return self.registration.showNotification(text(notice.title) || 'Raincheck', {
    body: text(notice.body),
    ...(tag ? { tag, renotify: true } : {}),
    data: { url: appLink(notice.url) },
    icon: scoped(NOTICE_ICON),
    requireInteraction: notice.severity === 'critical',
  });
}

// The deep link as an absolute URL under the scope (the app root for anything unexpected).
function appLink(link) {
  return scoped(typeof link === 'string' && DEEP_LINK.test(link) ? link.slice(1) || '.' : '.');
}

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const data = event.notification.data || {};
  const target = typeof data.url === 'string' && pathInScope(new URL(data.url)) !== null ? data.url : scoped('.');
  event.waitUntil(openWindow(target));
});

async function openWindow(target) {
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const same = windows.find((w) => w.url === target);
  if (same) return same.focus();
  const app = windows.find((w) => pathInScope(new URL(w.url)) !== null && typeof w.navigate === 'function');
  if (app) {
    const moved = await app.navigate(target).catch(() => null);
    if (moved) return moved.focus();
  }
  return self.clients.openWindow(target);
}
`;
}
