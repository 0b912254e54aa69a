import { DAYS_RULES, parseDays } from '../../irrigation/history/query';
import { TuningError } from '../../irrigation/tuning/tuning-error';
import type { DomainRoutes, HttpDeps } from '../deps';
import { ApiError } from '../errors';

/**
 * The learning loop's tuning routes (spec 4.4): GET /irrigation/tuning and
 * the privileged dismiss pair. They read the database, so like the history
 * routes they mount only when it opened. POST /config/zones/apply is in
 * config.ts (named after its first segment); domain code in irrigation/tuning/.
 */

export function irrigationTuningRoutes(deps: HttpDeps): DomainRoutes {
  const tuning = deps.tuning;
  if (!tuning) return {};
  return {
    shared: (scope) => {
      scope.get('/irrigation/tuning', async (request) => {
        const days = parseDays(request.query as Record<string, unknown>, DAYS_RULES.tuning);
        return tuningCall(() => tuning.report(days));
      });
      scope.post('/irrigation/tuning/dismiss', { preHandler: deps.privileged }, async (request) =>
        tuningCall(() => tuning.dismiss(request.body)),
      );
      scope.post('/irrigation/tuning/undismiss', { preHandler: deps.privileged }, async (request) =>
        tuningCall(() => tuning.undismiss(request.body)),
      );
    },
  };
}

/** Runs a tuning call, turning its refusals into the standard error body. */
export async function tuningCall<T>(run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof TuningError) throw new ApiError(err.status, err.code, err.message, err.extra);
    throw err;
  }
}
