import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DomainRoutes, HttpDeps } from '../deps';
import { ApiError } from '../errors';

/** GET /stream: SSE of the weather snapshot, an event `snapshot` on each change, keep-alive every 15 s. */
export function streamRoutes(deps: HttpDeps): DomainRoutes {
  return {
    shared: (scope) => {
      scope.get('/stream', (request, reply) => subscribe(deps, 'weather', request, reply));
    },
  };
}

/**
 * Hands the connection to the SSE hub; shared by the three feeds. The stream
 * ends when the credential that opened it stops being valid (deps.streamGuard).
 */
export function subscribe(deps: HttpDeps, feed: string, request: FastifyRequest, reply: FastifyReply): void {
  if (!deps.sse.hasRoom(request)) {
    reply.header('Retry-After', '30');
    throw new ApiError(503, 'streams_full', 'too many live streams are open; retry shortly');
  }
  const guard = deps.streamGuard(request);
  reply.hijack();
  deps.sse.subscribe(feed, request.raw, reply.raw, guard ?? undefined);
}
