import { isRecord } from './upstream';

/**
 * Active tropical cyclones from the US National Hurricane Center's
 * `https://www.nhc.noaa.gov/CurrentStorms.json` (Atlantic, eastern and
 * central Pacific; CPHC storms appear there too). The document is
 * `{activeStorms: [...]}`, empty out of season. Per storm:
 *
 * - `id` (ATCF id, e.g. `al052026`), `binNumber` (`AT5`), `name`,
 *   `classification` (code: `TD`, `TS`, `HU`, `STS`, ...),
 * - `intensity` (max sustained wind, knots, as a string), `pressure` (minimum
 *   central pressure, mb, as a string),
 * - `latitudeNumeric` / `longitudeNumeric` (degrees, west negative; also
 *   `latitude` / `longitude` as text like `24.5N`),
 * - `movementDir` (degrees, the way the storm moves), `movementSpeed` (mph),
 * - `lastUpdate` (ISO 8601 UTC),
 * - product objects `{advNum, issuance, fileUpdateTime, url | zipFile | kmzFile}`:
 *   `publicAdvisory`, `forecastAdvisory`, `forecastDiscussion`, `forecastGraphics`,
 *   `forecastTrack`, `trackCone`, `windWatchesWarnings`, `bestTrackGIS`, ...
 *
 * Each storm becomes a GeoJSON Point feature of `kind: 'position'`. Forecast
 * tracks, cones and past tracks are published only as shapefile ZIPs and KMZ
 * files: their URLs are passed on in the properties (`*_kmz_url`,
 * `*_zip_url`) but NOT fetched or parsed here, so the collection carries no
 * track or cone geometry of its own.
 */

export const NHC_DEFAULT_BASE_URL = 'https://www.nhc.noaa.gov';
export const NHC_CURRENT_STORMS_PATH = '/CurrentStorms.json';

export interface PointFeature {
  type: 'Feature';
  id: string;
  geometry: { type: 'Point'; coordinates: [number, number] };
  properties: Record<string, unknown>;
}

/** The storm list could not be read at all (the agency counts as failed). */
export class TropicalFormatError extends Error {}

const KNOT_MPH = 1.150779;
const NUMERIC = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)\s*$/;

/** A number, or a numeric string (NHC sends intensity and pressure as text); else null. */
function numeric(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && NUMERIC.test(value)) return Number(value);
  return null;
}

function text(value: unknown, max = 80): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim().slice(0, max) : null;
}

/** Only http(s) links are passed on: a map popup must never get a `javascript:` URL. */
function link(product: unknown, key: string): string | null {
  if (!isRecord(product)) return null;
  const value = product[key];
  if (typeof value !== 'string') return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.toString() : null;
  } catch {
    return null;
  }
}

function epochOf(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : null;
}

/** Storms without a usable position cannot be drawn and are left out. */
export function parseNhcCurrentStorms(body: unknown, agency: string): PointFeature[] {
  if (!isRecord(body) || !Array.isArray(body.activeStorms)) {
    throw new TropicalFormatError(`${agency} answer has no activeStorms list`);
  }
  const features: PointFeature[] = [];
  for (const storm of body.activeStorms) {
    if (!isRecord(storm)) continue;
    const id = text(storm.id, 16);
    const lat = numeric(storm.latitudeNumeric);
    const lon = numeric(storm.longitudeNumeric);
    if (id === null || lat === null || lon === null) continue;
    if (lat < -90 || lat > 90 || lon < -180 || lon > 180) continue;
    const kt = numeric(storm.intensity);
    const advisory = isRecord(storm.publicAdvisory) ? text(storm.publicAdvisory.advNum, 8) : null;
    features.push({
      type: 'Feature',
      id: `${agency.toLowerCase()}:${id.toLowerCase()}`,
      geometry: { type: 'Point', coordinates: [lon, lat] },
      properties: {
        kind: 'position',
        agency,
        storm_id: id.toLowerCase(),
        bin_number: text(storm.binNumber, 8),
        name: text(storm.name),
        classification: text(storm.classification, 8),
        intensity_kt: kt,
        intensity_mph: kt === null ? null : Math.round(kt * KNOT_MPH),
        pressure_mb: numeric(storm.pressure),
        movement_dir_deg: numeric(storm.movementDir),
        movement_speed_mph: numeric(storm.movementSpeed),
        last_update_epoch: epochOf(storm.lastUpdate),
        advisory_number: advisory,
        public_advisory_url: link(storm.publicAdvisory, 'url'),
        forecast_graphics_url: link(storm.forecastGraphics, 'url'),
        forecast_track_kmz_url: link(storm.forecastTrack, 'kmzFile'),
        forecast_track_zip_url: link(storm.forecastTrack, 'zipFile'),
        cone_kmz_url: link(storm.trackCone, 'kmzFile'),
        cone_zip_url: link(storm.trackCone, 'zipFile'),
        watches_warnings_kmz_url: link(storm.windWatchesWarnings, 'kmzFile'),
        watches_warnings_zip_url: link(storm.windWatchesWarnings, 'zipFile'),
        best_track_kmz_url: link(storm.bestTrackGIS, 'kmzFile'),
        best_track_zip_url: link(storm.bestTrackGIS, 'zipFile'),
      },
    });
  }
  return features;
}
