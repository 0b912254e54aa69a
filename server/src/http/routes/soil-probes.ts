import type { SoilProbes } from '../../irrigation/soil/soil-probes';
import type { Store } from '../../store/store';
import type { DomainRoutes, HttpDeps } from '../deps';
import { lazyHandlers } from '../lazy-handlers';

/**
 * A soil probe's calibration (docs/irrigation.md "Soil probes"):
 *
 * - PUT /sensors/soil/calibration `{sensor_id, point: "dry"|"wet", raw_pct?}`
 *   sets one point; `raw_pct` absent takes the probe's latest stored reading
 *   (the owner stands by a dry or a soaked probe and presses the button).
 * - DELETE /sensors/soil/calibration?sensor_id=... forgets both points.
 *
 * Both answer `{sensor_id, calibration, calibrated}`. The ledger replays the
 * probe's zones and the engine recomputes at once. Mounted only with the
 * database, like the other /sensors routes. The handlers
 * (routes/soil-probe-handlers.ts) load on the first soil probe request.
 */

export function soilProbeRoutes(deps: HttpDeps, probes: SoilProbes | null): DomainRoutes {
  const store = deps.store;
  if (!store || !probes) return {};
  const handle = lazyHandlers(() => loadHandlers(deps, store, probes));
  const privileged = { preHandler: deps.privileged };
  return {
    shared: (scope) => {
      scope.put('/sensors/soil/calibration', privileged, handle('setCalibration'));
      scope.get('/sensors/soil/probes', handle('probes'));
      scope.put('/sensors/soil/binding', privileged, handle('bind'));
      scope.put('/sensors/soil/name', privileged, handle('rename'));
      scope.delete('/sensors/soil/probe', privileged, handle('forget'));
      scope.delete('/sensors/soil/calibration', privileged, handle('clearCalibration'));
    },
  };
}

function loadHandlers(deps: HttpDeps, store: Store, probes: SoilProbes) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const module = require('./soil-probe-handlers') as typeof import('./soil-probe-handlers');
  return module.soilProbeHandlers(deps, store, probes);
}
