import tzlookup from '@photostructure/tz-lookup';

/**
 * Offline IANA time zone from coordinates (a maintained, bundled boundary
 * table: no network, no upstream). Used when `deployment.timezone` is unset.
 */
export function timezoneAt(lat: number, lon: number): string {
  return tzlookup(lat, lon);
}
