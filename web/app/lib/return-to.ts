import { parseRoute } from './routes';

/**
 * The page to open after signing in (server/src/auth/return-to.ts sets it on
 * the redirect to /login; the app sets it when it sends a signed-out user
 * there). Only the app's own zone, history, tuning and settings pages are accepted,
 * so the value can never lead off the app.
 */

export const RETURN_TO_COOKIE = 'raincheck_return_to';
const MAX_AGE_S = 600;
/** The cookie that forgets the remembered page. */
export const EXPIRED_RETURN_TO = `${RETURN_TO_COOKIE}=; Path=/; Max-Age=0; SameSite=Lax`;
const RETURNABLE_PAGES = new Set(['zones', 'zone', 'history', 'tuning', 'settings', 'devices']);

/** A safe app-relative page path from a cookie header string, or '' (the dashboard). */
export function returnPathFrom(cookieHeader: string): string {
  const pair = cookieHeader
    .split(';')
    .map((part) => part.trim())
    .find((part) => part.startsWith(`${RETURN_TO_COOKIE}=`));
  if (!pair) return '';
  let page: string;
  try {
    page = decodeURIComponent(pair.slice(RETURN_TO_COOKIE.length + 1));
  } catch {
    return '';
  }
  if (!/^[A-Za-z0-9_/-]+$/.test(page) || page.startsWith('/') || page.includes('//')) return '';
  return RETURNABLE_PAGES.has(parseRoute(page).page) ? page : '';
}

/** The cookie that remembers `page` (an app-relative path) for the next sign-in. */
export function returnToCookie(page: string): string {
  return `${RETURN_TO_COOKIE}=${encodeURIComponent(page)}; Path=/; Max-Age=${MAX_AGE_S}; SameSite=Lax`;
}
