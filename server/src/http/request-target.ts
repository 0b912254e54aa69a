/**
 * The request target every layer reads: the auth gate, the router, the
 * handlers and the request log all see the URL this returns, set once on the
 * raw request before fastify routes it (serveWithRequestIds).
 *
 * A fragment is never part of a request target (RFC 9110 4.2.4: a client
 * strips it), but node's parser passes a raw `#` through. The router (find-my-way)
 * stops reading the path at `#`; the gate used to read past it, so
 * `/api/v1/config/raw#/stream?access_token=T` looked like a stream path to the
 * gate and routed to the raw config, and `/settings#.js` looked like a public
 * static file. Cutting the fragment here, once, makes both read the same path.
 */
export function normalizeRequestTarget(url: string): string {
  const fragment = url.indexOf('#');
  return fragment < 0 ? url : url.slice(0, fragment);
}
