import type { SPECIES } from '../../config/schema';

/**
 * Plant catalog: one entry per `zones.<slug>.species` value (spec 2.6).
 *
 * Every number carries its published source in a comment beside it. Where a
 * value is a choice inside a published range (rather than a published point
 * value) the comment says which end or which midpoint was taken and why.
 *
 * Units: Kc dimensionless (multiplies grass-reference ET0), root depth mm,
 * MAD as a fraction 0..1 (FAO-56 "p", the depletion fraction of TAW that can
 * be used before stress), temperatures degrees F.
 *
 * Pure: no I/O, no clock. Month arguments are 1..12 supplied by the caller.
 */

export type Species = (typeof SPECIES)[number];

/** Warm-season (C4) turf, cool-season (C3) turf, or not a turfgrass. */
export type SeasonClass = 'warm' | 'cool' | 'none';

/** Twelve monthly crop coefficients, January..December, northern hemisphere. */
export type MonthlyKc = readonly [
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
];

/**
 * Temperature dormancy. The rule this catalog uses (one rule, both turf
 * classes, different thresholds):
 *
 *   dormant  <=>  mean of the trailing `window_days` daily MEAN air
 *                 temperatures < `below_mean_temp_f`
 *
 * Every one of those days must be known: a missing day makes the answer
 * unknown (null), never "not dormant". `window_days` = 7 is this catalog's
 * reading of "for a stretch" / "consistently" in the extension wording below;
 * it is a design choice, not a published number.
 *
 * Summer heat: no dormancy rule for cool-season turf. Summer dormancy of
 * cool-season grass is a drought response (unirrigated turf browning out);
 * UC IPM states cool-season grasses "remain green year-round unless
 * temperatures consistently fall below freezing", so an irrigated
 * cool-season lawn keeps being watered through heat.
 */
export interface DormancyRule {
  below_mean_temp_f: number;
  window_days: number;
  source: string;
}

export interface SpeciesEntry {
  species: Species;
  label: string;
  season: SeasonClass;
  /** January..December, northern hemisphere; see `kcCurveForLatitude`. */
  kc_monthly: MonthlyKc;
  root_depth_mm: number;
  /** Management allowed depletion (FAO-56 p), fraction of TAW. */
  mad: number;
  dormancy: DormancyRule | null;
  sources: { kc: string; root_depth_mm: string; mad: string };
}

export const DORMANCY_WINDOW_DAYS = 7; // design choice: "a stretch" = one week of daily means (see DormancyRule)

// ---------------------------------------------------------------------------
// Published curves and constants
// ---------------------------------------------------------------------------

const SRC_UC_TURF_KC =
  'UC Center for Landscape & Urban Horticulture, "Turfgrass Crop Coefficients (Kc)", Table 1 ' +
  '(Meyer, Gibeault et al. 1985, Proc. 5th Int. Turfgrass Research Conf.); annual average cool 0.80, warm 0.60';

/**
 * UC monthly Kc, Jan..Dec, as published (Meyer et al. 1985 via UC CLUH Table 1). UC states annual
 * averages of 0.80 (cool) and 0.60 (warm); the plain means of the monthly columns are 0.79 and 0.65, so
 * the published annual figure is not the unweighted monthly mean. The monthly values are used as printed.
 * Cool-season column.
 */
const UC_COOL_SEASON_KC: MonthlyKc = [0.61, 0.64, 0.75, 1.04, 0.95, 0.88, 0.94, 0.86, 0.74, 0.75, 0.69, 0.6];

/** Warm-season column. */
const UC_WARM_SEASON_KC: MonthlyKc = [0.61, 0.54, 0.76, 0.72, 0.79, 0.68, 0.71, 0.71, 0.62, 0.54, 0.58, 0.55];

/**
 * FAO-56 Table 12, "a. Small Vegetables": Kc_ini 0.7, Kc_mid 1.05, Kc_end 0.95.
 * Calendar placement (a northern-hemisphere home garden) is this catalog's
 * choice: initial stage Mar-Apr, development May (linear midpoint of ini and
 * mid per FAO-56 eq. 66: (0.7 + 1.05) / 2 = 0.875), mid-season Jun-Aug, late
 * season Sep (Kc_end), and the off-season bed (Oct-Feb) held at Kc_ini.
 */
