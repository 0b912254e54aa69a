import { serialize } from 'cookie';

/**
 * Where to go back after signing in. Spec 5.4 sends an anonymous HTML GET to
 * exactly `/login`, so the page asked for travels beside the redirect in a
 * short-lived cookie instead of the Location: a notification's deep link
 * (`/zones/<slug>`) opens that zone once the user has signed in. The web app
 * reads it (not HttpOnly), validates it against its own routes and clears it.
 * The value is an app-relative page path, never a URL.
 */

export const RETURN_TO_COOKIE = 'raincheck_return_to';
const RETURN_TO_MAX_AGE_S = 600;

/** App pages worth returning to (the dashboard is where sign-in lands anyway). */
const RETURNABLE = /^\/(zones(\/[A-Za-z0-9_-]+)?|history|tuning|settings(\/[A-Za-z0-9_-]+)?)\/?$/;

/** The app-relative page to return to for a request path, or null. */
export function returnPathOf(path: string): string | null {
  return RETURNABLE.test(path) ? path.replace(/^\/+|\/+$/g, '') : null;
}

export function returnToCookie(page: string, secure: boolean): string {
  return serialize(RETURN_TO_COOKIE, page, {
    path: '/',
    maxAge: RETURN_TO_MAX_AGE_S,
    sameSite: 'lax',
    secure,
  });
}
