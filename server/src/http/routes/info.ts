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

/** GET /info (spec 2.1). */
export function infoRoutes(deps: HttpDeps): DomainRoutes {
  const revision = buildRevision(deps.env.vars);
  return {
    shared: (scope) => {
      scope.get('/info', async () => {
        const applied = deps.config.current?.config;
        return {
          service: SERVICE_NAME,
          service_version: SERVICE_VERSION,
          build_revision: revision,
          api_version: API_VERSION,
          api_prefix: API_PREFIX,
          license: LICENSE,
          repository: REPOSITORY,
          dry_run: deps.env.dryRun,
          demo: deps.env.demo,
          auth_required: deps.authRequired(),
          has_irrigation: applied
            ? applied.controllers.length > 0 || Object.keys(applied.zones).length > 0
            : false,
          nerd_mode_default: applied?.features.nerd_mode_default ?? false,
          location_configured: applied !== undefined || (deps.env.lat !== null && deps.env.lon !== null),
          uuid: deps.installId,
        };
      });
    },
  };
}
