import { SERVICE_VERSION } from '../../core/version';
import type { UpdatesStatus } from '../../ops/updates/update-checker';
import type { DomainRoutes, HttpDeps } from '../deps';

/**
 * GET /updates (v1-only; spec 2.5 "Updates status"). Nothing phones home
 * unless the config enables the check (`updates.check_enabled`,
 * ops/updates/update-checker.ts): until then `latest` stays null and no
 * update is claimed.
 */
export function updatesRoutes(deps: Pick<HttpDeps, 'updates'>): DomainRoutes {
  return {
    v1Only: (scope) => {
      scope.get('/updates', async (): Promise<UpdatesStatus> => deps.updates?.status() ?? checkOff());
    },
  };
}

function checkOff(): UpdatesStatus {
  return {
    current: SERVICE_VERSION,
    latest: null,
    update_available: false,
    release_url: null,
    checked_at_epoch: null,
    check_enabled: false,
  };
}
