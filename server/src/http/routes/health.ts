import { Router } from 'express';
import { epochSeconds } from '../../core/clock';
import { SERVICE_VERSION } from '../../core/version';
import { CURRENT_SCHEMA_VERSION } from '../../config/schema';
import type { DomainRoutes, HttpDeps } from '../deps';
import { queryFlag } from '../query';

/**
 * GET /health: the full body for authenticated callers (or auth disabled), a
 * liveness-only body for anonymous callers on an auth-required instance.
 * `?strict=1` answers 503 unless the status is `ok` (the add-on watchdog).
 */
export function healthRoutes(deps: HttpDeps): DomainRoutes {
  const shared = Router();
  shared.get('/health', (req, res) => {
    const status = deps.health.overall();
    const uptime_s = Math.max(0, Math.floor((deps.clock.nowMs() - deps.startedAtMs) / 1000));
    const code = queryFlag(req, 'strict') && status !== 'ok' ? 503 : 200;
    if (deps.authRequired() && !deps.isAuthenticated(req)) {
      res.status(code).json({ status, version: SERVICE_VERSION, uptime_s });
      return;
    }
    const applied = deps.config.current;
    res.status(code).json({
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
    });
  });
  return { shared };
}
