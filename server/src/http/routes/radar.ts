import type { RadarService } from '../../radar/radar-service';
import type { DomainRoutes } from '../deps';
import { lazyHandlers } from '../lazy-handlers';

/**
 * GET /radar/windgrid, /radar/precip, /radar/tropical (spec 4.7, v1-only).
 * A bad bbox answers 400 with `bbox_missing`, `bbox_malformed`,
 * `bbox_out_of_range`, `bbox_inverted` or `bbox_too_large`; an upstream
 * failure with nothing cached to fall back on answers 502
 * `radar_upstream_failed` (body field `upstream` names the provider). The
 * handlers (routes/radar-handlers.ts) load on the first radar request.
 */
export function radarRoutes(radarService: RadarService | (() => RadarService)): DomainRoutes {
  const radar = typeof radarService === 'function' ? radarService : () => radarService;
  const handle = lazyHandlers(() => loadHandlers(radar));
  return {
    v1Only: (scope) => {
      scope.get('/radar/windgrid', handle('windgrid'));
      scope.get('/radar/precip', handle('precip'));
      scope.get('/radar/tropical', handle('tropical'));
    },
  };
}

function loadHandlers(radar: () => RadarService) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const module = require('./radar-handlers') as typeof import('./radar-handlers');
  return module.radarHandlers(radar);
}
