import { Readable } from 'node:stream';
import { createGzip, gzip } from 'node:zlib';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { acceptsGzip } from './accept-encoding';
import { COMPRESS_MIN_BYTES } from './encoded-json';
import { isHeadRequest } from './head-as-get';

/**
 * gzip for JSON answers (and the CSV export) when the client accepts it:
 * whole bodies of at least 1 KB are compressed off the event loop, streamed
 * bodies (the history routes) through a gzip stream. Answers that already
 * carry a Content-Encoding (the snapshots' cached bytes, the web bundle's
 * .gz files) pass untouched. Written here rather than with @fastify/compress:
 * the snapshots need their own cached bytes anyway, and this hook is a
 * header check for the small answers that dominate (`/info`, `/health`).
 */

const COMPRESSIBLE = /^(?:application\/json|text\/csv)\b/i;

export function installCompression(app: FastifyInstance): void {
  // A callback hook, not an async one: the common answer (small, or not JSON) returns at once
  // without a promise per request.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (!compressible(isHeadRequest(request.raw), reply, payload)) return done(null, payload);
    const accepted = acceptsGzip(request.headers['accept-encoding']);
    if (payload instanceof Readable) {
      reply.header('vary', 'Accept-Encoding');
      if (!accepted) return done(null, payload);
      reply.header('content-encoding', 'gzip');
      reply.removeHeader('content-length');
      return done(null, payload.pipe(createGzip()));
    }
    const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : (payload as Buffer);
    if (body.length < COMPRESS_MIN_BYTES) return done(null, payload);
    reply.header('vary', 'Accept-Encoding');
    if (!accepted) return done(null, payload);
    gzip(body, (err, packed) => {
      if (err) return done(null, payload);
      reply.header('content-encoding', 'gzip');
      reply.removeHeader('content-length');
      done(null, packed);
    });
  });
}

function compressible(head: boolean, reply: FastifyReply, payload: unknown): boolean {
  if (payload === null || payload === undefined || head) return false;
  if (reply.statusCode === 204 || reply.statusCode === 304 || reply.hasHeader('content-encoding'))
    return false;
  if (!(typeof payload === 'string' || Buffer.isBuffer(payload) || payload instanceof Readable)) return false;
  const type = reply.getHeader('content-type');
  return typeof type === 'string' && COMPRESSIBLE.test(type);
}
