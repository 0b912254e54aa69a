import { monthlyKc } from '../../agronomy/catalogs/species';
import { bucketStep, type BucketStepResult, type DepletionState } from '../../agronomy/soil/water-balance';
import type { CompleteZone } from './zone-inputs';
import type { Et0Day } from './et0-days';
import { monthOf } from './et0-days';

/**
 * The soil (FAO-56 root-zone depletion) model for one zone.
 *
 * UNKNOWN-START RULE (the honest option). Nothing tells the engine the root
 * zone's water content before the first day it has evidence for, so the
 * replay starts from the whole interval [0, TAW] ("anywhere between field
 * capacity and wilting point") at the start of the oldest past day and lets
 * the evidence narrow it: `bucketStep` is monotone, so dry days push the lower
 * bound up by ETc, a saturating rain (credit >= the upper bound) collapses the
 * interval to an exact 0, and unknown days widen it again.
 *
 * Decision on an interval [lo, hi] against the trigger RAW:
 * - due when lo >= RAW (even the wettest state consistent with the evidence
 *   has used up the readily available water);
 * - not due when hi < RAW;
 * - unknown otherwise: NOTHING is planned (wrong water is worse than none)
 *   and the reason says the depletion is not known.
 * A due zone is refilled by lo only (the deficit the evidence proves), never
 * by the midpoint or by hi: the run can under-water, never over-water.
 */

export interface DepletionRange {
  /** Exact depletion when known, else null. */
  exact: number | null;
  lo: number;
  hi: number;
}

export function rangeOf(state: DepletionState, taw: number): DepletionRange {
  if (typeof state === 'number') return { exact: state, lo: state, hi: state };
  if (state.depletion_mm !== null) {
    return { exact: state.depletion_mm, lo: state.depletion_mm, hi: state.depletion_mm };
  }
  const r = state.depletion_range_mm ?? [0, taw];
  return { exact: null, lo: r[0], hi: r[1] };
}

export function stateOf(r: BucketStepResult): DepletionState {
  return { depletion_mm: r.depletion_mm, depletion_range_mm: r.depletion_range_mm };
}

export type SoilNeed = 'due' | 'not_due' | 'unknown';

export function soilNeed(range: DepletionRange, rawMm: number): SoilNeed {
  if (range.lo >= rawMm) return 'due';
  if (range.hi < rawMm) return 'not_due';
  return 'unknown';
}

/** Water-plan `water_need`: `due`, `low` (below the trigger but at least half way), `none`, `unknown`. */
export function waterNeedLabel(range: DepletionRange, rawMm: number): 'due' | 'low' | 'none' | 'unknown' {
  const need = soilNeed(range, rawMm);
  if (need === 'due') return 'due';
  if (need === 'unknown') return 'unknown';
  return range.hi >= rawMm / 2 ? 'low' : 'none';
}

export interface RainEvidence {
  rain_mm: number | null;
  source: 'gauge' | 'model_archive' | 'forecast' | 'none';
}

export interface SoilStepTrace {
  date_local: string;
  kind: 'past' | 'applied_today' | 'projected';
  et0_mm: number | null;
  et0_method: string | null;
  kc: number;
  etc_mm: number | null;
  rain_mm: number | null;
  rain_source: RainEvidence['source'];
  rain_credited_mm: number | null;
  net_irrigation_mm: number | null;
  depletion_mm: number | null;
  depletion_range_mm: [number, number] | null;
  missing: string[];
}

export function kcFor(zone: CompleteZone, date: string, lat: number): number {
  return monthlyKc(zone.species, monthOf(date), lat);
}

/** One day of the bucket with its trace row. */
export function soilStep(
  zone: CompleteZone,
  state: DepletionState,
  date: string,
  kind: SoilStepTrace['kind'],
  et: Et0Day,
  rain: RainEvidence,
  netIrrigationMm: number | null,
  lat: number,
): { state: DepletionState; trace: SoilStepTrace } {
  const kc = kcFor(zone, date, lat);
  const r = bucketStep(
    state,
    {
      et0_mm: et.et0_mm,
      rain_mm: rain.rain_mm,
      net_irrigation_mm: netIrrigationMm,
      kc,
      sun_factor: zone.sun_factor,
    },
    { taw_mm: zone.capacity.taw_mm, rain_cap_mm: zone.rain_cap_mm },
  );
  return {
    state: stateOf(r),
    trace: {
      date_local: date,
      kind,
      et0_mm: round(et.et0_mm),
      et0_method: et.method,
      kc,
      etc_mm: round(r.etc_mm),
      rain_mm: round(rain.rain_mm),
      rain_source: rain.source,
      rain_credited_mm: round(r.rain_credited_mm),
      net_irrigation_mm: round(netIrrigationMm),
      depletion_mm: round(r.depletion_mm),
      depletion_range_mm: r.depletion_range_mm
        ? [round(r.depletion_range_mm[0]) as number, round(r.depletion_range_mm[1]) as number]
        : null,
      missing: r.missing,
    },
  };
}

/** Subtract water already applied today (before today's decision) from the start-of-day state. */
export function applyToday(
  zone: CompleteZone,
  state: DepletionState,
  date: string,
  netMm: number,
  lat: number,
): { state: DepletionState; trace: SoilStepTrace } {
  return soilStep(
    zone,
    state,
    date,
    'applied_today',
    { date_local: date, et0_mm: 0, method: null, reason: 'applied water only' },
    { rain_mm: 0, source: 'none' },
    netMm,
    lat,
  );
}

export function round(x: number | null, digits = 2): number | null {
  if (x === null) return null;
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
