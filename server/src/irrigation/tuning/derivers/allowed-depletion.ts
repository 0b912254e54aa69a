import type { ZoneEvidence } from '../evidence';
import {
  dryingShortfall,
  fullRatePastRaw,
  MIN_STRESS_DAYS,
  probeCurves,
  stressTaw,
  type ProbeCurves,
} from '../probe-curves';
import type { Deriver, Derivation } from '../recommendation';
import { pct, round, roundTo } from '../stats';
import { probeWait, waitingForCycles } from './root-depth';

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
const PLAUSIBLE = { min: 0.1, max: 0.9 };

export const allowedDepletionDeriver: Deriver = {
  field: 'mad_pct_override',
  derive(evidence: ZoneEvidence): Derivation {
    const label = 'Allowed depletion';
    const reading = probeCurves(evidence);
    if (!reading.ok) return probeWait(label, reading);
    const c = reading.curves;
    const short = dryingShortfall(c);
    if (short) return waitingForCycles(label, short);
    const fit = stressFit(c);
    if (fit.outcome !== 'fit') return stressOutcome(label, c, fit);
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

export type StressFit =
  | { outcome: 'fit'; mad: number; taw_mm: number; count: number; line: string; days: string[] }
  | { outcome: 'none' | 'full_rate' | 'implausible'; line: string };

/** What the probe's stress days say about TAW / RAW. */
export function stressFit(c: ProbeCurves): StressFit {
  const st = stressTaw(c);
  if (!st) {
    const full = fullRatePastRaw(c);
    if (full.length >= MIN_STRESS_DAYS) {
      return {
        outcome: 'full_rate',
        line:
          `the crop still drew at its full rate on ${full.length} days well past the refill point ` +
          `(${full.map((s) => s.pair.date).join(', ')}): the probe's refill point (target_min_pct_soil ` +
          `${c.refill_pct} %) may be wetter than the crop needs`,
      };
    }
    const slowed = c.stress.filter((s) => s.taw_mm !== null).length;
    return {
      outcome: 'none',
      line:
        `${slowed} day(s) dried past the refill point with slowed drying; ${MIN_STRESS_DAYS} that agree are ` +
        'needed (a zone watered at its trigger rarely shows it)',
    };
  }
  const mad = c.raw_mm / st.taw_mm;
  if (mad < PLAUSIBLE.min || mad > PLAUSIBLE.max) {
    return {
      outcome: 'implausible',
      line: `the stress curve puts the refill point at ${pct(mad)} of the water the crop can reach; check the probe's calibration`,
    };
  }
  return {
    outcome: 'fit',
    mad,
    taw_mm: st.taw_mm,
    count: st.days.length,
    line:
      `on ${st.days.length} days past the refill point the drying slowed as if the wilting point lay at ` +
      `${round(st.taw_mm, 1)} mm depletion (the model: ${round(c.taw_mm, 1)} mm), so the refill point at ` +
      `${round(c.raw_mm, 1)} mm is ${pct(mad)} of the water the crop can reach`,
    days: st.days.map(
      (s) =>
        `${s.pair.date}: from ${round(s.pair.start_mm, 1)} mm depletion the probe dried ` +
        `${round(s.pair.end_mm - s.pair.start_mm, 1)} mm, ${pct(s.k)} of the full rate.`,
    ),
  };
}

/** The derivation when the stress curve gives no fit. */
export function stressOutcome(
  label: string,
  c: ProbeCurves,
  fit: Exclude<StressFit, { outcome: 'fit' }>,
): Derivation {
  if (fit.outcome === 'none') {
    return {
      outcome: 'insufficient',
      waiting_for: "the probe's stress curve",
      line: `${label}: waiting for the probe's stress curve (${fit.line}).`,
    };
  }
  if (fit.outcome === 'implausible') {
    return { outcome: 'insufficient', waiting_for: 'a plausible probe fit', line: `${label}: ${fit.line}.` };
  }
  return { outcome: 'ok', line: `${label}: ${fit.line}; the ${pct(c.zone.capacity.mad)} in use is kept.` };
}
