/**
 * The radar endpoints' `bbox=minLon,minLat,maxLon,maxLat` (spec 4.7) and the
 * 8x8 grid laid over it.
 *
 * Grid points are the bbox's CORNERS, not cell centres: column 0 sits on
 * minLon and column 7 on maxLon, row 0 on maxLat and row 7 on minLat, so the
 * grid covers the bbox edge to edge. A renderer that interpolates between grid
 * points (leaflet-velocity does, bilinearly) then has data over the whole map
 * view; with cell centres the outer half-cell on every side would be blank.
 * Every point lies inside the requested bbox ("clamped to the bbox").
 *
 * Order is GRIB scan mode 0, what grib2json and leaflet-velocity read: rows
 * north to south, within a row west to east; value index = row * nx + col.
 *
 * Before the grid is laid, the bbox is snapped INWARD to 0.01 degree (about
 * 1 km): map views that differ by a few pixels share one grid and one cache
 * entry, and the snapped grid still lies inside the requested bbox. A bbox too
 * narrow to snap (under about 0.02 degree) is used as given.
 *
 * A bbox that crosses the antimeridian (minLon > maxLon) is refused as
 * inverted: a client split it in two.
 */

export const GRID_SIZE = 8;
/** Largest span, in degrees, on either axis. */
export const MAX_SPAN_DEG = 20;
/** Cache-sharing quantum, in degrees. */
export const SNAP_DEG = 0.01;

export type BboxErrorCode =
  'bbox_missing' | 'bbox_malformed' | 'bbox_out_of_range' | 'bbox_inverted' | 'bbox_too_large';

/** A bbox the caller got wrong; the routes answer 400 with `code`. */
export class BboxError extends Error {
  constructor(
    readonly code: BboxErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface Bbox {
  minLon: number;
  minLat: number;
  maxLon: number;
  maxLat: number;
}

/** A plain decimal: no hex, no Infinity, no empty string (which Number() would take as 0). */
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** Parses the query value; `undefined` (absent) and blank are `bbox_missing`, a repeated parameter is malformed. */
export function parseBbox(raw: unknown): Bbox {
  if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) {
    throw new BboxError('bbox_missing', 'query parameter "bbox" (minLon,minLat,maxLon,maxLat) is required');
  }
  if (typeof raw !== 'string') {
    throw new BboxError('bbox_malformed', 'query parameter "bbox" must appear once');
  }
  const parts = raw.split(',').map((part) => part.trim());
  if (parts.length !== 4 || parts.some((part) => !DECIMAL.test(part))) {
    throw new BboxError('bbox_malformed', 'bbox must be four numbers: minLon,minLat,maxLon,maxLat');
  }
  const [minLon, minLat, maxLon, maxLat] = parts.map(Number) as [number, number, number, number];
  if ([minLon, minLat, maxLon, maxLat].some((n) => !Number.isFinite(n))) {
    throw new BboxError('bbox_malformed', 'bbox must be four finite numbers');
  }
  const lonOk = (n: number) => n >= -180 && n <= 180;
  const latOk = (n: number) => n >= -90 && n <= 90;
  if (!lonOk(minLon) || !lonOk(maxLon) || !latOk(minLat) || !latOk(maxLat)) {
    throw new BboxError('bbox_out_of_range', 'bbox longitudes must be in -180..180 and latitudes in -90..90');
  }
  if (minLon >= maxLon || minLat >= maxLat) {
    throw new BboxError(
      'bbox_inverted',
      'bbox minimums must be below maximums (minLon < maxLon, minLat < maxLat; split a bbox that crosses the antimeridian)',
    );
  }
  if (maxLon - minLon > MAX_SPAN_DEG || maxLat - minLat > MAX_SPAN_DEG) {
    throw new BboxError('bbox_too_large', `bbox may span at most ${MAX_SPAN_DEG} degrees on each axis`);
  }
  return { minLon, minLat, maxLon, maxLat };
}

/** Rounds away float noise (0.1 + 0.2) and negative zero. */
export function round(value: number, places: number): number {
  const rounded = Number(value.toFixed(places));
  return Object.is(rounded, -0) ? 0 : rounded;
}

function snapAxis(min: number, max: number): [number, number] {
  // The epsilon keeps an edge already on the quantum (37.2 / 0.01 = 3719.9999...) where it is.
  const lo = round(Math.ceil(min / SNAP_DEG - 1e-6) * SNAP_DEG, 2);
  const hi = round(Math.floor(max / SNAP_DEG + 1e-6) * SNAP_DEG, 2);
  return hi - lo >= SNAP_DEG ? [lo, hi] : [min, max];
}

/** The bbox the grid is laid on: snapped inward to SNAP_DEG (see the module comment). */
export function snapBbox(bbox: Bbox): Bbox {
  const [minLon, maxLon] = snapAxis(bbox.minLon, bbox.maxLon);
  const [minLat, maxLat] = snapAxis(bbox.minLat, bbox.maxLat);
  return { minLon, minLat, maxLon, maxLat };
}

/** A stable string for a snapped bbox (the cache key). */
export function bboxKey(bbox: Bbox): string {
  return [bbox.minLon, bbox.minLat, bbox.maxLon, bbox.maxLat].map((n) => n.toFixed(6)).join(',');
}

export interface GridPoint {
  lat: number;
  lon: number;
}

/** An nx x ny grid of corner points, GRIB scan mode 0 (see the module comment). */
export interface Grid {
  nx: number;
  ny: number;
  /** Longitude of the first column (west edge). */
  lo1: number;
  /** Latitude of the first row (north edge). */
  la1: number;
  /** Longitude of the last column (east edge). */
  lo2: number;
  /** Latitude of the last row (south edge). */
  la2: number;
  /** Degrees between columns. */
  dx: number;
  /** Degrees between rows (positive; rows go south). */
  dy: number;
  /** Column longitudes, west to east. */
  lons: number[];
  /** Row latitudes, north to south. */
  lats: number[];
  /** All points in value order: index = row * nx + col. */
  points: GridPoint[];
}

const PLACES = 6;

/** Lays the grid on the bbox as given (callers snap first). */
export function gridFor(bbox: Bbox, size = GRID_SIZE): Grid {
  const dx = (bbox.maxLon - bbox.minLon) / (size - 1);
  const dy = (bbox.maxLat - bbox.minLat) / (size - 1);
  const lons = Array.from({ length: size }, (_, i) =>
    i === size - 1 ? bbox.maxLon : round(bbox.minLon + i * dx, PLACES),
  );
  const lats = Array.from({ length: size }, (_, j) =>
    j === size - 1 ? bbox.minLat : round(bbox.maxLat - j * dy, PLACES),
  );
  // Rounding to 6 decimals (0.1 m) may not push an interior point past an edge; clamp to be sure.
  const clampLon = (n: number) => Math.min(bbox.maxLon, Math.max(bbox.minLon, n));
  const clampLat = (n: number) => Math.min(bbox.maxLat, Math.max(bbox.minLat, n));
  const cols = lons.map(clampLon);
  const rows = lats.map(clampLat);
  return {
    nx: size,
    ny: size,
    lo1: bbox.minLon,
    la1: bbox.maxLat,
    lo2: bbox.maxLon,
    la2: bbox.minLat,
    dx: round(dx, PLACES),
    dy: round(dy, PLACES),
    lons: cols,
    lats: rows,
    points: rows.flatMap((lat) => cols.map((lon) => ({ lat, lon }))),
  };
}
