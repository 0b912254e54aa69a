import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { validZone } from './zone-clock';

/**
 * The yard's time zone: every time the app shows is the yard's local time,
 * whatever zone the browser is in (a phone travelling, HA opened from
 * elsewhere). The snapshots carry it (`timezone`, resolved by the service);
 * before a page has one, the app-wide value from the config (or the offline
 * lookup at the configured location) stands in.
 */

export const YardZoneContext = createContext<string | null>(null);

/** The snapshot's zone when the page has one, else the app-wide one; undefined: the browser's. */
export function useYardZone(fromSnapshot?: string | null): string | undefined {
  const appWide = useContext(YardZoneContext);
  return validZone(fromSnapshot) ?? validZone(appWide) ?? undefined;
}

export { browserZone, differsFromBrowser } from './zone-clock';
