/**
 * ASCE-EWRI (2005) standardized reference evapotranspiration equation
 * ("The ASCE Standardized Reference Evapotranspiration Equation", Allen et al.,
 * eds.), with the simplified clear-sky radiation Rso = (0.75 + 2e-5 z) Ra
 * (ASCE eq. 19, the same as FAO-56 eq. 37): the method id `asce_simplified`.
 *
 * For the short reference (ETos, clipped grass): Cn = 900, Cd = 0.34 for days;
 * Cn = 37 with Cd = 0.24 in daytime and 0.96 at night for hours (ASCE Table 1).
 * The daily form is FAO-56 eq. 6 with ASCE's constants (sigma = 4.901e-9, Rs/Rso
 * limited to 0.3..1.0); the hourly form differs from FAO-56 eq. 53 by the
 * day/night Cd and, for the tall reference, by G.
 * The chapter 3 missing-data procedures of FAO-56 (also ASCE Appendix E) apply
 * and are recorded in `estimated`.
 */
import {
  ASCE_COEFFICIENTS,
  ASCE_STEFAN_BOLTZMANN_DAY,
  ASCE_STEFAN_BOLTZMANN_HOUR,
  KELVIN_OFFSET_RADIATION,
} from './constants';
import { penmanMonteith } from './penman-monteith';
import { netRadiation } from './radiation';
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

export type AsceReference = 'short' | 'tall';

/** Soil heat flux fractions of Rn for hourly periods (ASCE Table 1). */
const ASCE_HOURLY_G_FRACTION: Record<AsceReference, { day: number; night: number }> = {
  short: { day: 0.1, night: 0.5 },
  tall: { day: 0.04, night: 0.2 },
};

/** ASCE cloudiness function fcd = 1.35 Rs/Rso - 0.35 with 0.3 <= Rs/Rso <= 1.0 (ASCE eq. 18, 45). */
export function asceCloudinessFunction(rsOverRso: number): number {
  const ratio = Math.min(1, Math.max(0.3, rsOverRso));
  return 1.35 * ratio - 0.35;
}

/** ASCE daily net longwave radiation, MJ m-2 day-1 (ASCE eq. 17). */
export function asceNetLongwaveDaily(tMaxC: number, tMinC: number, eaKpa: number, fcd: number): number {
  const tMaxK = tMaxC + KELVIN_OFFSET_RADIATION;
  const tMinK = tMinC + KELVIN_OFFSET_RADIATION;
  return ASCE_STEFAN_BOLTZMANN_DAY * fcd * (0.34 - 0.14 * Math.sqrt(eaKpa)) * ((tMaxK ** 4 + tMinK ** 4) / 2);
}

/** ASCE hourly net longwave radiation, MJ m-2 hour-1 (ASCE eq. 44). */
export function asceNetLongwaveHourly(tC: number, eaKpa: number, fcd: number): number {
  const tK = tC + KELVIN_OFFSET_RADIATION;
  return ASCE_STEFAN_BOLTZMANN_HOUR * fcd * (0.34 - 0.14 * Math.sqrt(eaKpa)) * tK ** 4;
}

export interface AsceDailySteps extends Omit<DailyTerms, 'estimated'> {
  reference: AsceReference;
  fcd: number;
  rnlMjM2Day: number;
  rnMjM2Day: number;
  cn: number;
  cd: number;
}

export interface AsceHourlySteps extends Omit<HourlyTerms, 'estimated'> {
  reference: AsceReference;
  fcd: number;
  rnlMjM2: number;
  rnMjM2: number;
  gMjM2: number;
  /** ASCE daytime: Rn > 0. */
  daytime: boolean;
  cn: number;
  cd: number;
}