const FAO56_SMALL_VEG_KC_INI = 0.7; // FAO-56 Table 12, small vegetables Kc_ini
const FAO56_SMALL_VEG_KC_MID = 1.05; // FAO-56 Table 12, small vegetables Kc_mid
const FAO56_SMALL_VEG_KC_END = 0.95; // FAO-56 Table 12, small vegetables Kc_end
const VEG_DEV = (FAO56_SMALL_VEG_KC_INI + FAO56_SMALL_VEG_KC_MID) / 2; // FAO-56 eq. 66 linear development, mid-month
const VEGETABLE_KC: MonthlyKc = [
  FAO56_SMALL_VEG_KC_INI, // Jan (off-season)
  FAO56_SMALL_VEG_KC_INI, // Feb (off-season)
  FAO56_SMALL_VEG_KC_INI, // Mar (initial)
  FAO56_SMALL_VEG_KC_INI, // Apr (initial)
  VEG_DEV, // May (development)
  FAO56_SMALL_VEG_KC_MID, // Jun (mid-season)
  FAO56_SMALL_VEG_KC_MID, // Jul (mid-season)
  FAO56_SMALL_VEG_KC_MID, // Aug (mid-season)
  FAO56_SMALL_VEG_KC_END, // Sep (late season)
  FAO56_SMALL_VEG_KC_INI, // Oct (off-season)
  FAO56_SMALL_VEG_KC_INI, // Nov (off-season)
  FAO56_SMALL_VEG_KC_INI, // Dec (off-season)
];

/** WUCOLS IV (Costello & Jones 2014, UC ANR) species factor "Moderate" 0.4-0.6: midpoint. */
const WUCOLS_MODERATE_MID = 0.5;
/** WUCOLS IV (Costello & Jones 2014, UC ANR) species factor "Low" 0.1-0.3: midpoint. */
const WUCOLS_LOW_MID = 0.2;
/** `other`: midpoint of the UC warm (0.60) and cool (0.80) annual-average turf Kc. */
const OTHER_KC = (0.6 + 0.8) / 2;

function flat(kc: number): MonthlyKc {
  return [kc, kc, kc, kc, kc, kc, kc, kc, kc, kc, kc, kc];
}

// FAO-56 Table 22, "Turf grass": p = 0.40 cool season, p = 0.50 warm season.
const FAO56_P_TURF_COOL = 0.4; // FAO-56 Table 22, turf grass cool season
const FAO56_P_TURF_WARM = 0.5; // FAO-56 Table 22, turf grass warm season
// FAO-56 ch. 8 (text preceding Table 22): "A value of 0.50 for p is commonly used for many crops."
const FAO56_P_COMMON = 0.5;
// FAO-56 Table 22, "a. Small Vegetables": p 0.30-0.50 across the group; midpoint.
const FAO56_P_SMALL_VEG = 0.4;

/**
 * Root depths. FAO-56 Table 22 lists 0.5-1.0 m for turf grass: full rooting
 * of agronomic stands (its footnote: the smaller values are for irrigation
 * scheduling). Residential lawns are scheduled on a much shallower effective
 * root zone; the values below are the smart-controller plant-type guidance
 * published by Orbit B-hyve (citing Scotts): cool-season turf 6-8 in at
 * maturity, warm-season turf 6-12 in (8-12 in in its plant-type page).
 */
const SRC_TURF_ROOTS =
  'Orbit B-hyve / Scotts plant-type guidance, effective root zone at maturity: cool-season turf 6-8 in, ' +
  'warm-season turf 6-12 in; FAO-56 Table 22 (0.5-1.0 m) is the agronomic maximum, not a lawn scheduling depth';
const ROOT_TURF_SHALLOW = 150; // 6 in (152 mm) rounded: lower bound of both turf ranges above
const ROOT_TURF_DEEP = 200; // 8 in (203 mm) rounded: cool-season upper bound / warm-season 8-12 in lower bound
/** Shrubs: "the roots of most shrubs remain in the top 12-18 in of soil" (National Gardening Association). */
const SRC_SHRUB_ROOTS =
  'National Gardening Association knowledgebase: roots of most shrubs remain in the top 12-18 in of soil';
const ROOT_SHRUB = 300; // 12 in (305 mm) rounded: lower bound of 12-18 in
const ROOT_XERIC = 450; // 18 in (457 mm) rounded: upper bound of 12-18 in (drought-adapted plantings root deeper)
// FAO-56 Table 22, "a. Small Vegetables": Zr 0.3-0.6 m (lettuce 0.3-0.5, onion 0.3-0.6); lower bound.
const ROOT_SMALL_VEG = 300;

