import type { SUN_EXPOSURES } from '../../config/schema';

/**
 * Sun exposure factors: one per `zones.<slug>.sun_exposure` value (spec 2.6).
 * The factor multiplies Kc x ET0 (ETc = Kc x ET0 x factor).
 *
 * Source: the microclimate factor k_mc of the Landscape Coefficient Method,
 * Costello, Matheny, Clark & Jones (2000), "A Guide to Estimating Irrigation
 * Water Needs of Landscape Plantings in California" (WUCOLS companion, UC
 * Cooperative Extension / California DWR): average microclimate 1.0; low
 * microclimate (shaded, protected, north-facing) 0.5-0.9.
 * - full: average microclimate, 1.0.
 * - partial: upper bound of the low range, 0.9 (shaded for part of the day).
 * - shade: midpoint of the low range, 0.7.
 *
 * The shade value agrees with a measured case: San Antonio Water System's
 * four-year study of 64 St. Augustine lawns needed about 0.75 in/week in
 * full sun and 0.5 in/week in shade (ratio 0.67; C. Finch, SAWS, 2006).
 */

export type SunExposure = (typeof SUN_EXPOSURES)[number];

export interface SunEntry {
  exposure: SunExposure;
  factor: number;
  source: string;
}

const SRC_LCM = 'Costello et al. 2000, Landscape Coefficient Method, microclimate factor k_mc';

export const SUN_CATALOG: Readonly<Record<SunExposure, SunEntry>> = {
  full: { exposure: 'full', factor: 1.0, source: SRC_LCM + ': average microclimate 1.0' }, // LCM average k_mc
  partial: { exposure: 'partial', factor: 0.9, source: SRC_LCM + ': low 0.5-0.9, upper bound' }, // LCM low, upper bound
  shade: { exposure: 'shade', factor: 0.7, source: SRC_LCM + ': low 0.5-0.9, midpoint' }, // LCM low, midpoint
};

/** Spec 2.6 gives `sun_exposure` no default; an unset exposure is scheduled as full sun (the most water). */
export const DEFAULT_SUN_EXPOSURE: SunExposure = 'full';

export function sunFactor(exposure: SunExposure | null | undefined): number {
  return SUN_CATALOG[exposure ?? DEFAULT_SUN_EXPOSURE].factor;
}
