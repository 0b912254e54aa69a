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

/** The parts of a multipart request, through the plugin's decorators on a view of the request. */
export function multipartParts(
  request: FastifyRequest,
  limits: MultipartLimits,
): AsyncIterableIterator<Multipart> {
  const decorations = multipartDecorations(limits);
  const view = Object.create(request) as FastifyRequest;
  for (const [key, value] of decorations) Object.defineProperty(view, key, { value, writable: true });
  Object.defineProperty(view, 'isMultipart', { value: () => true });
  return view.parts();
}

export function isMultipartRequest(request: FastifyRequest): boolean {
  return /^multipart\/form-data\s*;/i.test(request.headers['content-type'] ?? '');
}
