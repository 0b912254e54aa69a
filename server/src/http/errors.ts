import type { ErrorRequestHandler, Request, RequestHandler } from 'express';

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

export function notFound(code: string, message: string): ApiError {
  return new ApiError(404, code, message);
}

/** Where a router was mounted when one of its routes failed; express resets req.baseUrl on the way out. */
const ROUTE_BASE = Symbol('routeBase');
type WithRouteBase = Request & { [ROUTE_BASE]?: string };

/** Error middleware for the end of a mounted router: keeps the mount prefix for `routeOf`. */
export const rememberRouteBase: ErrorRequestHandler = (err: unknown, req, _res, next) => {
  const tagged = req as WithRouteBase;
  tagged[ROUTE_BASE] ??= req.baseUrl;
  next(err);
};

/** The route template the request matched (`/api/v1/config/rollback`), else its path. */
export function routeOf(req: Request): string {
  const template = req.route?.path;
  const base = (req as WithRouteBase)[ROUTE_BASE] ?? req.baseUrl;
  return typeof template === 'string' ? `${base}${template}` : req.originalUrl.split('?')[0] || '/';
}

export function errorBody(req: Request, error: ApiError): Record<string, unknown> {
  return {
    ...error.extra,
    error: error.message,
    code: error.code,
    ...(error.diagnostic ? { diagnostic: error.diagnostic } : {}),
    request: { id: req.requestId, method: req.method, route: routeOf(req) },
  };
}

export function sendError(req: Request, res: Parameters<RequestHandler>[1], error: ApiError): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.status(error.status).json(errorBody(req, error));
}

export const notFoundHandler: RequestHandler = (req, res) => {
  sendError(req, res, new ApiError(404, 'not_found', `no route for ${req.method} ${req.path}`));
};

/** Maps body-parser failures to the spec's codes and hides everything unexpected behind a 500. */
export const errorHandler: ErrorRequestHandler = (err: unknown, req, res, _next) => {
  sendError(req, res, toApiError(err, req));
};

function toApiError(err: unknown, req: Request): ApiError {
  if (err instanceof ApiError) return err;
  const type = (err as { type?: string }).type;
  if (type === 'entity.parse.failed') {
    return new ApiError(400, 'invalid_json', 'the request body is not valid JSON');
  }
  if (type === 'entity.too.large') {
    const limit = (err as { limit?: number }).limit;
    return new ApiError(
      413,
      'payload_too_large',
      `the request body is larger than ${limit ?? 'allowed'} bytes`,
    );
  }
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return new ApiError(415, 'unsupported_encoding', 'the request body encoding is not supported');
  }
  const status = (err as { status?: number }).status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new ApiError(status, 'bad_request', 'the request could not be read');
  }
  req.log.error({ err }, 'unhandled error');
  return new ApiError(500, 'internal_error', 'internal error; the request id is in the service log');
}
