import { gzipSync } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { acceptsGzip } from './accept-encoding';

/**
 * A published snapshot as bytes, serialised once per change (not once per
 * request) and gzipped once, on the first client that accepts it. Keyed by
 * the snapshot object itself: the services publish a new object on every
 * change and never mutate one they have handed out, so the same object means
 * the same bytes. The weak map lets an old snapshot's bytes go with it.
 */

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
/** Below this, gzip saves too little to be worth a header and a CPU slice. */
export const COMPRESS_MIN_BYTES = 1024;

interface Encoded {
  json: Buffer;
  gzip: Buffer | null;
}

const encoded = new WeakMap<object, Encoded>();

function entry(value: object): Encoded {
  let found = encoded.get(value);
  if (!found) {
    found = { json: Buffer.from(JSON.stringify(value), 'utf8'), gzip: null };
    encoded.set(value, found);
  }
  return found;
}

/** The snapshot's JSON bytes (the SSE frames use them too). */
export function jsonBytes(value: object): Buffer {
  return entry(value).json;
}

/** The snapshot's gzipped JSON, compressed the first time it is asked for. */
export function gzipBytes(value: object): Buffer {
  const found = entry(value);
  found.gzip ??= gzipSync(found.json);
  return found.gzip;
}

/** Sends a snapshot from its cached bytes: gzip when the client accepts it and it pays. */
export function sendEncoded(request: FastifyRequest, reply: FastifyReply, value: object): FastifyReply {
  const json = jsonBytes(value);
  reply.header('content-type', JSON_CONTENT_TYPE);
  if (json.length < COMPRESS_MIN_BYTES) return reply.send(json);
  reply.header('vary', 'Accept-Encoding');
  if (!acceptsGzip(request.headers['accept-encoding'])) return reply.send(json);
  reply.header('content-encoding', 'gzip');
  return reply.send(gzipBytes(value));
}
