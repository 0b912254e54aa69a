import type { Diagnostics } from '../../ops/diagnostics/diagnostics';
import type { DomainRoutes } from '../deps';
import { queryFlag } from '../query';

/**
 * GET /diagnostics (spec 4.1, v1-only, credentials when auth is required):
 * the scrubbed report (ops/diagnostics, body in docs/operations.md).
 * `?download=1` adds an attachment file name for the web app's button.
 * The report's code loads on the first request (main.ts passes a factory).
 */
export function diagnosticsRoutes(create: () => Diagnostics): DomainRoutes {
  let diagnostics: Diagnostics | null = null;
  return {
    v1Only: (scope) => {
      scope.get('/diagnostics', async (request, reply) => {
        const body = (diagnostics ??= create()).build();
        reply.header('Cache-Control', 'no-store');
        if (queryFlag(request, 'download')) {
          reply.header('Content-Disposition', 'attachment; filename="raincheck-diagnostics.json"');
        }
        return reply.type('application/json; charset=utf-8').send(JSON.stringify(body, null, 2));
      });
    },
  };
}
