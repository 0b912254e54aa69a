/**
 * Hargreaves-Samani reference evapotranspiration, FAO-56 chapter 3
 * ("Alternative equation for ETo when weather data are missing", eq. 52):
 * ET0 = 0.0023 (Tmean + 17.8) (Tmax - Tmin)^0.5 Ra, Ra in mm day-1 (0.408 x MJ m-2 day-1).
 * The paper advises checking it against PM in the region before use; it is
 * for daily or longer periods only.
 */
import {
  HARGREAVES_COEFFICIENT,
  HARGREAVES_TEMPERATURE_OFFSET_C,
  MM_PER_MJ_M2,
  degreesToRadians,
  isNum,
} from './constants';
import { meanAirTemperature } from './atmosphere';
import { extraterrestrialRadiationDaily } from './radiation';
import type { Resolution } from './resolve';
import type { Et0Result } from './types';

/**
 * Eq. 52 from its terms: Tmax, Tmin and Tmean in C (Tmean is (Tmax + Tmin)/2 in
 * the paper) and Ra in MJ m-2 day-1. Returns mm day-1, or null when Tmax < Tmin.
 */
export function hargreavesSamani(
  tMaxC: number,
  tMinC: number,
  tMeanC: number,
  raMjM2Day: number,
): number | null {
  if (tMaxC < tMinC) return null;
  return (
    HARGREAVES_COEFFICIENT *
    (tMeanC + HARGREAVES_TEMPERATURE_OFFSET_C) *
    Math.sqrt(tMaxC - tMinC) *
    (MM_PER_MJ_M2 * raMjM2Day)
  );
}

export interface HargreavesInput {
  tMaxC: number | null;
  tMinC: number | null;
  /** Optional; defaults to (Tmax + Tmin)/2 (eq. 9), as eq. 52 defines it. */
  tMeanC?: number | null;
  /** Site latitude in DECIMAL DEGREES, north positive. */
  latitudeDeg: number | null;
  dayOfYear: number | null;
}

export interface HargreavesSteps {
  tMaxC: number;
  tMinC: number;
  tMeanC: number;
  latitudeRad: number;
  dayOfYear: number;
  raMjM2Day: number;
  raMmDay: number;
}

/** Hargreaves-Samani with the reason it could not be computed. */
export function evaluateHargreavesSamani(input: HargreavesInput): Resolution<Et0Result<HargreavesSteps>> {
  const missing: string[] = [];
  const { tMaxC, tMinC, latitudeDeg, dayOfYear } = input;
  if (!isNum(tMaxC)) missing.push('tMaxC');
  if (!isNum(tMinC)) missing.push('tMinC');
  if (!(isNum(latitudeDeg) && latitudeDeg >= -90 && latitudeDeg <= 90)) missing.push('latitudeDeg');
  if (!(isNum(dayOfYear) && Number.isInteger(dayOfYear) && dayOfYear >= 1 && dayOfYear <= 366))
    missing.push('dayOfYear');
  if (!isNum(tMaxC) || !isNum(tMinC) || !isNum(latitudeDeg) || !isNum(dayOfYear) || missing.length > 0) {
    return { ok: false, missing };
  }
  if (tMaxC < tMinC) return { ok: false, missing: ['tMaxC >= tMinC'] };
  const tMeanC = isNum(input.tMeanC) ? input.tMeanC : meanAirTemperature(tMaxC, tMinC);
  const latitudeRad = degreesToRadians(latitudeDeg); // eq. 22
  const raMjM2Day = extraterrestrialRadiationDaily(latitudeRad, dayOfYear); // eq. 21
  const et0 = hargreavesSamani(tMaxC, tMinC, tMeanC, raMjM2Day) ?? 0; // eq. 52 (Tmax >= Tmin checked)
  return {
    ok: true,
    value: {
      et0_mm: et0,
      method: 'hargreaves_samani',
      timestep: 'daily',
      estimated: [],
      steps: { tMaxC, tMinC, tMeanC, latitudeRad, dayOfYear, raMjM2Day, raMmDay: MM_PER_MJ_M2 * raMjM2Day },
    },
  };
}

/** Daily ET0 by Hargreaves-Samani (eq. 52), mm day-1, or null without both temperatures and the site. */
export function et0HargreavesSamani(input: HargreavesInput): Et0Result<HargreavesSteps> | null {
  const r = evaluateHargreavesSamani(input);
  return r.ok ? r.value : null;
}