/** Daily ASCE standardized reference ET with the reason it could not be computed. */
export function evaluateAsceDaily(
  input: DailyEt0Input,
  reference: AsceReference = 'short',
): Resolution<Et0Result<AsceDailySteps>> {
  const r = resolveDaily(input);
  if (!r.ok) return r;
  const d = r.value;
  if (!(d.rsoMjM2Day > 0)) return { ok: false, missing: ['clear-sky radiation (Rso is 0: polar night)'] };
  const fcd = asceCloudinessFunction(d.rsMjM2Day / d.rsoMjM2Day);
  const rnlMjM2Day = asceNetLongwaveDaily(d.tMaxC, d.tMinC, d.eaKpa, fcd);
  const rnMjM2Day = netRadiation(d.rnsMjM2Day, rnlMjM2Day);
  const { cn, cd } = ASCE_COEFFICIENTS[reference].daily;
  const et0 = penmanMonteith(
    {
      deltaKpaPerC: d.deltaKpaPerC,
      rnMjM2: rnMjM2Day,
      gMjM2: d.gMjM2Day,
      gammaKpaPerC: d.gammaKpaPerC,
      tMeanC: d.tMeanC,
      u2Ms: d.u2Ms,
      esKpa: d.esKpa,
      eaKpa: d.eaKpa,
    },
    cn,
    cd,
  );
  const { estimated, ...terms } = d;
  return {
    ok: true,
    value: {
      et0_mm: et0,
      method: 'asce_simplified',
      timestep: 'daily',
      estimated,
      steps: { ...terms, reference, fcd, rnlMjM2Day, rnMjM2Day, cn, cd },
    },
  };
}

/** Daily ASCE-EWRI standardized reference ET (short reference by default), mm day-1, or null. */
export function et0AsceDaily(
  input: DailyEt0Input,
  reference: AsceReference = 'short',
): Et0Result<AsceDailySteps> | null {
  const r = evaluateAsceDaily(input, reference);
  return r.ok ? r.value : null;
}

/** Hourly ASCE standardized reference ET with the reason it could not be computed. */
export function evaluateAsceHourly(
  input: HourlyEt0Input,
  reference: AsceReference = 'short',
): Resolution<Et0Result<AsceHourlySteps>> {
  const r = resolveHourly(input);
  if (!r.ok) return r;
  const h = r.value;
  // Sun under 0.3 rad: fcd from the 2-3 hours before sunset (ASCE eq. 45 note); resolveHourly guarantees one.
  const ratio = (h.lowSun ? h.nightRsOverRso : h.rsMjM2 / h.rsoMjM2) ?? 0;
  const fcd = asceCloudinessFunction(ratio);
  const rnlMjM2 = asceNetLongwaveHourly(h.tempC, h.eaKpa, fcd);
  const rnMjM2 = netRadiation(h.rnsMjM2, rnlMjM2);
  const daytime = rnMjM2 > 0;
  const g = ASCE_HOURLY_G_FRACTION[reference];
  const gMjM2 = (daytime ? g.day : g.night) * rnMjM2;
  const { cn, cd } = daytime
    ? ASCE_COEFFICIENTS[reference].hourlyDay
    : ASCE_COEFFICIENTS[reference].hourlyNight;
  const et0 = penmanMonteith(
    {
      deltaKpaPerC: h.deltaKpaPerC,
      rnMjM2,
      gMjM2,
      gammaKpaPerC: h.gammaKpaPerC,
      tMeanC: h.tempC,
      u2Ms: h.u2Ms,
      esKpa: h.esKpa,
      eaKpa: h.eaKpa,
    },
    cn,
    cd,
  );
  const { estimated, ...terms } = h;
  return {
    ok: true,
    value: {
      et0_mm: et0,
      method: 'asce_simplified',
      timestep: 'hourly',
      estimated,
      steps: { ...terms, reference, fcd, rnlMjM2, rnMjM2, gMjM2, daytime, cn, cd },
    },
  };
}

/** Hourly ASCE-EWRI standardized reference ET (short reference by default), mm per hour, or null. */
export function et0AsceHourly(
  input: HourlyEt0Input,
  reference: AsceReference = 'short',
): Et0Result<AsceHourlySteps> | null {
  const r = evaluateAsceHourly(input, reference);
  return r.ok ? r.value : null;
}
