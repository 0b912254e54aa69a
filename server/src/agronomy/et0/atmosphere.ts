/**
 * Atmospheric parameters, FAO-56 chapter 3 ("Atmospheric parameters", "Air temperature").
 */
/**
 * cp / (epsilon lambda) of eq. 8 with cp = 1.013e-3 MJ kg-1 C-1, epsilon = 0.622 and
 * lambda = 2.45 MJ kg-1, rounded as the paper prints it (0.665e-3) so that the
 * worked examples reproduce.
 */
export const PSYCHROMETRIC_FACTOR_PER_KPA = 0.665e-3;

/**
 * Atmospheric pressure P (kPa) from the elevation above sea level z (m), eq. 7:
 * P = 101.3 ((293 - 0.0065 z) / 293)^5.26, a simplification of the ideal gas law
 * for a standard atmosphere at 20 C.
 */
export function atmosphericPressure(elevationM: number): number {
  return 101.3 * Math.pow((293 - 0.0065 * elevationM) / 293, 5.26);
}

/**
 * Psychrometric constant gamma (kPa C-1) from the atmospheric pressure (kPa),
 * eq. 8: gamma = cp P / (epsilon lambda) = 0.665e-3 P.
 */
export function psychrometricConstant(pressureKpa: number): number {
  return PSYCHROMETRIC_FACTOR_PER_KPA * pressureKpa;
}

/**
 * Mean daily air temperature for the FAO-56 equations, eq. 9:
 * Tmean = (Tmax + Tmin) / 2 (not the mean of sub-daily readings).
 */
export function meanAirTemperature(tMaxC: number, tMinC: number): number {
  return (tMaxC + tMinC) / 2;
}
