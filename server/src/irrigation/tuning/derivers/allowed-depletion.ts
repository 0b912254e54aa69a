import type { ZoneEvidence } from '../evidence';
import type { Deriver, Derivation } from '../recommendation';
import { pct, roundTo } from '../stats';
import { isDerivation, stressFitOrWait } from './probe-derivation';

/**
 * `mad_pct_override` from a bound, calibrated probe's stress curve
 * (probe-curves.ts): on days the soil dried past its refill point (RAW) the
 * crop's drying slows as FAO-56 eq. 84 says, k = (TAW - D) / (TAW - RAW).
 * Each such day places the wilting point; the allowed depletion the probe
 * shows is RAW / TAW' (a ratio no scale error changes). It goes to the
 * allowed depletion while that is the species default; an owner's
 * `mad_pct_override` is kept and the soil texture judged instead
 * (soil-texture.ts).
 *
 * Suggested with at least 3 stress days whose estimates agree within 25 %,
 * a fit inside 10..90 %, 10 points or more from the allowed depletion in
 * force; rounded to 5 %. A zone watered at its trigger rarely dries past
 * it, so this mostly waits: that is the honest answer.
 */

export const CHANGE_POINTS = 10;

export const allowedDepletionDeriver: Deriver = {
  field: 'mad_pct_override',
  derive(evidence: ZoneEvidence): Derivation {
    const label = 'Allowed depletion';
    const fitted = stressFitOrWait(label, evidence);
    if (isDerivation(fitted)) return fitted;
    const { curves: c, fit } = fitted;
    const current = c.zone.capacity.mad;
    const suggested = roundTo(fit.mad * 100, 5);
    const fits = Math.abs(fit.mad - current) * 100 < CHANGE_POINTS;
    if (fits) {
      return {
        outcome: 'ok',
        line: `${label}: ${fit.line}; the ${pct(current)} in use fits.`,
      };
    }
    if (c.zone.capacity.mad_source === 'zone') {
      return {
        outcome: 'ok',
        line: `${label}: ${fit.line}, but ${pct(current)} is set on the zone; the soil texture is judged against it instead.`,
      };
    }
    return {
      outcome: 'suggest',
      line: `${label}: ${fit.line}, not the ${pct(current)} the ${c.zone.species} default allows.`,
      suggestion: {
        field: 'mad_pct_override',
        current_value: evidence.zone.mad_pct_override ?? null,
        suggested_value: suggested,
        companion_fields: [],
        headline: `Set the allowed depletion to ${suggested} %: the probe shows the crop's stress begin there, not at ${pct(current)}.`,
        evidence: [`${fit.line}.`, ...fit.days],
        confidence: fit.count >= 5 ? 'high' : 'medium',
      },
    };
  },
};
