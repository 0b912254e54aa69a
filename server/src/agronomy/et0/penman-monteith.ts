/**
 * FAO-56 Penman-Monteith reference evapotranspiration: the daily equation
 * (chapter 2, eq. 6; chapter 4 "Calculation procedures", Example 17 and 18)
 * and the hourly equation (chapter 4, eq. 53, Example 19), with the chapter 3
 * procedures for missing humidity, radiation and wind.
 */
import { KELVIN_OFFSET_PM, MM_PER_MJ_M2, PM_CD, PM_DAILY_CN, PM_HOURLY_CN } from './constants';
import {
  netLongwaveRadiationDaily,
  netLongwaveRadiationHourly,
  netRadiation,
  soilHeatFluxHourly,
} from './radiation';
import {
  resolveDaily,
  resolveHourly,
  type DailyEt0Input,
  type DailyTerms,
  type HourlyEt0Input,
  type HourlyTerms,
  type Resolution,
} from './resolve';
import type { Et0Result } from './types';

/** The terms of eq. 6 and eq. 53. */
export interface PenmanMonteithTerms {
  /** Slope of the vapour pressure curve, kPa C-1 (eq. 13). */
  deltaKpaPerC: number;
  /** Net radiation at the crop surface, MJ m-2 per period (eq. 40). */
  rnMjM2: number;
  /** Soil heat flux density, MJ m-2 per period (eq. 42, 43/44, 45/46). */
  gMjM2: number;
  /** Psychrometric constant, kPa C-1 (eq. 8). */
  gammaKpaPerC: number;
  /** Mean air temperature at 2 m, C (eq. 9 for a day; the hourly mean for eq. 53). */
  tMeanC: number;
  /** Wind speed at 2 m, m/s (eq. 47). */
  u2Ms: number;
  /** Saturation and actual vapour pressure, kPa. */
  esKpa: number;
  eaKpa: number;
}

/**
 * The FAO-56 Penman-Monteith equation with numerator constant Cn and
 * denominator constant Cd:
 * ET0 = [0.408 Delta (Rn - G) + gamma Cn/(T + 273) u2 (es - ea)] / [Delta + gamma (1 + Cd u2)].
 * Cn = 900, Cd = 0.34 give eq. 6 (mm day-1); Cn = 37, Cd = 0.34 give eq. 53 (mm hour-1).
 */
export function penmanMonteith(t: PenmanMonteithTerms, cn: number, cd: number): number {
  const radiationTerm = MM_PER_MJ_M2 * t.deltaKpaPerC * (t.rnMjM2 - t.gMjM2);
  const aerodynamicTerm =
    t.gammaKpaPerC * (cn / (t.tMeanC + KELVIN_OFFSET_PM)) * t.u2Ms * (t.esKpa - t.eaKpa);
  return (radiationTerm + aerodynamicTerm) / (t.deltaKpaPerC + t.gammaKpaPerC * (1 + cd * t.u2Ms));
}

/** FAO-56 eq. 6, daily (and ten-day or monthly) ET0 in mm day-1 from its terms. */
export function fao56PenmanMonteithDaily(t: PenmanMonteithTerms): number {
  return penmanMonteith(t, PM_DAILY_CN, PM_CD);
}

/** FAO-56 eq. 53, hourly ET0 in mm hour-1 from its terms (T is the hourly mean temperature). */
export function fao56PenmanMonteithHourly(t: PenmanMonteithTerms): number {
  return penmanMonteith(t, PM_HOURLY_CN, PM_CD);
}

/** Intermediate values of a daily FAO-56 PM computation. */
export interface PenmanMonteithDailySteps extends Omit<DailyTerms, 'estimated'> {
  rnlMjM2Day: number;
  rnMjM2Day: number;
}

/** Intermediate values of an hourly FAO-56 PM computation. */
export interface PenmanMonteithHourlySteps extends Omit<HourlyTerms, 'estimated'> {
  /** The Rs/Rso that entered eq. 39 (measured, or the night-time value for night and low-sun hours). */
  rsOverRso: number;
  rnlMjM2: number;
  rnMjM2: number;
  gMjM2: number;
}

