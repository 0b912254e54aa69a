import type { ZoneEvidence } from '../evidence';
import {
  dryingShortfall,
  fullRatePastRaw,
  MIN_STRESS_DAYS,
  probeCurves,
  stressTaw,
  type ProbeCurves,
} from '../probe-curves';
import type { Derivation } from '../recommendation';
import { pct, round } from '../stats';

/**
 * The common start of the probe derivers (root depth, allowed depletion,
 * soil texture): read the probe's curves, wait for enough drying cycles,
 * and, for the two that need it, fit the stress curve. Each step answers
 * with the deriver's own label when the evidence is not there yet.
 */

/** An allowed depletion outside this share of TAW means a bad calibration, not a crop. */
const PLAUSIBLE_MAD = { min: 0.1, max: 0.9 };

/** The probe's curves with enough drying cycles, or the derivation that says what is missing. */
export function dryingCurvesOrWait(label: string, evidence: ZoneEvidence): ProbeCurves | Derivation {
  const reading = probeCurves(evidence);
  if (!reading.ok) return probeWait(label, reading);
  const short = dryingShortfall(reading.curves);
  if (short) return waitingForCycles(label, short);
  return reading.curves;
}

/** As dryingCurvesOrWait, plus a stress-curve fit. */
export function stressFitOrWait(
  label: string,
  evidence: ZoneEvidence,
): { curves: ProbeCurves; fit: Extract<StressFit, { outcome: 'fit' }> } | Derivation {
  const curves = dryingCurvesOrWait(label, evidence);
  if (isDerivation(curves)) return curves;
  const fit = stressFit(curves);
  if (fit.outcome !== 'fit') return stressOutcome(label, curves, fit);
  return { curves, fit };
}

export function isDerivation(value: object): value is Derivation {
  return 'outcome' in value;
}

/** What a probe deriver says when the probe cannot be read yet. */
function probeWait(label: string, reading: { waiting_for: string; detail: string }): Derivation {
  return {
    outcome: 'insufficient',
    waiting_for: reading.waiting_for,
    line: `${label}: waiting for ${reading.waiting_for} (${reading.detail}).`,
  };
}

function waitingForCycles(label: string, shortfall: string): Derivation {
  return {
    outcome: 'insufficient',
    waiting_for: "the probe's drying cycles",
    line: `${label}: waiting for the probe's drying cycles (${shortfall}).`,
  };
}

export type StressFit =
  | { outcome: 'fit'; mad: number; taw_mm: number; count: number; line: string; days: string[] }
  | { outcome: 'none' | 'full_rate' | 'implausible'; line: string };

/** What the probe's stress days say about TAW / RAW. */
function stressFit(c: ProbeCurves): StressFit {
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
  if (mad < PLAUSIBLE_MAD.min || mad > PLAUSIBLE_MAD.max) {
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
function stressOutcome(
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
