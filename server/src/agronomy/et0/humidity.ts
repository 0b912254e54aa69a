/**
 * Air humidity, FAO-56 chapter 3 ("Air humidity") and the missing-humidity
 * procedure of chapter 3 ("Estimating missing humidity data", eq. 48).
 * Vapour pressures in kPa, temperatures in C, relative humidity in percent.
 */

/**
 * Saturation vapour pressure e°(T) (kPa) at air temperature T (C), eq. 11:
 * e°(T) = 0.6108 exp(17.27 T / (T + 237.3)).
 */
export function saturationVapourPressure(tC: number): number {
  return 0.6108 * Math.exp((17.27 * tC) / (tC + 237.3));
}

/**
 * Mean saturation vapour pressure es (kPa) for a day, ten days or a month,
 * eq. 12: es = (e°(Tmax) + e°(Tmin)) / 2. Using e°(Tmean) instead underestimates es.
 */
export function meanSaturationVapourPressure(tMaxC: number, tMinC: number): number {
  return (saturationVapourPressure(tMaxC) + saturationVapourPressure(tMinC)) / 2;
}

/**
 * Slope of the saturation vapour pressure curve Delta (kPa C-1) at T (C), eq. 13:
 * Delta = 4098 e°(T) / (T + 237.3)^2. For the daily equation T is Tmean (eq. 9).
 */
export function slopeSaturationVapourPressure(tC: number): number {
  return (4098 * saturationVapourPressure(tC)) / Math.pow(tC + 237.3, 2);
}

/** Actual vapour pressure ea (kPa) from the dewpoint temperature (C), eq. 14: ea = e°(Tdew). */
export function actualVapourPressureFromDewpoint(tDewC: number): number {
  return saturationVapourPressure(tDewC);
}

/**
 * Psychrometer coefficient apsy (C-1) of eq. 16 by ventilation of the wet bulb:
 * 0.000662 for ventilated (Asmann type, air movement about 5 m/s), 0.000800 for
 * naturally ventilated (about 1 m/s), 0.001200 for non-ventilated installations indoors.
 */
export const PSYCHROMETER_COEFFICIENT = {
  ventilated: 0.000662,
  naturallyVentilated: 0.0008,
  indoorNonVentilated: 0.0012,
} as const;

/**
 * Actual vapour pressure ea (kPa) from psychrometric readings, eq. 15 and 16:
 * ea = e°(Twet) - gamma_psy (Tdry - Twet), gamma_psy = apsy P.
 */
export function actualVapourPressureFromPsychrometer(
  tDryC: number,
  tWetC: number,
  pressureKpa: number,
  apsy: number = PSYCHROMETER_COEFFICIENT.ventilated,
): number {
  return saturationVapourPressure(tWetC) - apsy * pressureKpa * (tDryC - tWetC);
}

/**
 * Actual vapour pressure ea (kPa) from the daily maximum and minimum relative
 * humidity, eq. 17: ea = (e°(Tmin) RHmax/100 + e°(Tmax) RHmin/100) / 2.
 */
export function actualVapourPressureFromRhMaxMin(
  tMinC: number,
  tMaxC: number,
  rhMaxPct: number,
  rhMinPct: number,
): number {
  return (
    (saturationVapourPressure(tMinC) * (rhMaxPct / 100) +
      saturationVapourPressure(tMaxC) * (rhMinPct / 100)) /
    2
  );
}

/**
 * Actual vapour pressure ea (kPa) from RHmax only, eq. 18: ea = e°(Tmin) RHmax/100.
 * The paper recommends it where RHmin is unreliable.
 */
export function actualVapourPressureFromRhMax(tMinC: number, rhMaxPct: number): number {
  return saturationVapourPressure(tMinC) * (rhMaxPct / 100);
}

/**
 * Actual vapour pressure ea (kPa) from the mean relative humidity, eq. 19:
 * ea = RHmean/100 (e°(Tmax) + e°(Tmin)) / 2. Less desirable than eq. 17 or 18.
 */
export function actualVapourPressureFromRhMean(tMinC: number, tMaxC: number, rhMeanPct: number): number {
  return (rhMeanPct / 100) * meanSaturationVapourPressure(tMaxC, tMinC);
}

/**
 * Actual vapour pressure ea (kPa) for an hourly period from the hourly relative
 * humidity, eq. 54: ea = e°(Thr) RHhr/100.
 */
export function actualVapourPressureHourly(tC: number, rhPct: number): number {
  return saturationVapourPressure(tC) * (rhPct / 100);
}

/**
 * Estimated actual vapour pressure (kPa) when humidity data are missing or of
 * questionable quality, eq. 48: the dewpoint is taken as the daily minimum
 * temperature, ea = e°(Tmin) = 0.611 exp(17.27 Tmin / (Tmin + 237.3)) (the
 * paper prints 0.611 here). For arid and semi-arid sites the paper (chapter 3
 * and Annex 6) suggests Tdew = Tmin - 2 to 3 C: pass that as `dewpointOffsetC`
 * (0 for humid sites, the default).
 */
export function estimatedActualVapourPressureFromTmin(tMinC: number, dewpointOffsetC = 0): number {
  const tDew = tMinC - dewpointOffsetC;
  return 0.611 * Math.exp((17.27 * tDew) / (tDew + 237.3));
}

/** Vapour pressure deficit es - ea (kPa), chapter 3 ("Vapour pressure deficit"). */
export function vapourPressureDeficit(esKpa: number, eaKpa: number): number {
  return esKpa - eaKpa;
}