const SRC_UC_IPM_DORMANCY =
  'UC IPM, "Seasonal growth of turfgrasses": warm-season grasses may go dormant if the average air or soil ' +
  'temperature drops below 50-55 F; cool-season grasses remain green year-round unless temperatures ' +
  'consistently fall below freezing';

/** Warm-season turf: the lower (50 F) end of UC IPM's 50-55 F, so dormancy is declared only when clearly cold. */
const WARM_DORMANCY: DormancyRule = {
  below_mean_temp_f: 50, // UC IPM: dormant below 50-55 F average air temperature; lower bound
  window_days: DORMANCY_WINDOW_DAYS,
  source: SRC_UC_IPM_DORMANCY,
};

/** Cool-season turf: winter dormancy only, when the mean is consistently below freezing (32 F). */
const COOL_DORMANCY: DormancyRule = {
  below_mean_temp_f: 32, // UC IPM: green year-round unless consistently below freezing
  window_days: DORMANCY_WINDOW_DAYS,
  source: SRC_UC_IPM_DORMANCY,
};

function warmTurf(species: Species, label: string, rootDepthMm: number): SpeciesEntry {
  return {
    species,
    label,
    season: 'warm',
    kc_monthly: UC_WARM_SEASON_KC,
    root_depth_mm: rootDepthMm,
    mad: FAO56_P_TURF_WARM,
    dormancy: WARM_DORMANCY,
    sources: {
      kc: SRC_UC_TURF_KC + ' (warm-season column)',
      root_depth_mm: SRC_TURF_ROOTS,
      mad: 'FAO-56 Table 22, turf grass warm season p = 0.50',
    },
  };
}

function coolTurf(species: Species, label: string, rootDepthMm: number): SpeciesEntry {
  return {
    species,
    label,
    season: 'cool',
    kc_monthly: UC_COOL_SEASON_KC,
    root_depth_mm: rootDepthMm,
    mad: FAO56_P_TURF_COOL,
    dormancy: COOL_DORMANCY,
    sources: {
      kc: SRC_UC_TURF_KC + ' (cool-season column)',
      root_depth_mm: SRC_TURF_ROOTS,
      mad: 'FAO-56 Table 22, turf grass cool season p = 0.40',
    },
  };
}

/**
 * The catalog. Per-species root depths sit inside the class range above; the
 * position in the range follows the species' rooting habit: stoloniferous or
 * shallow-rooted grasses (St. Augustine, centipede, zoysia, Kentucky
 * bluegrass, perennial ryegrass) at the shallow end, rhizomatous deep-rooted
 * ones (bermuda, bahia) and tall fescue (the deepest-rooted common
 * cool-season grass) at 8 in.
 */
