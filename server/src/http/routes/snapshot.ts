import type { DomainRoutes, HttpDeps } from '../deps';
import { sendEncoded } from '../encoded-json';

/** GET /snapshot: the merged weather snapshot (spec 2.2). */
export function snapshotRoutes(deps: HttpDeps): DomainRoutes {
  return {
    shared: (scope) => {
      scope.get('/snapshot', (request, reply) => sendEncoded(request, reply, deps.weather.snapshot()));
    },
  };
}
