import { resolvePrecipRate } from '../../agronomy/catalogs/sprinklers';
import type { ZoneConfig } from '../../config/schema';

/**
 * The depth and volume a run delivered (spec 2.5 run record `applied_mm`,
 * `volume_gal`): depth from the zone's precipitation rate (its own, else its
 * sprinkler type's catalog rate), volume from that depth over the zone's area.
 * Either is null when its input is unknown: no rate, no area, no number.
 */

const SQ_M_PER_SQ_FT = 0.09290304;
const LITRES_PER_US_GALLON = 3.785411784;

export interface WaterAmount {
  applied_mm: number | null;
  volume_gal: number | null;
}

export function waterAmount(zone: ZoneConfig | undefined, openSeconds: number): WaterAmount {
  const rate = precipRate(zone);
  if (rate === null || openSeconds <= 0) return { applied_mm: rate === null ? null : 0, volume_gal: null };
  const mm = (openSeconds / 3600) * rate;
  const area = zone?.area_sqft;
  const gallons = area ? (mm * area * SQ_M_PER_SQ_FT) / LITRES_PER_US_GALLON : null;
  return { applied_mm: round(mm, 2), volume_gal: gallons === null ? null : round(gallons, 1) };
}

function precipRate(zone: ZoneConfig | undefined): number | null {
  if (!zone) return null;
  if (zone.precip_rate_mm_hr) return zone.precip_rate_mm_hr;
  return zone.sprinkler_type ? resolvePrecipRate(zone.sprinkler_type, null).precip_rate_mm_hr : null;
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