/** Daily FAO-56 PM with the reason it could not be computed. */
export function evaluatePenmanMonteithDaily(
  input: DailyEt0Input,
): Resolution<Et0Result<PenmanMonteithDailySteps>> {
  const r = resolveDaily(input);
  if (!r.ok) return r;
  const d = r.value;
  if (d.rsOverRso === null) return { ok: false, missing: ['clear-sky radiation (Rso is 0: polar night)'] };
  const rnlMjM2Day = netLongwaveRadiationDaily(d.tMaxC, d.tMinC, d.eaKpa, d.rsOverRso); // eq. 39
  const rnMjM2Day = netRadiation(d.rnsMjM2Day, rnlMjM2Day); // eq. 40
  const et0 = fao56PenmanMonteithDaily({
    deltaKpaPerC: d.deltaKpaPerC,
    rnMjM2: rnMjM2Day,
    gMjM2: d.gMjM2Day,
    gammaKpaPerC: d.gammaKpaPerC,
    tMeanC: d.tMeanC,
    u2Ms: d.u2Ms,
    esKpa: d.esKpa,
    eaKpa: d.eaKpa,
  }); // eq. 6
  const { estimated, ...terms } = d;
  return {
    ok: true,
    value: {
      et0_mm: et0,
      method: 'penman_monteith',
      timestep: 'daily',
      estimated,
      steps: { ...terms, rnlMjM2Day, rnMjM2Day },
    },
  };
}

/**
 * Daily reference evapotranspiration, FAO-56 Penman-Monteith (eq. 6), mm day-1.
 * Missing humidity, radiation or wind are estimated with the chapter 3
 * procedures (eq. 48, eq. 50, 2 m/s) and listed in `estimated`. Returns null
 * when a required input with no estimation procedure is missing (temperatures,
 * latitude, elevation, day of year).
 */
export function et0PenmanMonteithDaily(input: DailyEt0Input): Et0Result<PenmanMonteithDailySteps> | null {
  const r = evaluatePenmanMonteithDaily(input);
  return r.ok ? r.value : null;
}

/** Hourly FAO-56 PM with the reason it could not be computed. */
export function evaluatePenmanMonteithHourly(
  input: HourlyEt0Input,
): Resolution<Et0Result<PenmanMonteithHourlySteps>> {
  const r = resolveHourly(input);
  if (!r.ok) return r;
  const h = r.value;
  // resolveHourly guarantees a night-time ratio whenever the sun is low.
  const rsOverRso = (h.lowSun ? h.nightRsOverRso : h.rsOverRsoMeasured) ?? 0;
  const rnlMjM2 = netLongwaveRadiationHourly(h.tempC, h.eaKpa, rsOverRso); // eq. 39, hourly
  const rnMjM2 = netRadiation(h.rnsMjM2, rnlMjM2); // eq. 40
  const gMjM2 = soilHeatFluxHourly(rnMjM2, h.daylight); // eq. 45 / 46
  const et0 = fao56PenmanMonteithHourly({
    deltaKpaPerC: h.deltaKpaPerC,
    rnMjM2,
    gMjM2,
    gammaKpaPerC: h.gammaKpaPerC,
    tMeanC: h.tempC,
    u2Ms: h.u2Ms,
    esKpa: h.esKpa,
    eaKpa: h.eaKpa,
  }); // eq. 53
  const { estimated, ...terms } = h;
  return {
    ok: true,
    value: {
      et0_mm: et0,
      method: 'penman_monteith',
      timestep: 'hourly',
      estimated,
      steps: { ...terms, rsOverRso, rnlMjM2, rnMjM2, gMjM2 },
    },
  };
}

/**
 * Hourly reference evapotranspiration, FAO-56 Penman-Monteith (eq. 53), mm per
 * period. G is 0.1 Rn in daylight (eq. 45) and 0.5 Rn at night (eq. 46). For
 * night and low-sun hours Rs/Rso in eq. 39 is `nightRsOverRso` (the value of the
 * 2-3 hours before sunset) or, failing that, the climate-class simplification,
 * recorded as estimated. Returns null when temperature, solar radiation, site
 * or time inputs are missing.
 */
export function et0PenmanMonteithHourly(input: HourlyEt0Input): Et0Result<PenmanMonteithHourlySteps> | null {
  const r = evaluatePenmanMonteithHourly(input);
  return r.ok ? r.value : null;
}
