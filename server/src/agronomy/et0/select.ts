/**
 * Chooses how to obtain a day's reference evapotranspiration and says why, for
 * the decision trace.
 *
 * `auto` picks the best method the inputs support:
 * 1. FAO-56 Penman-Monteith with measured radiation (or sunshine), humidity and wind;
 * 2. Penman-Monteith with chapter 3 estimates for one or two missing inputs
 *    (fewer estimates rank higher; the count is in the reason);
 * 3. Hargreaves-Samani (eq. 52) when only temperatures exist, i.e. PM would have
 *    to estimate humidity, radiation and wind all at once;
 * 4. the provider's own ET0 (`source_native`) when nothing can be computed;
 * 5. null.
 */
import { evaluateAsceDaily } from './asce';
import { isNum, KRS_COASTAL, KRS_INTERIOR } from './constants';
import { evaluateHargreavesSamani } from './hargreaves';
import { evaluatePenmanMonteithDaily } from './penman-monteith';
import type { DailyEt0Input, Resolution } from './resolve';
import type { EstimatedInput, Et0Method, Et0MethodId, Et0Result } from './types';

/** Daily inputs plus the provider's own ET0. */
export interface Et0Inputs extends DailyEt0Input {
  /**
   * The weather provider's daily ET0, mm. null or omitted: not reported. Passed
   * through unchanged by `source_native`: a zero is a zero only when reported.
   */
  sourceNativeEt0Mm?: number | null;
}

/** One method considered, for the decision trace. */
export interface Et0Candidate {
  method: Et0MethodId;
  usable: boolean;
  et0_mm: number | null;
  estimated: EstimatedInput[];
  /** Why it can or cannot be used. */
  note: string;
}

export interface Et0Selection {
  requested: Et0Method;
  /** The method that produced `et0_mm`; null when none could. */
  method: Et0MethodId | null;
  /** mm day-1; null when no method could produce a value. Never a guessed 0. */
  et0_mm: number | null;
  estimated: EstimatedInput[];
  /** One sentence on why this method (or none) was used. */
  reason: string;
  /** Every method considered, in order of preference. */
  candidates: Et0Candidate[];
  /** The full result with intermediate steps; null for source_native and when nothing was computed. */
  result: Et0Result<unknown> | null;
}

/**
 * Above this many chapter 3 estimates (i.e. temperatures only) `auto` prefers
 * Hargreaves-Samani to Penman-Monteith.
 */
export const MAX_PM_ESTIMATES_BEFORE_HARGREAVES = 2;

function describeEstimate(e: EstimatedInput, inputs: Et0Inputs): string {
  switch (e) {
    case 'humidity':
      return 'humidity (ea from Tmin, eq. 48)';
    case 'radiation': {
      const krs = inputs.krs ?? (inputs.coastal ? KRS_COASTAL : KRS_INTERIOR);
      return `radiation (Rs from the temperature range, eq. 50, kRs ${krs})`;
    }
    case 'wind':
      return 'wind (2 m/s, chapter 3)';
    case 'night_cloudiness':
      return 'night-time Rs/Rso (climate class)';
  }
}

function describeEstimates(estimated: EstimatedInput[], inputs: Et0Inputs): string {
  return estimated.map((e) => describeEstimate(e, inputs)).join(', ');
}

function candidateFrom(
  method: Et0MethodId,
  r: Resolution<Et0Result<unknown>>,
  inputs: Et0Inputs,
): { candidate: Et0Candidate; result: Et0Result<unknown> | null } {
  if (!r.ok) {
    return {
      candidate: {
        method,
        usable: false,
        et0_mm: null,
        estimated: [],
        note: `missing ${r.missing.join(', ')}`,
      },
      result: null,
    };
  }
  const n = r.value.estimated.length;
  const note =
    n === 0
      ? 'all inputs measured'
      : `${n} input${n === 1 ? '' : 's'} estimated by FAO-56 chapter 3: ${describeEstimates(r.value.estimated, inputs)}`;
  return {
    candidate: { method, usable: true, et0_mm: r.value.et0_mm, estimated: r.value.estimated, note },
    result: r.value,
  };
}

