import type { FastifyReply, FastifyRequest } from 'fastify';

/** One route's handler, as a domain's handler module returns them. */
export type RouteHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/**
 * A domain's handlers, built on the first request that needs one. The route
 * table registers its paths, methods and guards at boot (both mounts and the
 * OpenAPI catalog see them); the handler module and the modules only it uses
 * load with the first request (docs/architecture.md "Idle memory").
 */
export function lazyHandlers<H extends Record<string, RouteHandler>>(
  load: () => H,
): (name: keyof H) => RouteHandler {
  let handlers: H | null = null;
  return (name) => async (request, reply) => {
    handlers ??= load();
    return handlers[name]!(request, reply);
  };
}
