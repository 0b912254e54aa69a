/**
 * Offline IANA time zone from coordinates (a maintained, bundled boundary
 * table: no network, no upstream). Used when `deployment.timezone` is unset.
 * The table loads on first use: most boots never need it.
 */

type Lookup = (lat: number, lon: number) => string;
let lookup: Lookup | null = null;

export function timezoneAt(lat: number, lon: number): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  lookup ??= require('@photostructure/tz-lookup') as Lookup;
  return lookup(lat, lon);
}

/** The deployment's time zone: the configured IANA name, else the one at its coordinates. */
export function resolveTimezone(configured: string | null, lat: number, lon: number): string {
  return configured ?? timezoneAt(lat, lon);
}