function sourceNativeCandidate(inputs: Et0Inputs): Et0Candidate {
  const v = inputs.sourceNativeEt0Mm;
  return isNum(v)
    ? { method: 'source_native', usable: true, et0_mm: v, estimated: [], note: 'provider reported ET0' }
    : {
        method: 'source_native',
        usable: false,
        et0_mm: null,
        estimated: [],
        note: 'provider reported no ET0',
      };
}

function single(
  requested: Et0MethodId,
  candidate: Et0Candidate,
  result: Et0Result<unknown> | null,
): Et0Selection {
  return {
    requested,
    method: candidate.usable ? requested : null,
    et0_mm: candidate.et0_mm,
    estimated: candidate.estimated,
    reason: candidate.usable
      ? `${requested} as requested: ${candidate.note}`
      : `${requested} unavailable: ${candidate.note}`,
    candidates: [candidate],
    result,
  };
}

/**
 * Daily reference evapotranspiration by the requested method, or by the best
 * method the inputs support (`auto`), with the method used and why.
 */
export function et0(inputs: Et0Inputs, method: Et0Method = 'auto'): Et0Selection {
  switch (method) {
    case 'penman_monteith': {
      const c = candidateFrom('penman_monteith', evaluatePenmanMonteithDaily(inputs), inputs);
      return single(method, c.candidate, c.result);
    }
    case 'asce_simplified': {
      const c = candidateFrom('asce_simplified', evaluateAsceDaily(inputs), inputs);
      return single(method, c.candidate, c.result);
    }
    case 'hargreaves_samani': {
      const c = candidateFrom('hargreaves_samani', evaluateHargreavesSamani(inputs), inputs);
      return single(method, c.candidate, c.result);
    }
    case 'source_native':
      return single(method, sourceNativeCandidate(inputs), null);
    case 'auto':
      return auto(inputs);
  }
}

function auto(inputs: Et0Inputs): Et0Selection {
  const pm = candidateFrom('penman_monteith', evaluatePenmanMonteithDaily(inputs), inputs);
  const hs = candidateFrom('hargreaves_samani', evaluateHargreavesSamani(inputs), inputs);
  const native = sourceNativeCandidate(inputs);
  const candidates = [pm.candidate, hs.candidate, native];
  const pmEstimates = pm.candidate.estimated.length;

  const choose = (c: Et0Candidate, result: Et0Result<unknown> | null, reason: string): Et0Selection => ({
    requested: 'auto',
    method: c.method,
    et0_mm: c.et0_mm,
    estimated: c.estimated,
    reason,
    candidates,
    result,
  });

  if (pm.candidate.usable && pmEstimates === 0) {
    return choose(pm.candidate, pm.result, 'penman_monteith: radiation, humidity and wind all measured');
  }
  if (pm.candidate.usable && pmEstimates <= MAX_PM_ESTIMATES_BEFORE_HARGREAVES) {
    return choose(
      pm.candidate,
      pm.result,
      `penman_monteith with ${pm.candidate.note}; preferred to Hargreaves-Samani while some of radiation, humidity and wind are measured`,
    );
  }
  if (hs.candidate.usable) {
    const why = pm.candidate.usable
      ? 'only temperatures available (Penman-Monteith would estimate humidity, radiation and wind)'
      : `Penman-Monteith not computable (${pm.candidate.note})`;
    return choose(hs.candidate, hs.result, `hargreaves_samani: ${why}`);
  }
  if (pm.candidate.usable) {
    return choose(
      pm.candidate,
      pm.result,
      `penman_monteith with ${pm.candidate.note}; Hargreaves-Samani not computable`,
    );
  }
  if (native.usable) {
    return choose(
      native,
      null,
      `source_native: provider ET0 used unchanged; computed methods ${pm.candidate.note}`,
    );
  }
  return {
    requested: 'auto',
    method: null,
    et0_mm: null,
    estimated: [],
    reason: `no method: computed methods ${pm.candidate.note}; provider reported no ET0`,
    candidates,
    result: null,
  };
}
