import { SERVICE_VERSION } from '../../core/version';
import type { DomainRoutes } from '../deps';

/**
 * GET /updates (v1-only). Nothing phones home: the release check is not
 * enabled in this build, so `latest` stays null and no update is claimed.
 */
export function updatesRoutes(): DomainRoutes {
  return {
    v1Only: (scope) => {
      scope.get('/updates', async () => ({
        current: SERVICE_VERSION,
        latest: null,
        update_available: false,
        release_url: null,
        checked_at_epoch: null,
        check_enabled: false,
      }));
    },
  };
}
