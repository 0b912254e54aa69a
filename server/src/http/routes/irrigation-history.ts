import type { Store } from '../../store/store';
import type { DomainRoutes, HttpDeps } from '../deps';
import { lazyHandlers } from '../lazy-handlers';

/**
 * The read side of the irrigation history (spec 4.4): /irrigation/history,
 * /irrigation/decisions, /irrigation/export, /irrigation/accuracy and the
 * soil water ledger, /irrigation/soil (docs/irrigation.md). They
 * read the database, so they mount only when it opened (spec: "mount only
 * when the history database is available"); without it they answer 404 like
 * any unknown path. The handlers (routes/irrigation-history-handlers.ts) and
 * the history's body builders load on the first history request.
 */
export function irrigationHistoryRoutes(deps: HttpDeps): DomainRoutes {
  const store = deps.store;
  if (!store) return {};
  const handle = lazyHandlers(() => loadHandlers(deps, store));
  return {
    shared: (scope) => {
      scope.get('/irrigation/history', handle('history'));
      scope.get('/irrigation/decisions', handle('decisions'));
      scope.get('/irrigation/export', handle('export'));
      scope.get('/irrigation/soil', handle('soil'));
      scope.get('/irrigation/accuracy', handle('accuracy'));
    },
  };
}

function loadHandlers(deps: HttpDeps, store: Store) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const module = require('./irrigation-history-handlers') as typeof import('./irrigation-history-handlers');
  return module.irrigationHistoryHandlers(deps, store);
}
