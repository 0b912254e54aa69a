/**
 * The snapshot's `pressure_inhg` is station pressure (what a Tempest or an
 * Ecowitt "absolute" barometer reads at the site), so cloud values reduced to
 * sea level are brought back to the site's elevation before they are served.
 * Mixing the two would make the merged value and its trend jump by about
 * 1 inHg per 900 m of elevation whenever ownership falls through. Both
 * formulas are the standard-atmosphere ones the US weather services publish.
 */

/** Exponent and lapse constant of the altimeter-setting equation (NWS / Smithsonian Meteorological Tables). */
const N = 0.190284;
const K = (Math.pow(1013.25, N) * 0.0065) / 288;

/**
 * Station pressure from an altimeter setting (QNH), both hPa, elevation in m:
 * the NWS altimeter equation A = (P - 0.3)(1 + K H / (P - 0.3)^N)^(1/N)
 * solved for P, i.e. P = (A^N - K H)^(1/N) + 0.3.
 */
export function stationFromAltimeterHpa(altimeterHpa: number, elevationM: number): number {
  return Math.pow(Math.pow(altimeterHpa, N) - K * elevationM, 1 / N) + 0.3;
}

/** Station pressure from a sea-level pressure, both hPa: the standard-atmosphere barometric formula. */
export function stationFromSeaLevelHpa(seaLevelHpa: number, elevationM: number): number {
  return seaLevelHpa * Math.pow(1 - 2.25577e-5 * elevationM, 5.25588);
}