export const SPECIES_CATALOG: Readonly<Record<Species, SpeciesEntry>> = {
  st_augustine: warmTurf('st_augustine', 'St. Augustinegrass', ROOT_TURF_SHALLOW),
  bermuda: warmTurf('bermuda', 'Bermudagrass', ROOT_TURF_DEEP),
  zoysia: warmTurf('zoysia', 'Zoysiagrass', ROOT_TURF_SHALLOW),
  bahia: warmTurf('bahia', 'Bahiagrass', ROOT_TURF_DEEP),
  centipede: warmTurf('centipede', 'Centipedegrass', ROOT_TURF_SHALLOW),
  kentucky_bluegrass: coolTurf('kentucky_bluegrass', 'Kentucky bluegrass', ROOT_TURF_SHALLOW),
  tall_fescue: coolTurf('tall_fescue', 'Tall fescue', ROOT_TURF_DEEP),
  perennial_ryegrass: coolTurf('perennial_ryegrass', 'Perennial ryegrass', ROOT_TURF_SHALLOW),
  ornamental_shrubs: {
    species: 'ornamental_shrubs',
    label: 'Ornamental shrubs',
    season: 'none',
    kc_monthly: flat(WUCOLS_MODERATE_MID),
    root_depth_mm: ROOT_SHRUB,
    mad: FAO56_P_COMMON,
    dormancy: null,
    sources: {
      kc: 'WUCOLS IV (Costello & Jones 2014, UC ANR) species factor Moderate 0.4-0.6, midpoint 0.5, flat',
      root_depth_mm: SRC_SHRUB_ROOTS + ' (lower bound, 12 in)',
      mad: 'FAO-56 ch. 8: p = 0.50 commonly used for many crops (no ornamental-shrub row in Table 22)',
    },
  },
  vegetable_garden: {
    species: 'vegetable_garden',
    label: 'Vegetable garden',
    season: 'none',
    kc_monthly: VEGETABLE_KC,
    root_depth_mm: ROOT_SMALL_VEG,
    mad: FAO56_P_SMALL_VEG,
    dormancy: null,
    sources: {
      kc: 'FAO-56 Table 12 small vegetables Kc_ini 0.7 / Kc_mid 1.05 / Kc_end 0.95, placed on a Mar-Sep season',
      root_depth_mm: 'FAO-56 Table 22 small vegetables Zr 0.3-0.6 m, lower bound',
      mad: 'FAO-56 Table 22 small vegetables p 0.30-0.50, midpoint',
    },
  },
  drip_xeriscape: {
    species: 'drip_xeriscape',
    label: 'Drip xeriscape',
    season: 'none',
    kc_monthly: flat(WUCOLS_LOW_MID),
    root_depth_mm: ROOT_XERIC,
    mad: FAO56_P_COMMON,
    dormancy: null,
    sources: {
      kc: 'WUCOLS IV (Costello & Jones 2014, UC ANR) species factor Low 0.1-0.3, midpoint 0.2, flat',
      root_depth_mm: SRC_SHRUB_ROOTS + ' (upper bound, 18 in)',
      mad: 'FAO-56 ch. 8: p = 0.50 commonly used for many crops',
    },
  },
  other: {
    species: 'other',
    label: 'Other / unknown',
    season: 'none',
    kc_monthly: flat(OTHER_KC),
    root_depth_mm: ROOT_TURF_SHALLOW,
    mad: (FAO56_P_TURF_COOL + FAO56_P_TURF_WARM) / 2,
    dormancy: null,
    sources: {
      kc: 'midpoint of UC annual-average turf Kc, warm 0.60 and cool 0.80 (' + SRC_UC_TURF_KC + ')',
      root_depth_mm:
        'shallowest turf value in this catalog (6 in), so an unknown plant is not left to dry out',
      mad: 'midpoint of FAO-56 Table 22 turf p, cool 0.40 and warm 0.50',
    },
  },
};

export function speciesEntry(species: Species): SpeciesEntry {
  return SPECIES_CATALOG[species];
}

/** The curve moved six months: southern-hemisphere January takes northern July, and so on. */
export function shiftSixMonths(curve: MonthlyKc): MonthlyKc {
  const out = curve.map((_, i) => curve[(i + 6) % 12] as number);
  return out as unknown as MonthlyKc;
}

/** Latitude south of the equator (< 0) shifts the northern-hemisphere curve by six months. */
export function kcCurveForLatitude(curve: MonthlyKc, latitudeDeg: number): MonthlyKc {
  if (!Number.isFinite(latitudeDeg) || latitudeDeg < -90 || latitudeDeg > 90) {
    throw new RangeError(`latitude ${latitudeDeg} outside -90..90`);
  }
  return latitudeDeg < 0 ? shiftSixMonths(curve) : curve;
}

/** Kc of `species` in calendar month 1..12 at the given latitude. */
export function monthlyKc(species: Species, month: number, latitudeDeg: number): number {
  if (!Number.isInteger(month) || month < 1 || month > 12) {
    throw new RangeError(`month ${month} outside 1..12`);
  }
  const curve = kcCurveForLatitude(SPECIES_CATALOG[species].kc_monthly, latitudeDeg);
  return curve[month - 1] as number;
}

/**
 * Temperature dormancy per the rule documented on DormancyRule.
 * `dailyMeanTempsF` is oldest-first; the trailing `window_days` entries are
 * used. Returns null (unknown) when fewer days are supplied or any of them is
 * null; false for species without a dormancy rule.
 */
export function isDormant(species: Species, dailyMeanTempsF: readonly (number | null)[]): boolean | null {
  const rule = SPECIES_CATALOG[species].dormancy;
  if (rule === null) return false;
  if (dailyMeanTempsF.length < rule.window_days) return null;
  const window = dailyMeanTempsF.slice(dailyMeanTempsF.length - rule.window_days);
  let sum = 0;
  for (const t of window) {
    if (t === null || !Number.isFinite(t)) return null;
    sum += t;
  }
  return sum / rule.window_days < rule.below_mean_temp_f;
}
