import type { FastifyRequest } from 'fastify';
import { BboxError, parseBbox, type Bbox } from '../../radar/bbox';
import type { RadarService } from '../../radar/radar-service';
import { RadarUpstreamError } from '../../radar/upstream';
import type { DomainRoutes } from '../deps';
import { ApiError, badRequest } from '../errors';

/**
 * GET /radar/windgrid, /radar/precip, /radar/tropical (spec 4.7, v1-only).
 * A bad bbox answers 400 with `bbox_missing`, `bbox_malformed`,
 * `bbox_out_of_range`, `bbox_inverted` or `bbox_too_large`; an upstream
 * failure with nothing cached to fall back on answers 502
 * `radar_upstream_failed` (body field `upstream` names the provider).
 */
export function radarRoutes(radarService: RadarService | (() => RadarService)): DomainRoutes {
  const radar = typeof radarService === 'function' ? radarService : () => radarService;
  return {
    v1Only: (scope) => {
      scope.get('/radar/windgrid', async (request) => {
        const bbox = bboxOf(request);
        return upstream(() => radar().windGrid(bbox));
      });

      scope.get('/radar/precip', async (request) => {
        const bbox = bboxOf(request);
        return upstream(() => radar().precipFrames(bbox));
      });

      scope.get('/radar/tropical', async () => upstream(() => radar().tropical()));
    },
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
