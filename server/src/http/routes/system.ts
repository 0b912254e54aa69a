import type { Restarter } from '../../ops/restart';
import { WateringInProgress } from '../../ops/restart';
import type { DomainRoutes } from '../deps';
import type { HttpDeps } from '../deps';
import { ApiError, badRequest } from '../errors';

/**
 * POST /system/restart (spec 4.8, v1-only, privileged): optional
 * `{force: boolean}`; 202 `{mode}` (`supervisor` or `exit`), or 409
 * `watering_in_progress` with `zones` (spec 7) unless forced. The restart
 * begins once the answer is sent (ops/restart.ts).
 */
export function systemRoutes(deps: HttpDeps, restarter: Restarter): DomainRoutes {
  return {
    v1Only: (scope) => {
      scope.post('/system/restart', { preHandler: deps.privileged }, async (request, reply) => {
        const force = forceOf(request.body);
        let mode;
        try {
          mode = restarter.request(force);
        } catch (err) {
          if (!(err instanceof WateringInProgress)) throw err;
          throw new ApiError(409, 'watering_in_progress', err.message, { zones: err.zones });
        }
        reply.raw.once('finish', () => restarter.begin());
        return reply.status(202).send({ mode });
      });
    },
  };
}

function forceOf(body: unknown): boolean {
  if (body === undefined || body === null || body === '') return false;
  if (typeof body !== 'object' || Array.isArray(body))
    throw badRequest('invalid_body', 'expected {force?: boolean}');
  const force = (body as { force?: unknown }).force;
  if (force === undefined) return false;
  if (typeof force !== 'boolean') throw badRequest('invalid_body', 'force must be a boolean');
  return force;
}
