/**
 * Constants of FAO Irrigation and Drainage Paper 56 (Allen, Pereira, Raes and
 * Smith 1998, "Crop evapotranspiration"), chapters 2 to 4, and of the ASCE-EWRI
 * (2005) standardized reference evapotranspiration equation.
 *
 * Units follow the paper: MJ m-2 for energy, kPa for pressure, degrees Celsius
 * for temperature, m s-1 for wind, mm for evapotranspiration.
 */

/** Solar constant Gsc, MJ m-2 min-1 (eq. 21, eq. 28). */
export const SOLAR_CONSTANT_MJ_M2_MIN = 0.082;

/** Stefan-Boltzmann constant for daily periods, MJ K-4 m-2 day-1 (eq. 39). */
export const STEFAN_BOLTZMANN_MJ_K4_M2_DAY = 4.903e-9;

/** Stefan-Boltzmann constant for hourly periods, MJ K-4 m-2 hour-1 (eq. 39 with hourly data: 2.043e-10). */
export const STEFAN_BOLTZMANN_MJ_K4_M2_HOUR = STEFAN_BOLTZMANN_MJ_K4_M2_DAY / 24;

/** Conversion from degrees Celsius to kelvin used in eq. 39 (T + 273.16). */
export const KELVIN_OFFSET_RADIATION = 273.16;

/** Conversion from degrees Celsius to kelvin used in eq. 6 and eq. 53 (T + 273). */
export const KELVIN_OFFSET_PM = 273;

/** Latent heat of vaporization lambda at about 20 C, MJ kg-1 (eq. 8, eq. 20). */
export const LATENT_HEAT_MJ_KG = 2.45;

/** 1/lambda as printed in eq. 6, eq. 20 and eq. 53: 1 MJ m-2 evaporates 0.408 mm. */
export const MM_PER_MJ_M2 = 0.408;

/** Specific heat at constant pressure cp, MJ kg-1 C-1 (eq. 8). */
export const SPECIFIC_HEAT_AIR_MJ_KG_C = 1.013e-3;

/** Ratio of the molecular weights of water vapour and dry air epsilon (eq. 8). */
export const MOLECULAR_WEIGHT_RATIO = 0.622;

/** Albedo of the hypothetical grass reference crop (eq. 38). */
export const GRASS_REFERENCE_ALBEDO = 0.23;

/** Angstrom regression constants as and bs where no calibration exists (eq. 35, eq. 36). */
export const ANGSTROM_AS = 0.25;
export const ANGSTROM_BS = 0.5;

/** Adjustment coefficient kRs of the Hargreaves radiation formula (eq. 50), C-0.5. */
export const KRS_INTERIOR = 0.16;
export const KRS_COASTAL = 0.19;

/** Empirical constant b of the island formula (eq. 51), MJ m-2 day-1. */
export const ISLAND_RADIATION_B = 4;

/** Standard measurement height of wind speed for the reference equations, m. */
export const STANDARD_WIND_HEIGHT_M = 2;

/**
 * Wind speed used when wind data are missing (chapter 3, "Missing wind speed
 * data"): 2 m/s, the average over 2000 weather stations around the globe.
 */
export const DEFAULT_WIND_SPEED_2M_MS = 2;

/** Hargreaves-Samani coefficients (eq. 52). */
export const HARGREAVES_COEFFICIENT = 0.0023;
export const HARGREAVES_TEMPERATURE_OFFSET_C = 17.8;

/** Numerator and denominator constants of the FAO-56 Penman-Monteith equation. */
export const PM_DAILY_CN = 900; // eq. 6
export const PM_HOURLY_CN = 37; // eq. 53
export const PM_CD = 0.34; // eq. 6 and eq. 53

/**
 * ASCE-EWRI (2005) standardized reference evapotranspiration, Table 1: the
 * numerator constant Cn and denominator constant Cd for the short (ETos,
 * clipped grass) and tall (ETrs, alfalfa) references.
 */
export const ASCE_COEFFICIENTS = {
  short: {
    daily: { cn: 900, cd: 0.34 },
    hourlyDay: { cn: 37, cd: 0.24 },
    hourlyNight: { cn: 37, cd: 0.96 },
  },
  tall: {
    daily: { cn: 1600, cd: 0.38 },
    hourlyDay: { cn: 66, cd: 0.25 },
    hourlyNight: { cn: 66, cd: 1.7 },
  },
} as const;

/** ASCE-EWRI (2005) Stefan-Boltzmann constants (eq. 17), MJ K-4 m-2 per day and per hour. */
export const ASCE_STEFAN_BOLTZMANN_DAY = 4.901e-9;
export const ASCE_STEFAN_BOLTZMANN_HOUR = 2.042e-10;

/** Degrees to radians; eq. 22 writes it as pi/180 times the decimal degrees. */
export function degreesToRadians(degrees: number): number {
  return (Math.PI / 180) * degrees;
}

/** True for a finite number: a missing value (null, undefined, NaN) is never read as 0. */
export function isNum(x: number | null | undefined): x is number {
  return typeof x === 'number' && Number.isFinite(x);
}
