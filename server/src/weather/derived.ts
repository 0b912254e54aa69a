/**
 * Derived weather quantities, computed only from live inputs (a null input
 * gives a null output, never a guess). Standard published formulas:
 * - Heat index: NWS Rothfusz regression with the NWS adjustments
 *   (https://www.wpc.ncep.noaa.gov/html/heatindex_equation.shtml).
 * - Wind chill: NWS 2001 formula, defined for T <= 50 F and wind > 3 mph.
 * - Dew point: Magnus formula with the Alduchov-Eskridge constants
 *   (a = 17.625, b = 243.04 C).
 * - Wet bulb: Stull (2011), valid for RH 5-99 % and -20..50 C.
 */

export function fToC(f: number): number {
  return ((f - 32) * 5) / 9;
}

export function cToF(c: number): number {
  return (c * 9) / 5 + 32;
}

export function heatIndexF(tempF: number, rhPct: number): number {
  const simple = 0.5 * (tempF + 61.0 + (tempF - 68.0) * 1.2 + rhPct * 0.094);
  if ((simple + tempF) / 2 < 80) return simple;
  const T = tempF;
  const R = rhPct;
  let hi =
    -42.379 +
    2.04901523 * T +
    10.14333127 * R -
    0.22475541 * T * R -
    0.00683783 * T * T -
    0.05481717 * R * R +
    0.00122874 * T * T * R +
    0.00085282 * T * R * R -
    0.00000199 * T * T * R * R;
  if (R < 13 && T >= 80 && T <= 112) {
    hi -= ((13 - R) / 4) * Math.sqrt((17 - Math.abs(T - 95)) / 17);
  } else if (R > 85 && T >= 80 && T <= 87) {
    hi += ((R - 85) / 10) * ((87 - T) / 5);
  }
  return hi;
}

/** Null outside the formula's domain (T > 50 F or wind <= 3 mph): no wind chill is defined there. */
export function windChillF(tempF: number, windMph: number): number | null {
  if (tempF > 50 || windMph <= 3) return null;
  const v = Math.pow(windMph, 0.16);
  return 35.74 + 0.6215 * tempF - 35.75 * v + 0.4275 * tempF * v;
}

/** Wind chill when cold and windy, heat index when warm, else the air temperature. */
export function feelsLikeF(
  tempF: number | null,
  rhPct: number | null,
  windMph: number | null,
): number | null {
  if (tempF === null) return null;
  if (tempF <= 50) {
    if (windMph === null) return null;
    return windChillF(tempF, windMph) ?? tempF;
  }
  if (tempF >= 80) {
    if (rhPct === null) return null;
    return heatIndexF(tempF, rhPct);
  }
  return tempF;
}

const MAGNUS_A = 17.625;
const MAGNUS_B = 243.04;

export function dewPointF(tempF: number | null, rhPct: number | null): number | null {
  if (tempF === null || rhPct === null || rhPct <= 0) return null;
  const t = fToC(tempF);
  const gamma = Math.log(Math.min(rhPct, 100) / 100) + (MAGNUS_A * t) / (MAGNUS_B + t);
  return cToF((MAGNUS_B * gamma) / (MAGNUS_A - gamma));
}

export function wetBulbF(tempF: number | null, rhPct: number | null): number | null {
  if (tempF === null || rhPct === null || rhPct <= 0) return null;
  const t = fToC(tempF);
  const rh = Math.min(rhPct, 100);
  const tw =
    t * Math.atan(0.151977 * Math.sqrt(rh + 8.313659)) +
    Math.atan(t + rh) -
    Math.atan(rh - 1.676331) +
    0.00391838 * Math.pow(rh, 1.5) * Math.atan(0.023101 * rh) -
    4.686035;
  return cToF(tw);
}
