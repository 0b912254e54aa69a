import type { DomainRoutes, HttpDeps } from '../deps';

/** GET /metrics at the origin root: Prometheus text format 0.0.4. */
export function metricsRoutes(deps: HttpDeps): DomainRoutes {
  return {
    root: (scope) => {
      scope.get('/metrics', async (_request, reply) => {
        const { contentType, body } = await deps.metrics.render();
        return reply.type(contentType).send(body);
      });
    },
  };
}
