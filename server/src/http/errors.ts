import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { lingerOnClose } from './lingering-close';
import { hasBody } from './request-body';
import { isStorageFull } from '../core/storage-full';

/**
 * Every failure the service generates answers with one body shape (spec 7):
 * `{error, code, diagnostic?, request: {id, method, route}}` plus fields a
 * route adds (e.g. `validation`). Handlers throw ApiError; nothing else
 * reaches a client as a 500 with internals.
 */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly diagnostic?: Record<string, unknown>,
  ) {
    super(message);
  }
}

export function badRequest(code: string, message: string, extra?: Record<string, unknown>): ApiError {
  return new ApiError(400, code, message, extra);
}

/** The route template the request matched (`/api/v1/config/rollback`), else its path. */
export function routeOf(request: FastifyRequest): string {
  return request.routeOptions.url ?? request.url.split('?')[0] ?? '/';
}

export function errorBody(request: FastifyRequest, error: ApiError): Record<string, unknown> {
  return {
    ...error.extra,
    error: error.message,
    code: error.code,
    ...(error.diagnostic ? { diagnostic: error.diagnostic } : {}),
    request: { id: request.id, method: request.method, route: routeOf(request) },
  };
}

/**
 * A refused request whose body is still arriving (a 401 before the body, a
 * 413, a 415, a 503 from the body cap) closes its connection after the answer
 * instead of reading the rest: node would otherwise drain the body to reuse
 * the socket, and a slow one would hold it as long as the sender likes. The
 * close lingers briefly so the answer is read before the socket goes
 * (lingering-close.ts).
 */
export function sendError(request: FastifyRequest, reply: FastifyReply, error: ApiError): FastifyReply {
  if (hasBody(request) && !request.raw.complete && !reply.sent) {
    reply.header('Connection', 'close');
    lingerOnClose(request.raw.socket);
  }
  return reply.status(error.status).send(errorBody(request, error));
}

export function notFoundHandler(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const path = request.url.split('?')[0];
  return sendError(request, reply, new ApiError(404, 'not_found', `no route for ${request.method} ${path}`));
}

/** Maps framework failures (body parsing, limits) to the spec's codes and hides the unexpected behind a 500. */
export function errorHandler(
  error: FastifyError | ApiError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  return sendError(request, reply, toApiError(error, request));
}

const FRAMEWORK_CODES: Record<string, [number, string, string]> = {
  FST_ERR_CTP_INVALID_JSON_BODY: [400, 'invalid_json', 'the request body is not valid JSON'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'invalid_json', 'the request body is empty but declared as JSON'],
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'payload_too_large', 'the request body is too large'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [
    415,
    'unsupported_media_type',
    'this route does not take that content type',
  ],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'bad_request', 'the content length does not match the body'],
};

function toApiError(error: FastifyError | ApiError, request: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error;
  if (isStorageFull(error)) {
    request.log.error({ req_id: request.id, code: error.code }, 'a write failed: the disk is full');
    return storageFullError();
  }
  const known = FRAMEWORK_CODES[error.code];
  if (known) return new ApiError(known[0], known[1], known[2]);
  if (error instanceof SyntaxError || (error.statusCode === 400 && /JSON/i.test(error.message))) {
    return new ApiError(400, 'invalid_json', 'the request body is not valid JSON');
  }
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return new ApiError(error.statusCode, 'bad_request', 'the request could not be read');
  }
  request.log.error({ req_id: request.id, err: error }, 'unhandled error');
  return new ApiError(500, 'internal_error', 'internal error; the request id is in the service log');
}

/** 507: nothing of the write was kept (spec 7 has no code for it; docs/http.md). */
export function storageFullError(): ApiError {
  return new ApiError(
    507,
    'insufficient_storage',
    'the disk is full: nothing was saved; free some space on the data volume and retry',
  );
}
