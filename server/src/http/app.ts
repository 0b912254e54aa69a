import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { Logger } from '../core/logger';
import type { Metrics } from '../core/metrics';
import { API_PREFIX, LEGACY_API_PREFIX } from '../core/version';
import { installCompression } from './compression';
import type { DomainRoutes } from './deps';
import { MAX_NESTING, jsonTextTooDeep } from '../core/nesting';
import { BodyAdmission, RETRY_BUSY_AFTER_S, serverBusy } from './body-admission';
import { ShedReport } from './load-shedding';
import { hasBody } from './request-body';
import { guardConnections } from './connection-guard';
import { ApiError, errorHandler, notFoundHandler } from './errors';
import { defaultHttpLimits, type HttpLimits } from './limits';
import {
  installRequestContext,
  REQUEST_ID,
  requestIdOf,
  serveWithRequestIds,
  type RequestWithId,
} from './request-context';

/**
 * Builds the HTTP app from the domains' route tables. Mounting under both
 * prefixes happens here, once: `/api/v1` (canonical) and the legacy `/api`
 * for shared routes, `/api/v1` alone for v1-only routes, and the origin root
 * for root routes.
 *
 * Fastify rather than express: the /info throughput budget (at least half of
 * a bare node:http server) is out of express's reach (measured 0.14); fastify
 * with our hooks measured above 0.6.
 */

export const BODY_LIMIT_BYTES = 1024 * 1024;

function refuseRouteSchemas(): never {
  throw new Error('route JSON schemas are not used here: validate the request with zod in the handler');
}

/** One registered route, as the API docs list it (HEAD routes fastify adds for GETs are left out). */
export interface RegisteredRoute {
  method: string;
  /** The full path with its mount prefix, fastify syntax (`/api/v1/auth/tokens/:id`). */
  url: string;
  preHandlers: readonly unknown[];
}

const routeCatalogs = new WeakMap<FastifyInstance, RegisteredRoute[]>();

/** Every route of an app createApp built, complete once the app is ready (GET /docs/openapi.json). */
export function registeredRoutes(app: FastifyInstance): readonly RegisteredRoute[] {
  return routeCatalogs.get(app) ?? [];
}

/** Runs on every request before routing decides anything (the auth gate). */
export type RequestGate = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

export interface AppOptions {
  gate?: RequestGate;
  /** Timeouts and connection caps (limits.ts); defaults from this process's descriptor limit. */
  limits?: HttpLimits;
  /** The client address the caps count by (the derived one behind trusted proxies); the TCP peer when absent. */
  clientOf?: (request: FastifyRequest) => string;
  /** A peer that relays many clients (not capped per peer). */
  isTrustedProxy?: (peer: string) => boolean;
}

export function createApp(
  logger: Logger,
  metrics: Metrics,
  domains: DomainRoutes[],
  options: AppOptions = {},
): FastifyInstance {
  const limits = options.limits ?? defaultHttpLimits();
  const app = Fastify({
    loggerInstance: logger.child({ module: 'http' }) as FastifyBaseLogger,
    // Our onResponse hook logs requests (successes at debug); fastify's own lines are off.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'req_id' }),
    // The id is chosen and echoed before fastify sees the request (see serveWithRequestIds).
    genReqId: (req) => (req as RequestWithId)[REQUEST_ID] ?? requestIdOf(req),
    serverFactory: (handler) => serveWithRequestIds(handler, limits),
    // One child logger per request costs more than the /info handler itself; log lines that
    // concern a request carry its id explicitly (errors.ts, request-context.ts).
    childLoggerFactory: (logger) => logger,
    bodyLimit: BODY_LIMIT_BYTES,
    // Keep-alive sockets must not hold up a graceful stop.
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    // HEAD is routed as GET by the node server (head-as-get.ts): no second route per GET.
    exposeHeadRoutes: false,
    // Requests are validated with zod and answers serialised with JSON.stringify:
    // route JSON schemas are not used, so ajv and fast-json-stringify never load.
    schemaController: {
      compilersFactory: { buildValidator: refuseRouteSchemas, buildSerializer: refuseRouteSchemas },
    },
  });
  installRequestContext(app, metrics);
  installCompression(app);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);
  guardConnections(app.server, limits, options.isTrustedProxy ?? (() => false));
  installBoundedJsonParser(app);
  const bodies = new BodyAdmission(limits);
  const shedBodies = new ShedReport(
    logger.child({ module: 'http' }),
    'request bodies: too many arriving at once',
  );
  const clientOf = options.clientOf ?? ((request: FastifyRequest) => request.raw.socket.remoteAddress ?? '');
  const gate = options.gate;
  // One hook for both: every hook fastify runs costs /info throughput.
  app.addHook('onRequest', async (request, reply) => {
    if (hasBody(request) && !bodies.admit(request, reply, clientOf(request))) {
      shedBodies.refuse(request);
      reply.header('Retry-After', String(RETRY_BUSY_AFTER_S));
      throw serverBusy();
    }
    if (gate) await gate(request, reply);
  });
  const catalog: RegisteredRoute[] = [];
  routeCatalogs.set(app, catalog);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD')
        catalog.push({ method, url: route.url, preHandlers: [route.preHandler ?? []].flat() });
    }
  });

  for (const domain of domains) domain.root?.(app);
  for (const prefix of [API_PREFIX, LEGACY_API_PREFIX]) {
    void app.register(
      async (scope) => {
        for (const domain of domains) domain.shared?.(scope);
        if (prefix === API_PREFIX) for (const domain of domains) domain.v1Only?.(scope);
      },
      { prefix },
    );
  }
  return app;
}

/**
 * fastify's own JSON parser (prototype poisoning refused as before) behind a
 * nesting check on the raw text: a body nested past MAX_NESTING is refused
 * with 400 `json_too_deep` before anything walks it (core/nesting.ts).
 */
function installBoundedJsonParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'ignore');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (jsonTextTooDeep(text)) {
      done(
        new ApiError(400, 'json_too_deep', `the JSON body nests deeper than ${MAX_NESTING} levels`),
        undefined,
      );
      return;
    }
    parse(request, text, done);
  });
}
