import { ElevationUnavailable } from '../../location/elevation';
import { timezoneAt } from '../../location/timezone';
import type { DomainRoutes, HttpDeps } from '../deps';
import { ApiError } from '../errors';
import { queryNumber } from '../query';

const CONFIGURED_ZOOM = 11;
const WORLD_ZOOM = 2;

/**
 * Where the map starts (`source` says which): deployment.location from the
 * config, else the LAT/LON environment (an explicit operator or add-on
 * option), else Home Assistant's home (get_config), else nothing (world view).
 */
export function mapLocation(deps: Pick<HttpDeps, 'config' | 'env' | 'ha'>): {
  lat: number | null;
  lon: number | null;
  zoom: number;
  source: 'config' | 'environment' | 'home_assistant' | 'none';
} {
  const location = deps.config.current?.config.deployment.location;
  if (location) return { lat: location.lat, lon: location.lon, zoom: CONFIGURED_ZOOM, source: 'config' };
  if (deps.env.lat !== null && deps.env.lon !== null) {
    return { lat: deps.env.lat, lon: deps.env.lon, zoom: CONFIGURED_ZOOM, source: 'environment' };
  }
  const facts = deps.ha?.facts() ?? null;
  if (facts && facts.latitude !== null && facts.longitude !== null) {
    return { lat: facts.latitude, lon: facts.longitude, zoom: CONFIGURED_ZOOM, source: 'home_assistant' };
  }
  return { lat: deps.env.lat, lon: deps.env.lon, zoom: WORLD_ZOOM, source: 'none' };
}

/** GET /location, /location/timezone, /location/elevation. */
export function locationRoutes(deps: HttpDeps): DomainRoutes {
  return {
    shared: (scope) => {
      scope.get('/location', async () => mapLocation(deps));

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
