import { Readable } from 'node:stream';
import type { Chunk } from './keyset-pages';

/**
 * A response body from a generator of chunks (text, or UTF-8 buffers built by
 * SQLite). Small bodies (the generator finishes within the first
 * `streamAboveBytes`) come back whole, sent with a Content-Length, and any
 * failure while producing them still reaches the client as an error body.
 * Larger ones stream: the generator advances one chunk per read, so the
 * database is read only as fast as the client takes the bytes. A failure
 * after that point can only cut the response short.
 */

export const STREAM_ABOVE_BYTES = 64 * 1024;

export type Body = { kind: 'whole'; body: Buffer } | { kind: 'stream'; stream: Readable };

function toBuffer(chunk: Chunk): Buffer {
  return typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
}

export function bodyFromChunks(chunks: Iterator<Chunk>, streamAboveBytes = STREAM_ABOVE_BYTES): Body {
  const head: Buffer[] = [];
  let size = 0;
  while (size < streamAboveBytes) {
    const next = chunks.next();
    if (next.done) return { kind: 'whole', body: Buffer.concat(head) };
    head.push(toBuffer(next.value));
    size += next.value.length;
  }
  return { kind: 'stream', stream: Readable.from(resume(head, chunks), { objectMode: false }) };
}

function* resume(head: Buffer[], rest: Iterator<Chunk>): Generator<Buffer> {
  try {
    yield Buffer.concat(head);
    for (let next = rest.next(); !next.done; next = rest.next()) yield toBuffer(next.value);
  } finally {
    // A client that hangs up destroys the stream: let the producer finish its own cleanup.
    rest.return?.();
  }
}
