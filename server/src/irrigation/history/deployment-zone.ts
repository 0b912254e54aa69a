import type { AppliedConfig } from '../../config/config-types';
import { siteTimezone, type SiteFacts } from '../../location/site';

/**
 * The deployment's IANA time zone, the same way the irrigation service reads it
 * (configured, else Home Assistant's when HA sits at the deployment, else
 * derived from lat/lon: location/site.ts), so history names the local days
 * the engine decided on. UTC before any config exists.
 */
export function deploymentTimezone(applied: AppliedConfig | null, haFacts: SiteFacts | null = null): string {
  if (!applied) return 'UTC';
  return siteTimezone(applied, haFacts);
}
