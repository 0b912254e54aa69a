import { Router } from 'express';
import type { DomainRoutes, HttpDeps } from '../deps';

/** GET /metrics at the origin root: Prometheus text format 0.0.4. */
export function metricsRoutes(deps: HttpDeps): DomainRoutes {
  const root = Router();
  root.get('/metrics', async (_req, res) => {
    const { contentType, body } = await deps.metrics.render();
    res.setHeader('Content-Type', contentType);
    res.send(body);
  });
  return { root };
}
