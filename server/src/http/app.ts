import express, { Router, type Express } from 'express';
import { API_PREFIX, LEGACY_API_PREFIX } from '../core/version';
import type { Metrics } from '../core/metrics';
import type { Logger } from '../core/logger';
import type { DomainRoutes } from './deps';
import { errorHandler, notFoundHandler, rememberRouteBase } from './errors';
import { requestContext } from './request-context';

/**
 * Builds the express app from the domains' route tables. Mounting under both
 * prefixes happens here, once: `/api/v1` (canonical) and the legacy `/api`
 * for shared routes, `/api/v1` alone for v1-only routes, and the origin root
 * for root routes.
 */

export const JSON_BODY_LIMIT = '1mb';

export function createApp(logger: Logger, metrics: Metrics, domains: DomainRoutes[]): Express {
  const app = express();
  app.disable('x-powered-by');
  // Snapshots change every few seconds; hashing each body for an ETag is wasted work.
  app.set('etag', false);
  app.use(requestContext(logger));
  app.use((req, res, next) => {
    res.on('finish', () =>
      metrics.httpRequests.inc({ method: req.method, status_class: `${Math.floor(res.statusCode / 100)}xx` }),
    );
    next();
  });
  app.use(express.json({ limit: JSON_BODY_LIMIT }));

  const shared = Router();
  const v1Only = Router();
  for (const domain of domains) {
    if (domain.root) app.use(domain.root);
    if (domain.v1Only) v1Only.use(domain.v1Only);
    if (domain.shared) shared.use(domain.shared);
  }
  // Errors leave the routers with req.baseUrl reset; keep the prefix for the error body's route.
  shared.use(rememberRouteBase);
  v1Only.use(rememberRouteBase);
  app.use(API_PREFIX, v1Only);
  app.use([API_PREFIX, LEGACY_API_PREFIX], shared);

  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
