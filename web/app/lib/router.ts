import { useEffect, useState } from 'preact/hooks';
import { appPath, appUrl } from './base';
import { parseRoute, type Route } from './routes';

/**
 * The app's pages as real paths under the app root (the service serves the
 * same shell for each; Web Push deep links open `/zones/<slug>`). Links are
 * relative to the root; navigation uses the History API.
 */

export { parseRoute, type Route } from './routes';

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
