import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DomainRoutes, HttpDeps } from '../deps';

/** GET /stream: SSE of the weather snapshot, an event `snapshot` on each change, keep-alive every 15 s. */
export function streamRoutes(deps: HttpDeps): DomainRoutes {
  return {
    shared: (scope) => {
      scope.get('/stream', (request, reply) => subscribe(deps, 'weather', request, reply));
    },
  };
}

/** Hands the connection to the SSE hub; shared by the three feeds. */
export function subscribe(deps: HttpDeps, feed: string, request: FastifyRequest, reply: FastifyReply): void {
  reply.hijack();
  deps.sse.subscribe(feed, request.raw, reply.raw);
}
