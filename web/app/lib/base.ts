/**
 * The app's root URL. The service writes `<base href>` relative to the page
 * (`./` on /, `../` on /zones/x) and HA's ingress adds its own prefix in front,
 * so the root is read once at start and pinned as an absolute base: later
 * history.pushState calls cannot shift what relative URLs resolve against.
 */

let root: URL | null = null;

export function appRoot(): URL {
  if (root) return root;
  root = new URL('./', document.baseURI);
  const base = document.querySelector('base') ?? document.head.appendChild(document.createElement('base'));
  base.setAttribute('href', root.href);
  return root;
}

/** An absolute URL for a path relative to the app root (`api/v1/info`, `zones/front_lawn`). */
export function appUrl(relative: string): string {
  return new URL(relative.replace(/^\/+/, ''), appRoot()).href;
}

/** The page path relative to the app root, without leading or trailing slash (`zones/front_lawn`). */
export function appPath(): string {
  const rootPath = appRoot().pathname;
  const path = location.pathname.startsWith(rootPath) ? location.pathname.slice(rootPath.length) : '';
  return path.replace(/^\/+|\/+$/g, '');
}
