import type { IncomingMessage } from 'node:http';

/**
 * HEAD is answered by the GET route of the same path. fastify's own way
 * (`exposeHeadRoutes`) registers a second route for every GET, and its route
 * records cost more than the GET routes themselves: about 0.7 MB of the idle
 * heap for our GET paths under both prefixes (docs/architecture.md "Idle
 * memory"). Instead the node server under fastify routes a HEAD request as
 * GET: node built the response knowing the request is HEAD, so it sends the
 * GET answer's status and headers and leaves out the body, as the HEAD routes
 * did. The method the client sent stays readable for metrics and request
 * logs (`sentMethod`), and streams that never end (SSE) close after their
 * headers (`isHeadRequest`).
 */

const SENT_HEAD = Symbol('raincheck.sentHead');
type MaybeHead = IncomingMessage & { [SENT_HEAD]?: true };

/** Called by the node server before fastify routes the request. */
export function routeHeadAsGet(req: IncomingMessage): void {
  if (req.method !== 'HEAD') return;
  (req as MaybeHead)[SENT_HEAD] = true;
  req.method = 'GET';
}

export function isHeadRequest(req: IncomingMessage): boolean {
  return (req as MaybeHead)[SENT_HEAD] === true;
}

/** The method the client sent (HEAD for a HEAD routed as GET). */
export function sentMethod(req: IncomingMessage): string {
  return isHeadRequest(req) ? 'HEAD' : (req.method ?? 'GET');
}
