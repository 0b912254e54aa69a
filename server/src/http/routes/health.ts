import { CURRENT_SCHEMA_VERSION } from '../../config/schema-version';
import { epochSeconds } from '../../core/clock';
import { SERVICE_VERSION } from '../../core/version';
import type { DomainRoutes, HttpDeps } from '../deps';
import { queryFlag } from '../query';

/**
 * GET /health: the full body for authenticated callers (or auth disabled), a
 * liveness-only body for anonymous callers on an auth-required instance.
 * `?strict=1` answers 503 unless the status is `ok`.
 */
export function healthRoutes(deps: HttpDeps): DomainRoutes {
  return {
    shared: (scope) => {
      scope.get('/health', async (request, reply) => {
        const status = deps.health.overall();
        const uptime_s = Math.max(0, Math.floor((deps.clock.nowMs() - deps.startedAtMs) / 1000));
        reply.status(queryFlag(request, 'strict') && status !== 'ok' ? 503 : 200);
        if (deps.authRequired() && !deps.isAuthenticated(request)) {
          return { status, version: SERVICE_VERSION, uptime_s };
        }
        const applied = deps.config.current;
        return {
          status,
          config_present: deps.config.present,
          version: SERVICE_VERSION,
          schema_version: applied ? (applied.document.schema_version as number) : CURRENT_SCHEMA_VERSION,
          uptime_s,
          location_configured: applied !== null || (deps.env.lat !== null && deps.env.lon !== null),
          subsystems: deps.health.subsystems(),
          notes: deps.health.notes(),
          sources: deps.health.sources(),
          controllers: deps.health.controllers(),
          ha: deps.health.ha(),
          checked_epoch: epochSeconds(deps.clock),
        };
      });
    },
  };
}
