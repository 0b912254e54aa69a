import { API_PREFIX, LEGACY_API_PREFIX } from '../core/version';

/**
 * Spec 5.5: the paths that need no credentials when auth is required.
 * Everything else, `/site/photos/*` included, does.
 */

const STATIC_FILE = /^\/[^/]+\.(?:svg|png|ico|webmanifest|woff2|woff|css|js|map|txt)$/;
const PUBLIC_API = ['/info', '/auth/status', '/auth/login', '/auth/setup', '/health'];
const SETUP_API = ['/wizard'];

export function isPublicPath(path: string, setupComplete: boolean): boolean {
  if (path.startsWith('/pkg/') || path === '/sw.js' || STATIC_FILE.test(path)) return true;
  if (path === '/login' || path === '/metrics' || path.startsWith('/docs/') || path === '/docs') return true;
  if (path.startsWith('/ingest/')) return true;
  if (!setupComplete && (path === '/setup' || path.startsWith('/setup/'))) return true;
  const api = apiPath(path);
  if (api === null) return false;
  if (PUBLIC_API.includes(api) || api.startsWith('/ingest/')) return true;
  return !setupComplete && SETUP_API.some((p) => api === p || api.startsWith(`${p}/`));
}

/** The path below `/api/v1` or the legacy `/api`, or null for a non-API path. */
export function apiPath(path: string): string | null {
  for (const prefix of [API_PREFIX, LEGACY_API_PREFIX]) {
    if (path.startsWith(`${prefix}/`)) return path.slice(prefix.length);
  }
  return null;
}
