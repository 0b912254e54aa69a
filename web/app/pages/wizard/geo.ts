/**
 * The wizard map's geometry: an equirectangular world 360 x 180 units
 * (x = longitude + 180, y = 90 - latitude) viewed through a zoomable window.
 * Pure (unit-tested).
 */

export const WORLD_W = 360;
export const WORLD_H = 180;
export const ZOOMS = [1, 2, 4, 8, 16] as const;

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

export function toXY(lat: number, lon: number): { x: number; y: number } {
  return { x: lon + 180, y: 90 - lat };
}

/** Rounds a coordinate to `digits` decimals (4 = about 11 m), without "-0". */
export function roundCoord(value: number, digits = 4): number {
  const f = 10 ** digits;
  const r = Math.round(value * f) / f;
  return Object.is(r, -0) ? 0 : r;
}

/** The point under map coordinates, latitude clamped to ±90 and longitude wrapped into -180..180. */
export function fromXY(x: number, y: number, digits = 4): { lat: number; lon: number } {
  const lat = Math.max(-90, Math.min(90, 90 - y));
  let lon = ((((x - 180 + 180) % 360) + 360) % 360) - 180;
  if (lon === -180 && x >= WORLD_W) lon = 180;
  return { lat: roundCoord(lat, digits), lon: roundCoord(lon, digits) };
}

/** The visible window at `zoom` centred on a point, kept inside the world. Aspect 2:1. */
export function viewBox(zoom: number, center: { lat: number; lon: number } | null): Box {
  const w = WORLD_W / zoom;
  const h = WORLD_H / zoom;
  const c = center ? toXY(center.lat, center.lon) : { x: WORLD_W / 2, y: WORLD_H / 2 };
  const x = Math.max(0, Math.min(WORLD_W - w, c.x - w / 2));
  const y = Math.max(0, Math.min(WORLD_H - h, c.y - h / 2));
  return { x, y, w, h };
}

/** Degrees between graticule lines: fewer lines when the whole world shows. */
export function graticuleStep(zoom: number): number {
  if (zoom >= 16) return 1;
  if (zoom >= 8) return 2;
  if (zoom >= 4) return 5;
  if (zoom >= 2) return 10;
  return 30;
}

/** Graticule line positions (in degrees) inside a window. */
export function graticule(box: Box, step: number): { lons: number[]; lats: number[] } {
  const lons: number[] = [];
  const lats: number[] = [];
  for (let lon = -180; lon <= 180; lon += step) {
    const x = lon + 180;
    if (x >= box.x && x <= box.x + box.w) lons.push(lon);
  }
  for (let lat = -90; lat <= 90; lat += step) {
    const y = 90 - lat;
    if (y >= box.y && y <= box.y + box.h) lats.push(lat);
  }
  return { lons, lats };
}

/** A signed coordinate as words: 40.7128, -74.006 -> "40.7128° N, 74.0060° W". */
export function formatLatLon(lat: number, lon: number): string {
  const ns = lat >= 0 ? 'N' : 'S';
  const ew = lon >= 0 ? 'E' : 'W';
  return `${Math.abs(lat).toFixed(4)}° ${ns}, ${Math.abs(lon).toFixed(4)}° ${ew}`;
}
