/**
 * Wind speed, FAO-56 chapter 3 ("Wind speed", eq. 47, and "Missing wind speed data").
 */
import { DEFAULT_WIND_SPEED_2M_MS } from './constants';

/**
 * Lowest measurement height (m) for which eq. 47 is defined: the logarithm's
 * argument 67.8 z - 5.42 must exceed 1.
 */
export const MIN_WIND_HEIGHT_M = 6.42 / 67.8;

/**
 * Wind speed at 2 m above ground (m/s) from the speed uz measured at z metres
 * above ground, eq. 47 (logarithmic profile over short grass):
 * u2 = uz 4.87 / ln(67.8 z - 5.42). Returns null for a height the equation
 * does not cover.
 */
export function windSpeedAt2m(uzMs: number, heightM: number): number | null {
  if (!(heightM > MIN_WIND_HEIGHT_M)) return null;
  return (uzMs * 4.87) / Math.log(67.8 * heightM - 5.42);
}

/**
 * The wind speed at 2 m to use when no wind data exist (chapter 3, "Missing wind
 * speed data"): 2 m/s, the world average over 2000 stations. The paper also
 * allows a regional or climatological mean where one is known.
 */
export function defaultWindSpeed2m(): number {
  return DEFAULT_WIND_SPEED_2M_MS;
}
