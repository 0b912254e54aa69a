import { Router } from 'express';
import { ElevationUnavailable } from '../../location/elevation';
import { timezoneAt } from '../../location/timezone';
import type { DomainRoutes, HttpDeps } from '../deps';
import { ApiError } from '../errors';
import { queryNumber } from '../query';

const CONFIGURED_ZOOM = 11;
const WORLD_ZOOM = 2;

/** GET /location, /location/timezone, /location/elevation. */
export function locationRoutes(deps: HttpDeps): DomainRoutes {
  const shared = Router();

  shared.get('/location', (_req, res) => {
    const location = deps.config.current?.config.deployment.location;
    const lat = location?.lat ?? deps.env.lat;
    const lon = location?.lon ?? deps.env.lon;
    const known = lat !== null && lon !== null;
    res.json({
      lat,
      lon,
      zoom: known ? CONFIGURED_ZOOM : WORLD_ZOOM,
      source: location ? 'config' : known ? 'environment' : 'none',
    });
  });

  shared.get('/location/timezone', (req, res) => {
    const lat = queryNumber(req, 'lat', -90, 90);
    const lon = queryNumber(req, 'lon', -180, 180);
    res.json({ lat, lon, timezone: timezoneAt(lat, lon) });
  });

  shared.get('/location/elevation', async (req, res) => {
    const lat = queryNumber(req, 'lat', -90, 90);
    const lon = queryNumber(req, 'lon', -180, 180);
    try {
      res.json({ elevation_m: await deps.elevation.elevationM(lat, lon) });
    } catch (err) {
      if (err instanceof ElevationUnavailable)
        throw new ApiError(502, 'elevation_upstream_failed', err.message);
      throw err;
    }
  });

  return { shared };
}
