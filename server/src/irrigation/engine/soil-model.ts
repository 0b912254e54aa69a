import { isExact, rootZoneDay } from '../../agronomy/soil/root-zone-day';
import type { SoilLedgerRow } from '../../store/soil-ledger';
import { kcOf, type SoilState } from '../soil/ledger-day';
import type { Et0Day } from './et0-days';
import type { CompleteZone } from './zone-inputs';

/**
 * The soil (FAO-56 root-zone depletion) model's decision for one zone and
 * plan day, and its projection to the next day.
 *
 * WHEN. The next chance to water after today's session is the next legal
 * session (tomorrow, unless restrictions skip days). A zone is due today when,
 * without water, its depletion would pass the trigger (RAW) before that
 * session: start depletion + the forecast ETc until then - the rain credited
 * over the next 24 hours >= RAW. Waiting for the depletion to reach RAW first
 * would leave the crop past it until the next morning. With an interval
 * [lo, hi] of possible depletions:
 * - due when even lo gets there (proven: evidence, not assumptions);
 * - not due when even hi does not;
 * - unknown otherwise: nothing is planned (`depletion_unknown`).
 *
 * HOW MUCH. Water enters before the day's ETc (FAO-56 Example 38 order), so
 * the refill is the start depletion less the rain credit: it brings the root
 * zone to field capacity.
 * - Known state: lo (= hi).
 * - Still a range but proven due: one ESTABLISHING REFILL to the upper bound
 *   hi (`establishing_refill`). Water in reaching the upper bound collapses
 *   the range (the bucket is known full afterwards), so the range closes
 *   instead of persisting all season. At most hi - lo more than the crop
 *   needed drains; the cap (`max_run_minutes`) bounds the run.
 * - A run the cap cut short leaves the root zone short: the remainder
 *   carries into the next legal session (`cap_carryover`), whatever the
 *   trigger says, until the zone is full.
 */

/** A depletion interval as the plan reads it; `exact` when the bounds have met. */
export interface DepletionRange {
  exact: number | null;
  lo: number;
  hi: number;
}

export function rangeOf(state: SoilState): DepletionRange {
  return { exact: isExact(state) ? state.lo : null, lo: state.lo, hi: state.hi };
}

export type SoilNeed = 'due' | 'not_due' | 'unknown';

export interface SoilDue {
  need: SoilNeed;
  /** Depletion expected at the next session without water: lo and hi ends. */
  projected_lo: number;
  projected_hi: number;
  /** Net depth a run today should put in before the rain credit: lo when known, hi when a range. */
  refill_mm: number;
  kind: 'water' | 'establishing_refill' | 'cap_carryover';
  /** Due by the policy's range rule (missing evidence, the upper end past the allowance), not by the lower end. */
  range_rule?: boolean;
}

/**
 * `horizonEtcMm`: the forecast ETc until the next legal session (null when
 * the forecast has no ET0 for it: only a depletion already past RAW proves a
 * need then). `creditMm`: rain credited over the next 24 hours.
 */
export function soilDue(
  state: SoilState,
  zone: CompleteZone,
  horizonEtcMm: number | null,
  creditMm: number,
  carry: boolean,
): SoilDue {
  const raw = zone.capacity.raw_mm;
  const projectedLo = state.lo + (horizonEtcMm ?? 0) - creditMm;
  const projectedHi = horizonEtcMm === null ? zone.capacity.taw_mm : state.hi + horizonEtcMm - creditMm;
  const known = isExact(state);
  const need: SoilNeed = carry || projectedLo >= raw ? 'due' : projectedHi < raw ? 'not_due' : 'unknown';
  return {
    need,
    projected_lo: projectedLo,
    projected_hi: projectedHi,
    refill_mm: known ? state.lo : state.hi,
    kind: carry ? 'cap_carryover' : known ? 'water' : 'establishing_refill',
  };
}

/** Water-plan `water_need`: `due`, `low` (below the trigger but at least half way), `none`, `unknown`. */
export function waterNeedLabel(due: SoilDue, rawMm: number): 'due' | 'low' | 'none' | 'unknown' {
  if (due.need === 'due') return 'due';
  if (due.need === 'unknown') return 'unknown';
  return due.projected_hi >= rawMm / 2 ? 'low' : 'none';
}

/**
 * A run the cap cut short carries into the next legal session: the last
 * watered day put in at least a full capped run (within 0.5 mm) and still
 * left the root zone short of field capacity by more than 1 mm.
 */
