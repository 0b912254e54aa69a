import type { FastifyRequest } from 'fastify';
import { BboxError, parseBbox, type Bbox } from '../../radar/bbox';
import type { RadarService } from '../../radar/radar-service';
import { RadarUpstreamError } from '../../radar/upstream';
import { ApiError, badRequest } from '../errors';
import type { RouteHandler } from '../lazy-handlers';

/**
 * The handlers of /radar/* (spec 4.7; the route table is routes/radar.ts).
 * This module, the bbox parser and the upstream errors load on the first
 * radar request, as the radar service does.
 */

type RadarRoute = 'windgrid' | 'precip' | 'tropical';

export function radarHandlers(radar: () => RadarService): Record<RadarRoute, RouteHandler> {
  return {
    windgrid: async (request) => {
      const bbox = bboxOf(request);
      return upstream(() => radar().windGrid(bbox));
    },
    precip: async (request) => {
      const bbox = bboxOf(request);
      return upstream(() => radar().precipFrames(bbox));
    },
    tropical: async () => upstream(() => radar().tropical()),
  };
}

function bboxOf(request: FastifyRequest): Bbox {
  const query = (request.query ?? {}) as Record<string, unknown>;
  try {
    return parseBbox(query.bbox);
  } catch (err) {
    if (err instanceof BboxError) throw badRequest(err.code, err.message);
    throw err;
  }
}

async function upstream<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof RadarUpstreamError) {
      throw new ApiError(502, 'radar_upstream_failed', err.message, { upstream: err.upstream });
    }
    throw err;
  }
}
