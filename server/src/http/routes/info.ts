import type { ConfigService } from '../../config/config-service';
import {
  API_PREFIX,
  API_VERSION,
  buildRevision,
  LICENSE,
  REPOSITORY,
  SERVICE_NAME,
  SERVICE_VERSION,
} from '../../core/version';
import type { DomainRoutes, HttpDeps } from '../deps';

/**
 * GET /info (spec 2.1). The body changes only with the config, so it is
 * serialised once per applied config revision (and auth mode) and sent as is:
 * it is the most polled route and the throughput benchmark's subject.
 */
export function infoRoutes(deps: HttpDeps): DomainRoutes {
  let cached: { key: string; json: string } | null = null;
  const body = (): string => {
    const key = `${deps.config.current?.revision ?? 0}:${deps.authRequired()}`;
    if (cached?.key !== key) cached = { key, json: JSON.stringify(infoBody(deps, deps.config)) };
    return cached.json;
  };
  return {
    shared: (scope) => {
      scope.get('/info', async (_request, reply) =>
        reply.type('application/json; charset=utf-8').send(body()),
      );
    },
  };
}

function infoBody(deps: HttpDeps, config: ConfigService): Record<string, unknown> {
  const applied = config.current?.config;
  return {
    service: SERVICE_NAME,
    service_version: SERVICE_VERSION,
    build_revision: buildRevision(deps.env.vars),
    api_version: API_VERSION,
    api_prefix: API_PREFIX,
    license: LICENSE,
    repository: REPOSITORY,
    dry_run: deps.env.dryRun,
    demo: deps.env.demo,
    auth_required: deps.authRequired(),
    has_irrigation: applied ? applied.controllers.length > 0 || Object.keys(applied.zones).length > 0 : false,
    nerd_mode_default: applied?.features.nerd_mode_default ?? false,
    location_configured: applied !== undefined || (deps.env.lat !== null && deps.env.lon !== null),
    uuid: deps.installId,
  };
}
