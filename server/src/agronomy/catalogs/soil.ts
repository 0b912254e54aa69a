import type { SOIL_TEXTURES } from '../../config/schema';

/**
 * Soil catalog: one entry per `zones.<slug>.soil_texture` value (spec 2.6,
 * USDA texture classes).
 *
 * Water holding (volumetric, m3/m3):
 * - FAO-56 (Allen et al. 1998) Table 19, "Typical soil water characteristics
 *   for different soil types", publishes a RANGE of theta_FC and theta_WP per
 *   class. For each class it covers, this catalog takes the MIDPOINT of the
 *   theta_FC range and the midpoint of the theta_WP range (stated per row).
 * - Table 19 has no clay loam row. Clay loam uses the USDA-ARS texture-class
 *   values of Saxton & Rawls (2006), "Soil water characteristic estimates by
 *   texture and organic matter for hydrologic solutions", Soil Sci. Soc. Am.
 *   J. 70:1569-1578 (texture-class table, 2.5 % organic matter): 33 kPa
 *   0.36, 1500 kPa 0.22.
 *
 * Available water mm per m of root zone = (FC - WP) x 1000.
 *
 * Basic (steady) infiltration rate, mm/h: FAO Irrigation Water Management
 * Training Manual No. 5, "Irrigation Methods" (Brouwer et al. 1988), Annex 2
 * table "Basic infiltration rates for various soil types": sand > 30,
 * sandy loam 20-30, loam 10-20, clay loam 5-10, clay 1-5 mm/h. Midpoints are
 * used; per-row comments say where a bound was taken instead and why.
 *
 * Slope: see `slopeInfiltrationFactor`.
 */

export type SoilTexture = (typeof SOIL_TEXTURES)[number];

export interface SoilEntry {
  texture: SoilTexture;
  label: string;
  /** Volumetric water content at field capacity, m3/m3. */
  field_capacity: number;
  /** Volumetric water content at the permanent wilting point, m3/m3. */
  wilting_point: number;
  /** (FC - WP) x 1000: mm of plant-available water per metre of root zone. */
  available_water_mm_per_m: number;
  /** Basic infiltration rate on level ground, mm/h. */
  infiltration_mm_hr: number;
  sources: { water: string; infiltration: string };
}

const SRC_T19 = 'FAO-56 Table 19';
const SRC_SR06 = 'Saxton & Rawls 2006, SSSAJ 70:1569, texture-class values (OM 2.5 %)';
const SRC_FAO_TM5 = 'FAO Irrigation Water Management Training Manual 5 (Brouwer et al. 1988), Annex 2';

/** (FC - WP) x 1000, rounded to 0.1 mm/m so float noise never leaks into TAW. */
function awMmPerM(fc: number, wp: number): number {
  return Math.round((fc - wp) * 10000) / 10;
}

function entry(
  texture: SoilTexture,
  label: string,
  fc: number,
  wp: number,
  infiltration: number,
  waterSource: string,
  infiltrationSource: string,
): SoilEntry {
  return {
    texture,
    label,
    field_capacity: fc,
    wilting_point: wp,
    available_water_mm_per_m: awMmPerM(fc, wp),
    infiltration_mm_hr: infiltration,
    sources: { water: waterSource, infiltration: infiltrationSource },
  };
}

