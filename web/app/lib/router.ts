import { useEffect, useState } from 'preact/hooks';
import { appPath, appUrl } from './base';

/**
 * The app's pages as real paths under the app root (the service serves the
 * same shell for each; Web Push deep links open `/zones/<slug>`). Links are
 * relative to the root; navigation uses the History API.
 */

export type Route =
  | { page: 'dashboard' }
  | { page: 'zones' }
  | { page: 'zone'; slug: string }
  | { page: 'history' }
  | { page: 'settings'; section: string | null }
  | { page: 'login' }
  | { page: 'setup' }
  | { page: 'not_found'; path: string };

export function parseRoute(path: string): Route {
  const [first = '', second, ...rest] = path.split('/').map(decodeURIComponent);
  if (rest.length > 0) return { page: 'not_found', path };
  if (first === '' && second === undefined) return { page: 'dashboard' };
  if (first === 'zones') return second ? { page: 'zone', slug: second } : { page: 'zones' };
  if (first === 'history' && second === undefined) return { page: 'history' };
  if (first === 'settings') return { page: 'settings', section: second ?? null };
  if (first === 'login' && second === undefined) return { page: 'login' };
  if (first === 'setup') return { page: 'setup' };
  return { page: 'not_found', path };
}

const listeners = new Set<() => void>();

/** Goes to a page (path relative to the app root, e.g. `zones/front_lawn`). */
export function navigate(path: string, replace = false): void {
  const url = appUrl(path);
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  listeners.forEach((l) => l());
  window.scrollTo(0, 0);
}

/** The current route, re-rendering on navigation and on the back button. */
export function useRoute(): Route {
  const [path, setPath] = useState(appPath);
  useEffect(() => {
    const update = () => setPath(appPath());
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return parseRoute(path);
}

/** Click handler for in-app links: plain clicks navigate without a reload. */
export function interceptLinks(root: HTMLElement): void {
  root.addEventListener('click', (event) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey)
      return;
    const link = (event.target as Element).closest?.('a[data-route]');
    if (!(link instanceof HTMLAnchorElement)) return;
    event.preventDefault();
    navigate(link.getAttribute('data-route') ?? '');
  });
}
