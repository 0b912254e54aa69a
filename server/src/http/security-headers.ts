import type { FastifyReply } from 'fastify';

/**
 * Headers every HTML page carries (spec 5.6 and the trust model): a
 * Content-Security-Policy the bundled web app lives with (own scripts,
 * styles and images only, data: images for charts, same-origin fetch and
 * EventSource, no plugins, no base-tag or form hijack), framing allowed only
 * by the same origin (Home Assistant's ingress panel is: HA proxies the app
 * under its own origin),
 * and no MIME sniffing or referrer leaks. HTML routes call this; JSON routes
 * need none of it.
 */

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  // HA's ingress serves the app from HA's own origin, so its panel frame is same-origin.
  "frame-ancestors 'self'",
].join('; ');

export function applyHtmlSecurityHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('Content-Security-Policy', CONTENT_SECURITY_POLICY)
    .header('X-Frame-Options', 'SAMEORIGIN')
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'same-origin')
    .header('Cross-Origin-Opener-Policy', 'same-origin');
}
