import { ElevationUnavailable } from '../../location/elevation';
import { timezoneAt } from '../../location/timezone';
import type { DomainRoutes, HttpDeps } from '../deps';
import { ApiError } from '../errors';
import { queryNumber } from '../query';

const CONFIGURED_ZOOM = 11;
const WORLD_ZOOM = 2;

/** GET /location, /location/timezone, /location/elevation. */
export function locationRoutes(deps: HttpDeps): DomainRoutes {
  return {
    shared: (scope) => {
      scope.get('/location', async () => {
        const location = deps.config.current?.config.deployment.location;
        const lat = location?.lat ?? deps.env.lat;
        const lon = location?.lon ?? deps.env.lon;
        const known = lat !== null && lon !== null;
        return {
          lat,
          lon,
          zoom: known ? CONFIGURED_ZOOM : WORLD_ZOOM,
          source: location ? 'config' : known ? 'environment' : 'none',
        };
      });

      scope.get('/location/timezone', async (request) => {
        const lat = queryNumber(request, 'lat', -90, 90);
        const lon = queryNumber(request, 'lon', -180, 180);
        return { lat, lon, timezone: timezoneAt(lat, lon) };
      });

      scope.get('/location/elevation', async (request) => {
        const lat = queryNumber(request, 'lat', -90, 90);
        const lon = queryNumber(request, 'lon', -180, 180);
        try {
          return { elevation_m: await deps.elevation.elevationM(lat, lon) };
        } catch (err) {
          if (err instanceof ElevationUnavailable)
            throw new ApiError(502, 'elevation_upstream_failed', err.message);
          throw err;
        }
      });
    },
  };
}
