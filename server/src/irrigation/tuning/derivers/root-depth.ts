import type { ZoneEvidence } from '../evidence';
import { dryingShortfall, probeCurves, type ProbeCurves } from '../probe-curves';
import type { Confidence, Deriver, Derivation } from '../recommendation';
import { pct, round, roundTo, sum } from '../stats';

/**
 * `root_depth_mm` from a bound, calibrated probe (probe-curves.ts). The
 * probe's drying curve says how much water the root zone gives per probe
 * percent: when the anchors rise by half the modelled ETc on drying days
 * (scale 0.5), the roots draw from twice the soil the model assumes. The
 * root depth takes the whole factor (depth / scale), holding the soil
 * texture, the allowed depletion and the probe's calibration as right (the
 * evidence says so): of the three, the depth is the catalog's rough guess
 * and the one the probe's depth-per-percent measures.
 *
 * Suggested when at least 8 drying days in 3 cycles exist, two thirds of
 * the cycles agree within 25 %, the refills agree with the drying curve
 * (when 2 or more were anchored), the fitted depth lies in 50..2000 mm, and
 * it differs from the depth in force by 15 % or more. Rounded to 10 mm.
 */

export const CHANGE_SHARE = 0.15;
const PLAUSIBLE_MM = { min: 50, max: 2000 };
const EVIDENCE_CYCLES = 6;

export const rootDepthDeriver: Deriver = {
  field: 'root_depth_mm',
  derive(evidence: ZoneEvidence): Derivation {
    const reading = probeCurves(evidence);
    if (!reading.ok) return probeWait('Root depth', reading);
    const c = reading.curves;
    const short = dryingShortfall(c);
    if (short) return waitingForCycles('Root depth', short);
    const scale = c.scale as number;
    const depth = c.zone.capacity.root_depth_mm;
    const source =
      c.zone.capacity.root_depth_source === 'zone' ? 'set on the zone' : `the ${c.zone.species} default`;
    const dried = dryingLine(c);
    if (!c.cyclesAgree) {
      return {
        outcome: 'insufficient',
        waiting_for: 'drying cycles that agree',
        line: `Root depth: ${dried}, but the cycles disagree (${c.cycleScales.map(pct).join(', ')} of the modelled rate).`,
      };
    }
    if (!c.refillsAgree) {
      return {
        outcome: 'insufficient',
        waiting_for: 'drying and refill curves that agree',
        line:
          `Root depth: ${dried}, but the refills do not follow (${refillLine(c)}); ` +
          "check the probe's calibration (saturation_pct_soil, target_min_pct_soil).",
      };
    }
    const fitted = depth / scale;
    if (Math.abs(fitted / depth - 1) < CHANGE_SHARE) {
      return { outcome: 'ok', line: `Root depth: ${dried}; the ${depth} mm in use (${source}) fits.` };
    }
    if (fitted < PLAUSIBLE_MM.min || fitted > PLAUSIBLE_MM.max) {
      return {
        outcome: 'insufficient',
        waiting_for: 'a plausible probe fit',
        line:
          `Root depth: ${dried}, which would put the roots at ${Math.round(fitted)} mm; ` +
          "that is not a root zone: check the probe's calibration.",
      };
    }
    const suggested = roundTo(fitted, 10);
    return {
      outcome: 'suggest',
      line: `Root depth: ${dried}; the roots draw from about ${suggested} mm, not ${depth} mm.`,
      suggestion: {
        field: 'root_depth_mm',
        current_value: evidence.zone.root_depth_mm ?? null,
        suggested_value: suggested,
        companion_fields: [],
        headline:
          `Set the root depth to ${suggested} mm (now ${depth} mm, ${source}): the probe shows the root zone ` +
          `${scale < 1 ? 'holding more' : 'holding less'} water than modelled.`,
        evidence: [
          `${dried}.`,
          `Taking the soil texture (${c.zone.soil_texture}), the allowed depletion (${pct(c.zone.capacity.mad)}) ` +
            `and the probe's calibration (field capacity ${c.saturation_pct} %, refill point ${c.refill_pct} %) as right, ` +
            `the root zone holds ${round(c.raw_mm / scale, 1)} mm between the two, not ${round(c.raw_mm, 1)} mm: ` +
            `a depth of ${Math.round(fitted)} mm.`,
          ...(c.refills.length > 0 ? [`Refills: ${refillLine(c)}.`] : []),
          ...c.cycles.slice(-EVIDENCE_CYCLES).map(cycleLine),
        ],
        confidence: confidenceOf(c),
      },
    };
  },
};

/** What a probe deriver says when the probe cannot be read yet. */
export function probeWait(label: string, reading: { waiting_for: string; detail: string }): Derivation {
  return {
    outcome: 'insufficient',
    waiting_for: reading.waiting_for,
    line: `${label}: waiting for ${reading.waiting_for} (${reading.detail}).`,
  };
}

export function waitingForCycles(label: string, shortfall: string): Derivation {
  return {
    outcome: 'insufficient',
    waiting_for: "the probe's drying cycles",
    line: `${label}: waiting for the probe's drying cycles (${shortfall}).`,
  };
}

/** `the probe dried 41 mm over 12 drying days in 4 cycles where the model expects 80 mm (51 %)`. */
export function dryingLine(c: ProbeCurves): string {
  const seen = sum(c.drying.map((p) => p.end_mm - p.start_mm));
  const modelled = sum(c.drying.map((p) => p.etc_potential_mm));
  return (
    `the probe dried ${round(seen, 1)} mm over ${c.drying.length} drying days in ${c.cycles.length} cycles ` +
    `where the model expects ${round(modelled, 1)} mm (${pct(c.scale as number)})`
  );
}

function refillLine(c: ProbeCurves): string {
  const seen = sum(c.refills.map((r) => r.pair.end_mm)) / c.refills.length;
  const fit = sum(c.refills.map((r) => r.predicted_fit_mm)) / c.refills.length;
  const model = sum(c.refills.map((r) => r.predicted_model_mm)) / c.refills.length;
  return (
    `the morning after ${c.refills.length} watering(s) the probe read ${round(seen, 1)} mm of depletion on average, ` +
    `where the drying curve predicts ${round(fit, 1)} mm and the model ${round(model, 1)} mm`
  );
}

function cycleLine(cycle: readonly ProbeCurvesCyclePair[]): string {
  const first = cycle[0] as ProbeCurvesCyclePair;
  const last = cycle.at(-1) as ProbeCurvesCyclePair;
  const seen = sum(cycle.map((p) => p.end_mm - p.start_mm));
  const modelled = sum(cycle.map((p) => p.etc_potential_mm));
  const span = first.date === last.date ? first.date : `${first.date}..${last.date}`;
  return (
    `${span}: from ${round(first.start_mm, 1)} to ${round(last.end_mm, 1)} mm depletion, ` +
    `${round(seen, 1)} mm where the model expects ${round(modelled, 1)} mm (${pct(seen / modelled)}).`
  );
}

type ProbeCurvesCyclePair = ProbeCurves['drying'][number];

function confidenceOf(c: ProbeCurves): Confidence {
  if (c.cycles.length >= 5 && c.drying.length >= 15 && c.refills.length >= 2) return 'high';
  return 'medium';
}
