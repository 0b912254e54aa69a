import type { DomainRoutes, HttpDeps } from '../deps';
import { docsRoutes } from './docs';
import { pageRoutes } from './pages';
import { siteRoutes } from './site';
import { pwaRoutes } from './web';
import { zonesRoutes } from './zones';

/**
 * The web app's routes (one entry in main.ts): its pages and bundle
 * (pages.ts), zone photos (zones.ts, site.ts), the PWA files (web.ts) and
 * /docs (docs.ts).
 */
export function webAppRoutes(deps: HttpDeps): DomainRoutes[] {
  return [pageRoutes(), zonesRoutes(deps), siteRoutes(deps), pwaRoutes(), docsRoutes(deps)];
}
