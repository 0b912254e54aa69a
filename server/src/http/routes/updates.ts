import { Router } from 'express';
import { SERVICE_VERSION } from '../../core/version';
import type { DomainRoutes } from '../deps';

/**
 * GET /updates (v1-only). Nothing phones home: the release check is not
 * enabled in this build, so `latest` stays null and no update is claimed.
 */
export function updatesRoutes(): DomainRoutes {
  const v1Only = Router();
  v1Only.get('/updates', (_req, res) => {
    res.json({
      current: SERVICE_VERSION,
      latest: null,
      update_available: false,
      release_url: null,
      checked_at_epoch: null,
      check_enabled: false,
    });
  });
  return { v1Only };
}
