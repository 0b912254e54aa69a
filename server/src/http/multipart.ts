import { Transform, type TransformCallback } from 'node:stream';
import type { Multipart } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';

/**
 * Multipart parsing for the few routes that take uploads (zone photos,
 * backup restore), loaded on first use: most instances never upload, and the
 * parser is not free at idle.
 *
 * A fastify plugin can only be registered before the app is ready, so
 * instead of registering @fastify/multipart, this runs the plugin's own
 * function once per set of limits against a minimal host that records the
 * request decorators it installs (`parts`, `file`, and the handler behind
 * them), then calls them on a view of the request. Only the stream API is
 * used (no temp files, so its cleanup hooks are not needed). The upload tests
 * exercise this whole path: an upgrade of the plugin that needs more of the
 * host fails them.
 */

export interface MultipartLimits {
  fileSize: number;
  files: number;
  fields: number;
}

/**
 * Room for the multipart framing around a file of the largest size: the
 * boundaries and part headers of one file are a few hundred bytes.
 */
export const MULTIPART_FRAMING_BYTES = 64 * 1024;

/**
 * The whole body passed `maxBodyBytes` (declared, or counted as it arrived).
 * busboy's file limit alone would skip the rest of a file, and nothing bounds
 * a preamble: both read to the end of the body before answering.
 */
export class MultipartBodyTooLarge extends Error {
  readonly code = 'RC_MULTIPART_BODY_TOO_LARGE';
  constructor(readonly maxBodyBytes: number) {
    super(`the request body is larger than ${maxBodyBytes} bytes`);
  }
}

type Decorations = Map<string | symbol, unknown>;
const byLimits = new Map<string, Decorations>();

function multipartDecorations(limits: MultipartLimits): Decorations {
  const key = JSON.stringify(limits);
  const cached = byLimits.get(key);
  if (cached) return cached;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const plugin = (require('@fastify/multipart') as typeof import('@fastify/multipart')).fastifyMultipart;
  const found: Decorations = new Map();
  const ignore = () => undefined;
  const host = {
    initialConfig: { bodyLimit: limits.fileSize },
    addContentTypeParser: ignore,
    addHook: ignore,
    addSchema: ignore,
    decorate: ignore,
    hasRequestDecorator: (name: string | symbol) => found.has(name),
    decorateRequest: (name: string | symbol, value: unknown) => void found.set(name, value),
  };
  let failure: unknown = null;
  plugin(host as never, { limits, throwFileSizeLimit: true }, (err) => (failure = err ?? null));
  if (failure) throw failure;
  byLimits.set(key, found);
  return found;
}

/**
 * The parts of a multipart request, through the plugin's decorators on a view
 * of the request. The view reads the body through a counter that fails the
 * parse as soon as the body passes `limits.fileSize` plus the framing: the
 * caller answers 413 while the body is still arriving, and errors.ts closes
 * the connection instead of draining the rest.
 */
export function multipartParts(
  request: FastifyRequest,
  limits: MultipartLimits,
): AsyncIterableIterator<Multipart> {
  const maxBodyBytes = limits.fileSize * limits.files + MULTIPART_FRAMING_BYTES;
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBodyBytes) throw new MultipartBodyTooLarge(maxBodyBytes);
  const decorations = multipartDecorations(limits);
  const view = Object.create(request) as FastifyRequest;
  for (const [key, value] of decorations) Object.defineProperty(view, key, { value, writable: true });
  Object.defineProperty(view, 'isMultipart', { value: () => true });
  Object.defineProperty(view, 'raw', { value: countedBody(request.raw, maxBodyBytes) });
  return view.parts();
}

/** The request's body, failing once more than `maxBytes` have arrived; the plugin reads `headers` off it. */
function countedBody(raw: FastifyRequest['raw'], maxBytes: number): Transform {
  let seen = 0;
  const counted = new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
      seen += chunk.length;
      if (seen > maxBytes) done(new MultipartBodyTooLarge(maxBytes));
      else done(null, chunk);
    },
  });
  Object.assign(counted, { headers: raw.headers });
  // A client gone mid-body: the plugin ends its parse on the view's premature close.
  raw.once('close', () => {
    if (!raw.complete) counted.destroy();
  });
  return raw.pipe(counted);
}

export function isMultipartRequest(request: FastifyRequest): boolean {
  return /^multipart\/form-data\s*;/i.test(request.headers['content-type'] ?? '');
}
