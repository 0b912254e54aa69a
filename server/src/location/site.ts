import type { AppliedConfig } from '../config/config-types';
import { resolveTimezone } from './timezone';

/**
 * The deployment's site as the runtime uses it: the config's own values,
 * with what it leaves unset filled from Home Assistant's location facts
 * (ha/ha-facts.ts). The one place these fallbacks are decided:
 *
 * - time zone: `deployment.timezone`, else HA's `time_zone`, else the
 *   offline lookup at the deployment's lat/lon (location/timezone.ts);
 * - elevation: `deployment.location.elevation_m`, else HA's `elevation`
 *   (within the config's -500..9000 m range), else none.
 *
 * HA's facts describe HA's home. They fill the deployment's gaps only when
 * the deployment is at that home (HA's coordinates within
 * SITE_FALLBACK_RADIUS_KM of deployment.location): an install watering a
 * second property far away must not take HA's time zone or elevation.
 *
 * The weather, forecast and irrigation services read the config through
 * `siteConfigProvider`, so every local day, forecast request and ET0 uses the
 * same site; the stored config and GET /config are untouched.
 */

/** Facts about the site from outside the config: Home Assistant's get_config (ha/ha-facts.ts). */
export interface SiteFacts {
  latitude: number | null;
  longitude: number | null;
  /** Metres, as HA's `elevation` (HA stores metres whatever its unit system). */
  elevation_m: number | null;
  /** IANA name; null when HA's answer is not a zone this service knows. */
  time_zone: string | null;
  /** When these facts were read, epoch seconds. */
  read_epoch: number;
}

export const SITE_FALLBACK_RADIUS_KM = 10;
const ELEVATION_RANGE_M = { min: -500, max: 9000 } as const;

/** The config with its unset timezone / elevation filled from HA's facts; the same object when nothing is filled. Pure. */
export function withSiteFallbacks(applied: AppliedConfig, facts: SiteFacts | null): AppliedConfig {
  if (!facts) return applied;
  const deployment = applied.config.deployment;
  const { location } = deployment;
  if (!nearby(facts, location.lat, location.lon)) return applied;
  const timezone = deployment.timezone ?? facts.time_zone ?? null;
  const elevation = location.elevation_m ?? usableElevation(facts.elevation_m);
  if (timezone === (deployment.timezone ?? null) && elevation === (location.elevation_m ?? null))
    return applied;
  return {
    ...applied,
    config: {
      ...applied.config,
      deployment: { ...deployment, timezone, location: { ...location, elevation_m: elevation } },
    },
  };
}

/** The deployment's IANA time zone with the HA fallback: configured, else HA's (when nearby), else the lookup. */
export function siteTimezone(applied: AppliedConfig, facts: SiteFacts | null): string {
  const { location, timezone } = withSiteFallbacks(applied, facts).config.deployment;
  return resolveTimezone(timezone ?? null, location.lat, location.lon);
}

/**
 * `() => AppliedConfig | null` with the fallbacks applied, returning the same
 * object while neither the config nor the facts changed (services compare
 * what they read).
 */
export function siteConfigProvider(
  config: () => AppliedConfig | null,
  facts: () => SiteFacts | null,
): () => AppliedConfig | null {
  let cache: { applied: AppliedConfig; facts: SiteFacts | null; site: AppliedConfig } | null = null;
  return () => {
    const applied = config();
    if (!applied) return null;
    const current = facts();
    if (cache?.applied !== applied || cache.facts !== current) {
      cache = { applied, facts: current, site: withSiteFallbacks(applied, current) };
    }
    return cache.site;
  };
}

function nearby(facts: SiteFacts, lat: number, lon: number): boolean {
  if (facts.latitude === null || facts.longitude === null) return false;
  return distanceKm(facts.latitude, facts.longitude, lat, lon) <= SITE_FALLBACK_RADIUS_KM;
}

function usableElevation(value: number | null): number | null {
  return value !== null && value >= ELEVATION_RANGE_M.min && value <= ELEVATION_RANGE_M.max ? value : null;
}

/** Great-circle distance (haversine, mean Earth radius). */
export function distanceKm(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const rad = Math.PI / 180;
  const dLat = (lat2 - lat1) * rad;
  const dLon = (lon2 - lon1) * rad;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * 6371.0088 * Math.asin(Math.min(1, Math.sqrt(a)));
}
