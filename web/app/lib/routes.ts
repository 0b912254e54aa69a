/**
 * The app's pages as real paths under the app root (the service serves the
 * same shell for each; Web Push deep links open `/zones/<slug>`). Pure, so
 * tests and the sign-in return path can use it without the DOM.
 */

export type Route =
  | { page: 'dashboard' }
  | { page: 'zones' }
  | { page: 'zone'; slug: string }
  | { page: 'schedules' }
  | { page: 'history' }
  | { page: 'tuning' }
  | { page: 'devices' }
  | { page: 'settings'; section: string | null }
  | { page: 'login' }
  | { page: 'setup' }
  | { page: 'not_found'; path: string };

export function parseRoute(path: string): Route {
  const [first = '', second, ...rest] = path.split('/').map(decodeURIComponent);
  if (rest.length > 0) return { page: 'not_found', path };
  if (first === '' && second === undefined) return { page: 'dashboard' };
  if (first === 'zones') return second ? { page: 'zone', slug: second } : { page: 'zones' };
  if (first === 'schedules' && second === undefined) return { page: 'schedules' };
  if (first === 'history' && second === undefined) return { page: 'history' };
  if (first === 'tuning' && second === undefined) return { page: 'tuning' };
  if (first === 'devices' && second === undefined) return { page: 'devices' };
  if (first === 'settings') return { page: 'settings', section: second ?? null };
  if (first === 'login' && second === undefined) return { page: 'login' };
  if (first === 'setup') return { page: 'setup' };
  return { page: 'not_found', path };
}
