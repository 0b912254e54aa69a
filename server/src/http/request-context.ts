import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from '../core/logger';

/**
 * Gives every request an id (the client's `X-Service-Request-Id` when it sent
 * a sane one) echoed in the response header and carried by every log line of
 * that request, and logs its completion: successes at debug so the HA sidebar's
 * polling does not flood the add-on log.
 */

declare module 'express-serve-static-core' {
  interface Request {
    requestId: string;
    log: Logger;
  }
}

export const REQUEST_ID_HEADER = 'X-Service-Request-Id';
const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestContext(logger: Logger): RequestHandler {
  const log = logger.child({ module: 'http' });
  return (req, res, next) => {
    const sent = req.get(REQUEST_ID_HEADER);
    req.requestId = sent && SANE_ID.test(sent) ? sent : randomUUID();
    req.log = log.child({ req_id: req.requestId });
    res.setHeader(REQUEST_ID_HEADER, req.requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const line = {
        method: req.method,
        path: req.path,
        status: res.statusCode,
        ms: Math.round(ms * 10) / 10,
      };
      if (res.statusCode >= 500) req.log.error(line, 'request failed');
      else if (res.statusCode >= 400) req.log.info(line, 'request refused');
      else req.log.debug(line, 'request');
    });
    next();
  };
}
