import type { DomainRoutes, HttpDeps } from '../deps';

/** GET /snapshot: the merged weather snapshot (spec 2.2). */
export function snapshotRoutes(deps: HttpDeps): DomainRoutes {
  return {
    shared: (scope) => {
      scope.get('/snapshot', async () => deps.weather.snapshot());
    },
  };
}
