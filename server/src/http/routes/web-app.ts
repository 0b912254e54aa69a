import type { DomainRoutes, HttpDeps } from '../deps';
import { docsRoutes } from './docs';
import { siteRoutes } from './site';
import { pwaRoutes } from './web';
import { zonesRoutes } from './zones';

/** The web app's back-end routes: zone photos, the PWA files and /docs (one entry in main.ts). */
export function webAppRoutes(deps: HttpDeps): DomainRoutes[] {
  return [zonesRoutes(deps), siteRoutes(deps), pwaRoutes(), docsRoutes(deps)];
}
