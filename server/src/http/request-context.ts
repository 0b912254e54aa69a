import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Logger } from '../core/logger';
import { maskUrlSecrets } from '../core/log-masking';
import type { Metrics } from '../core/metrics';
import type { HttpLimits } from './limits';
import { isShed } from './load-shedding';
import { normalizeRequestTarget } from './request-target';
import { routeHeadAsGet, sentMethod } from './head-as-get';

/**
 * Request ids and request logs. Each request's id is the client's
 * `X-Service-Request-Id` when it sent a sane one, else a new uuid; it is echoed
 * in the response header and carried by every log line of the request
 * (`req_id`). Completed requests log at debug when they succeed so the HA
 * sidebar's polling does not flood the add-on log.
 */

export const REQUEST_ID_HEADER = 'X-Service-Request-Id';
const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdOf(req: IncomingMessage): string {
  const sent = req.headers['x-service-request-id'];
  return typeof sent === 'string' && SANE_ID.test(sent) ? sent : randomUUID();
}

export const REQUEST_ID = Symbol('raincheck.requestId');
export type RequestWithId = IncomingMessage & { [REQUEST_ID]?: string };

/**
 * The node server under fastify: gives each request its id and sets the
 * response header before routing, so every answer carries it (errors, 404s,
 * hijacked SSE streams) without a per-request hook; normalises the request
 * target once for the gate and the router alike (request-target.ts); routes
 * HEAD as GET (head-as-get.ts); and
 * times out requests whose head or body does not arrive (node answers 408).
 */
export function serveWithRequestIds(
  handler: RequestListener,
  limits: Pick<HttpLimits, 'requestTimeoutMs' | 'headersTimeoutMs' | 'timeoutCheckMs'>,
): Server {
  const options = {
    requestTimeout: limits.requestTimeoutMs,
    headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
    connectionsCheckingInterval: limits.timeoutCheckMs,
  };
  return createServer(options, (req, res) => {
    if (req.url) req.url = normalizeRequestTarget(req.url);
    routeHeadAsGet(req);
    const id = requestIdOf(req);
    (req as RequestWithId)[REQUEST_ID] = id;
    res.setHeader(REQUEST_ID_HEADER, id);
    handler(req, res);
  });
}

/** Query values that are credentials (`access_token`, `PASSKEY`, a webhook `token`) never reach a log line. */
export function withoutSecrets(url: string): string {
  return maskUrlSecrets(url);
}

export function installRequestContext(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    const status = reply.statusCode;
    metrics.countRequest(sentMethod(request.raw), status);
    // Load shedding is summarised once a minute (load-shedding.ts), not logged a line per refusal.
    const level = isShed(request) ? 'debug' : status >= 500 ? 'error' : status >= 400 ? 'info' : 'debug';
    // The instance is pino (main.ts passes it in), which can say whether a level is on.
    if ((request.log as Logger).isLevelEnabled(level)) {
      const line = {
        method: sentMethod(request.raw),
        url: withoutSecrets(request.url),
        status,
        ms: Math.round(reply.elapsedTime * 10) / 10,
      };
      request.log[level](
        line,
        status >= 500 ? 'request failed' : status >= 400 ? 'request refused' : 'request',
      );
    }
    done();
  });
}
