import type { DomainRoutes, HttpDeps } from '../deps';
import { lazyHandlers } from '../lazy-handlers';

/**
 * GET /sensors/soil and /sensors/discovered (spec 4.7; shapes in docs/ha.md).
 * They mount only when the history database is available (404 otherwise,
 * like any unknown path). GET /sensors/manifest is the entity catalog as
 * manifest 1.6 (the same catalog the MQTT discovery topics come from), POST
 * /sensors/manifest/command runs an entity's command. The handlers
 * (routes/sensors-handlers.ts) and the HA sensor inventory load on the first
 * /sensors request.
 */
export function sensorsRoutes(deps: HttpDeps): DomainRoutes {
  if (!deps.store) return {};
  const handle = lazyHandlers(() => loadHandlers(deps));
  return {
    shared: (scope) => {
      scope.get('/sensors/soil', handle('soil'));
      scope.get('/sensors/manifest', handle('manifest'));
      scope.post('/sensors/manifest/command', handle('manifestCommand'));
      scope.get('/sensors/discovered', handle('discovered'));
    },
  };
}

function loadHandlers(deps: HttpDeps) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const module = require('./sensors-handlers') as typeof import('./sensors-handlers');
  return module.sensorsHandlers(deps);
}