export const SOIL_CATALOG: Readonly<Record<SoilTexture, SoilEntry>> = {
  sand: entry(
    'sand',
    'Sand',
    0.12, // FAO-56 Table 19 sand theta_FC 0.07-0.17, midpoint
    0.045, // FAO-56 Table 19 sand theta_WP 0.02-0.07, midpoint
    30, // FAO TM5 Annex 2: sand "more than 30" mm/h; the published bound, not a guess above it
    SRC_T19 + ' sand, range midpoints',
    SRC_FAO_TM5 + ' sand > 30 mm/h (bound)',
  ),
  loamy_sand: entry(
    'loamy_sand',
    'Loamy sand',
    0.15, // FAO-56 Table 19 loamy sand theta_FC 0.11-0.19, midpoint
    0.065, // FAO-56 Table 19 loamy sand theta_WP 0.03-0.10, midpoint
    30, // not in FAO TM5 Annex 2; sits between sand (> 30) and sandy loam (20-30): their shared bound
    SRC_T19 + ' loamy sand, range midpoints',
    SRC_FAO_TM5 + ': no loamy sand row; shared bound of sand (> 30) and sandy loam (20-30)',
  ),
  sandy_loam: entry(
    'sandy_loam',
    'Sandy loam',
    0.23, // FAO-56 Table 19 sandy loam theta_FC 0.18-0.28, midpoint
    0.11, // FAO-56 Table 19 sandy loam theta_WP 0.06-0.16, midpoint
    25, // FAO TM5 Annex 2 sandy loam 20-30 mm/h, midpoint
    SRC_T19 + ' sandy loam, range midpoints',
    SRC_FAO_TM5 + ' sandy loam 20-30 mm/h, midpoint',
  ),
  loam: entry(
    'loam',
    'Loam',
    0.25, // FAO-56 Table 19 loam theta_FC 0.20-0.30, midpoint
    0.12, // FAO-56 Table 19 loam theta_WP 0.07-0.17, midpoint
    15, // FAO TM5 Annex 2 loam 10-20 mm/h, midpoint
    SRC_T19 + ' loam, range midpoints',
    SRC_FAO_TM5 + ' loam 10-20 mm/h, midpoint',
  ),
  silt_loam: entry(
    'silt_loam',
    'Silt loam',
    0.29, // FAO-56 Table 19 silt loam theta_FC 0.22-0.36, midpoint
    0.15, // FAO-56 Table 19 silt loam theta_WP 0.09-0.21, midpoint
    10, // not in FAO TM5 Annex 2; silt loam crusts more readily than loam: loam's lower bound (10-20)
    SRC_T19 + ' silt loam, range midpoints',
    SRC_FAO_TM5 + ': no silt loam row; lower bound of loam 10-20 mm/h (conservative)',
  ),
  clay_loam: entry(
    'clay_loam',
    'Clay loam',
    0.36, // Saxton & Rawls 2006 clay loam, 33 kPa water content (FAO-56 Table 19 has no clay loam row)
    0.22, // Saxton & Rawls 2006 clay loam, 1500 kPa water content
    7.5, // FAO TM5 Annex 2 clay loam 5-10 mm/h, midpoint
    SRC_SR06 + ' clay loam (not in FAO-56 Table 19)',
    SRC_FAO_TM5 + ' clay loam 5-10 mm/h, midpoint',
  ),
  clay: entry(
    'clay',
    'Clay',
    0.36, // FAO-56 Table 19 clay theta_FC 0.32-0.40, midpoint
    0.22, // FAO-56 Table 19 clay theta_WP 0.20-0.24, midpoint
    3, // FAO TM5 Annex 2 clay 1-5 mm/h, midpoint
    SRC_T19 + ' clay, range midpoints',
    SRC_FAO_TM5 + ' clay 1-5 mm/h, midpoint',
  ),
};

export function soilEntry(texture: SoilTexture): SoilEntry {
  return SOIL_CATALOG[texture];
}

export type SlopeClass = 'flat' | 'gentle' | 'moderate' | 'steep';

export interface SlopeFactor {
  slope_class: SlopeClass;
  /** Multiplier on the level-ground infiltration rate. */
  factor: number;
  /** False when the zone has no slope configured and level ground was assumed. */
  slope_known: boolean;
}

/**
 * Slope reduces the rate water can be applied without runoff. Source: the
 * USDA "maximum precipitation rates" table reproduced in the Rain Bird
 * Landscape Irrigation Design Manual (step 3, soil type), which gives the
 * maximum rate per texture for slope classes 0-5 %, 5-8 %, 8-12 % and 12 %+.
 * Its "uniform silt loam, with cover" row reads 1.00 / 0.80 / 0.60 / 0.40
 * in/h; this catalog applies that row's RATIOS (1.0, 0.8, 0.6, 0.4) to every
 * texture's basic infiltration rate. Class boundaries are lower-inclusive
 * (5 % is "5-8 %").
 *
 * Null slope (not configured) is treated as level ground, flagged
 * `slope_known: false`.
 */
export function slopeInfiltrationFactor(slopePct: number | null | undefined): SlopeFactor {
  if (slopePct === null || slopePct === undefined) {
    return { slope_class: 'flat', factor: 1.0, slope_known: false };
  }
  if (!Number.isFinite(slopePct) || slopePct < 0) {
    throw new RangeError(`slope ${slopePct} % is not a non-negative number`);
  }
  if (slopePct < 5) return { slope_class: 'flat', factor: 1.0, slope_known: true }; // USDA 0-5 %: 1.00/1.00
  if (slopePct < 8) return { slope_class: 'gentle', factor: 0.8, slope_known: true }; // USDA 5-8 %: 0.80/1.00
  if (slopePct < 12) return { slope_class: 'moderate', factor: 0.6, slope_known: true }; // USDA 8-12 %: 0.60/1.00
  return { slope_class: 'steep', factor: 0.4, slope_known: true }; // USDA 12 %+: 0.40/1.00
}
