import type { AppliedConfig } from '../../config/config-types';
import { resolveTimezone } from '../../location/timezone';

/**
 * The deployment's IANA time zone, the same way the irrigation service reads it
 * (configured, else derived from lat/lon), so history names the local days the
 * engine decided on. UTC before any config exists.
 */
export function deploymentTimezone(applied: AppliedConfig | null): string {
  if (!applied) return 'UTC';
  const { location, timezone } = applied.config.deployment;
  return resolveTimezone(timezone ?? null, location.lat, location.lon);
}
