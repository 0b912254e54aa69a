import type { DomainRoutes, HttpDeps } from '../deps';
import { lazyHandlers } from '../lazy-handlers';

/**
 * /wizard/* (spec 4.6), the first-run wizard's back end; bodies and codes in
 * docs/wizard.md. Public only until the owner account exists (spec 5.5,
 * auth/public-paths.ts); the routes that write the draft or the config are
 * privileged (spec 5.8). The handlers (routes/wizard-handlers.ts) and the
 * wizard domain load on the first wizard request.
 */

export function wizardRoutes(deps: HttpDeps): DomainRoutes {
  const handle = lazyHandlers(() => loadHandlers(deps));
  const privileged = { preHandler: deps.privileged };
  return {
    shared: (scope) => {
      scope.get('/wizard/draft', handle('getDraft'));
      scope.put('/wizard/draft', privileged, handle('putDraft'));
      scope.delete('/wizard/draft', privileged, handle('deleteDraft'));
      scope.post('/wizard/apply', privileged, handle('apply'));
      scope.get('/wizard/state', handle('state'));
      scope.post('/wizard/seed_current', privileged, handle('seedCurrent'));
      scope.post('/wizard/test_source', handle('testSource'));
      scope.post('/wizard/test_controller', handle('testController'));
      scope.post('/wizard/scan_zones', handle('scanZones'));
      scope.post('/wizard/test_llm', handle('testLlm'));
      scope.post('/wizard/probe_soil', handle('probeSoil'));
      scope.get('/wizard/discover', handle('discover'));
      scope.get('/wizard/geocode', handle('geocode'));
    },
  };
}

function loadHandlers(deps: HttpDeps) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const module = require('./wizard-handlers') as typeof import('./wizard-handlers');
  return module.wizardHandlers(deps);
}
