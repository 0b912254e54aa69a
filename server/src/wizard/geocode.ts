import { describeFetchFailure, WizardError } from './wizard-error';

/**
 * GET /wizard/geocode: an address to up to 5 candidates `{display_name, lat,
 * lon}` (strings, as the geocoder sends them) from Nominatim's search API
 * (`format=jsonv2&limit=5`). Nominatim's usage policy asks for an identifying
 * User-Agent, which every request carries (`raincheck/<version> (<repo>)`).
 * The base URL is `RAINCHECK_GEOCODER_URL` when set (a self-hosted Nominatim;
 * tests point it at a loopback peer). Any failure is 502 `geocode_failed`.
 */

export const NOMINATIM_SEARCH_URL = 'https://nominatim.openstreetmap.org/search';
export const GEOCODE_LIMIT = 5;
export const GEOCODE_TIMEOUT_MS = 8000;

export interface GeocodeCandidate {
  display_name: string;
  lat: string;
  lon: string;
}

export interface GeocodeDeps {
  fetch: typeof fetch;
  baseUrl: string;
  userAgent: string;
  timeoutMs?: number;
}

export async function geocode(deps: GeocodeDeps, query: string): Promise<GeocodeCandidate[]> {
  const timeoutMs = deps.timeoutMs ?? GEOCODE_TIMEOUT_MS;
  const url = new URL(deps.baseUrl);
  url.searchParams.set('format', 'jsonv2');
  url.searchParams.set('limit', String(GEOCODE_LIMIT));
  url.searchParams.set('q', query);
  let response: Response;
  try {
    response = await deps.fetch(url.href, {
      headers: { 'user-agent': deps.userAgent, accept: 'application/json' },
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    throw new WizardError(
      502,
      'geocode_failed',
      `the geocoding service is unreachable: ${describeFetchFailure(err, timeoutMs)}`,
    );
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new WizardError(502, 'geocode_failed', `the geocoding service answered HTTP ${response.status}`);
  }
  const body: unknown = await response.json().catch(() => undefined);
  if (!Array.isArray(body)) {
    throw new WizardError(
      502,
      'geocode_failed',
      'the geocoding service answered something other than a list',
    );
  }
  return body.flatMap(candidate).slice(0, GEOCODE_LIMIT);
}

/** Keeps entries with a name and numeric coordinates; numbers are passed on as strings. */
function candidate(item: unknown): GeocodeCandidate[] {
  if (typeof item !== 'object' || item === null) return [];
  const { display_name, lat, lon } = item as Record<string, unknown>;
  const latText = coordinate(lat);
  const lonText = coordinate(lon);
  if (typeof display_name !== 'string' || latText === null || lonText === null) return [];
  return [{ display_name, lat: latText, lon: lonText }];
}

function coordinate(value: unknown): string | null {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  return text !== '' && Number.isFinite(Number(text)) ? text : null;
}