export function carriesOver(row: SoilLedgerRow | null, capNetMm: number): boolean {
  if (!row || row.irrigation_net_mm <= 0) return false;
  const [, afterHi] = row.detail.after_water_range_mm;
  return row.irrigation_net_mm >= capNetMm - 0.5 && afterHi > 1;
}

export interface RainEvidence {
  rain_mm: number | null;
  source: 'gauge' | 'radar' | 'model_archive' | 'forecast' | 'none';
}

export interface SoilStepTrace {
  date_local: string;
  kind: 'past' | 'applied_today' | 'projected';
  et0_mm: number | null;
  et0_method: string | null;
  kc: number;
  ks: number | null;
  etc_mm: number | null;
  rain_mm: number | null;
  rain_source: RainEvidence['source'];
  rain_credited_mm: number | null;
  net_irrigation_mm: number | null;
  drainage_mm: number | null;
  depletion_mm: number | null;
  depletion_range_mm: [number, number] | null;
  missing: string[];
}

/** A ledger row as a trace step. */
export function traceOfRow(row: SoilLedgerRow): SoilStepTrace {
  return {
    date_local: row.date_local,
    kind: 'past',
    et0_mm: row.et0_mm,
    et0_method: row.et0_method,
    kc: row.kc,
    ks: row.ks,
    etc_mm: row.etc_mm,
    rain_mm: row.rain_mm,
    rain_source: row.rain_source,
    rain_credited_mm: row.rain_credited_mm,
    net_irrigation_mm: row.irrigation_net_mm,
    drainage_mm: row.drainage_mm,
    depletion_mm: row.depletion_mm,
    depletion_range_mm: row.depletion_range_mm,
    missing: missingOf(row),
  };
}

function missingOf(row: SoilLedgerRow): string[] {
  const missing: string[] = [];
  if (row.et0_mm === null) missing.push('et0');
  if (row.rain_mm === null) missing.push('rain');
  if (row.range_reason) missing.push(row.range_reason);
  return missing;
}

/** One projected day: the forecast's ET0 and rain, the planned (not applied) water. */
export function projectDay(
  zone: CompleteZone,
  state: SoilState,
  date: string,
  et: Et0Day,
  rain: RainEvidence,
  netIrrigationMm: number,
  lat: number,
): { state: SoilState; trace: SoilStepTrace } {
  const kc = kcOf(zone, date, lat);
  const day = rootZoneDay(
    state,
    {
      et0_mm: et.et0_mm,
      kc,
      sun_factor: zone.sun_factor,
      rain_mm: rain.rain_mm,
      net_irrigation_mm: netIrrigationMm,
    },
    { taw_mm: zone.capacity.taw_mm, raw_mm: zone.capacity.raw_mm, rain_cap_mm: zone.rain_cap_mm },
  );
  const exact = isExact(day.end);
  const next: SoilState = exact
    ? { lo: day.end.lo, hi: day.end.lo, reason: null, since: null }
    : {
        lo: day.end.lo,
        hi: day.end.hi,
        reason: state.reason ?? `${day.missing[0] ?? 'start'}_unknown`,
        since: state.since ?? date,
      };
  return {
    state: next,
    trace: {
      date_local: date,
      kind: 'projected',
      et0_mm: round(et.et0_mm),
      et0_method: et.method,
      kc,
      ks: day.ks === null ? null : round(day.ks, 3),
      etc_mm: round(day.etc_adj_mm ?? day.etc_mm),
      rain_mm: round(rain.rain_mm),
      rain_source: rain.source,
      rain_credited_mm: round(day.rain_credited_mm),
      net_irrigation_mm: round(netIrrigationMm),
      drainage_mm: round(day.drainage_mm),
      depletion_mm: exact ? round(day.end.lo) : null,
      depletion_range_mm: exact ? null : [round(day.end.lo) as number, round(day.end.hi) as number],
      missing: day.missing,
    },
  };
}

/** The forecast ETc of `date` (Kc x ET0 x sun factor), null when its ET0 is unknown. */
export function forecastEtc(
  zone: CompleteZone,
  date: string,
  et: Et0Day | undefined,
  lat: number,
): number | null {
  if (!et || et.et0_mm === null) return null;
  return kcOf(zone, date, lat) * et.et0_mm * zone.sun_factor;
}

export function round(x: number | null, digits = 2): number | null {
  if (x === null) return null;
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
