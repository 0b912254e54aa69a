import { probeChannel } from '../soil/probe-state';
import type { CompleteZone } from '../engine/zone-inputs';
import type { SoilLedgerDay, ZoneEvidence } from './evidence';
import { median, sum } from './stats';

/**
 * A bound, calibrated soil probe's drying and refill curves read against
 * the soil model (pure). Shared by the root depth, allowed depletion, soil
 * texture and rain cap derivers.
 *
 * The soil ledger anchors each day's start on the probe's first reading,
 * converted through the zone's calibration (soil/probe-state.ts):
 * depletion = RAW x (saturation - reading) / (saturation - refill point). So
 * the probe's anchors are in the model's millimetres: the refill point is
 * RAW by construction, and a model whose root zone holds the wrong amount of
 * water per probe percent reads every change scaled by the same factor.
 *
 * - Drying days: a day with no water in (no irrigation, rain at most 0.25
 *   mm), anchored at both ends inside (0, TAW) and ending within RAW (the
 *   crop draws at its full rate, Ks = 1), with at least 1 mm of potential
 *   ETc. A run of consecutive drying days is one cycle. The scale is the
 *   anchors' total rise over the modelled potential ETc of those days:
 *   1 when the model holds the water the probe sees.
 * - Refills: days with irrigation and no rain. The next morning's anchor is
 *   predicted by the scale (the water enters scaled, the root zone cannot
 *   fill past field capacity, then a day's scaled use) and by the model
 *   (scale 1); the refills agree with the drying curve when the scale
 *   predicts them at least as well as the model, within half a millimetre.
 * - Stress days: no-water days starting beyond RAW. k = rise / (scale x
 *   potential ETc) is the observed stress coefficient; by FAO-56 eq. 84
 *   k = (TAW - D) / (TAW - RAW), so each day with 0.1 < k < 0.9 estimates
 *   where the probe's wilting point lies, TAW' = (D - k RAW) / (1 - k), in
 *   the anchors' millimetres (a ratio TAW' / RAW that no scale changes).
 *
 * Only days the ledger computed under the zone's current TAW and RAW count:
 * after a change of root depth, texture or allowed depletion the ledger
 * replays the zone, and rows still stored under the old settings are stale.
 */

export const MIN_DRYING_DAYS = 8;
export const MIN_CYCLES = 3;
export const MIN_REFILLS = 2;
export const MIN_STRESS_DAYS = 3;
/** Cycles agree when at least two thirds of them lie within this share of the overall scale. */
export const CYCLE_AGREEMENT = 0.25;
const DRY_RAIN_MM = 0.25;
const MIN_ETC_MM = 1;
const EDGE_MM = 0.05;
const REFILL_SLACK_MM = 0.5;

export interface ProbePair {
  date: string;
  start_mm: number;
  end_mm: number;
  etc_potential_mm: number;
  rain_mm: number;
  rain_credited_mm: number;
  irrigation_net_mm: number;
  etc_mm: number | null;
}

export interface Refill {
  pair: ProbePair;
  predicted_fit_mm: number;
  predicted_model_mm: number;
}

export interface StressDay {
  pair: ProbePair;
  k: number;
  taw_mm: number | null;
}

export interface ProbeCurves {
  zone: CompleteZone;
  taw_mm: number;
  raw_mm: number;
  saturation_pct: number;
  refill_pct: number;
  /** Days the probe anchored under the current settings. */
  anchored_days: number;
  /** Consecutive anchored days (a day and the next), every kind. */
  pairs: ProbePair[];
  drying: ProbePair[];
  cycles: ProbePair[][];
  /** Anchors' rise over modelled potential ETc on the drying days; null without any. */
  scale: number | null;
  cycleScales: number[];
  cyclesAgree: boolean;
  refills: Refill[];
  /** Mean absolute error of the next morning's anchor after a refill: the fitted scale vs the model. */
  refillErrorFit: number | null;
  refillErrorModel: number | null;
  refillsAgree: boolean;
  /** No-water days starting beyond RAW, with their stress coefficient. */
  stress: StressDay[];
}

export type ProbeReading =
  { ok: true; curves: ProbeCurves } | { ok: false; waiting_for: string; detail: string };

export function probeCurves(evidence: ZoneEvidence): ProbeReading {
  const zone = evidence.resolved;
  if (!evidence.zone.soil_sensor_id) return wait('a bound soil probe', 'no soil probe is bound to the zone');
  if (!zone.complete) return wait(soilModelWait(zone.missing), 'the zone has no soil model');
  if (!probeChannel(zone)) {
    return wait(
      'a calibrated soil probe',
      'the probe needs a stored channel (source:<id>:<key>) and both saturation_pct_soil and target_min_pct_soil',
    );
  }
  if (!evidence.soilLedger) return wait('the daily soil water ledger', 'the soil ledger is not available');
  const { taw_mm: taw, raw_mm: raw } = zone.capacity;
  const current = evidence.soilLedger.filter((d) => near(d.taw_mm, taw) && near(d.raw_mm, raw));
  const anchored = current.filter((d) => d.probe_depletion_mm !== null);
  if (anchored.length === 0) {
    const stale = evidence.soilLedger.some((d) => d.probe_depletion_mm !== null);
    return stale
      ? wait(
          "the soil ledger's replay under the current settings",
          'the probe days on record were computed under other soil settings',
        )
      : wait("the probe's readings in the soil ledger", 'no day of the window started from a probe reading');
  }
  const pairs = pairsOf(current);
  const drying = pairs.filter((p) => isDry(p) && inside(p, taw) && p.end_mm <= raw + EDGE_MM);
  const cycles = cyclesOf(drying);
  const scale = drying.length > 0 ? sum(drying.map(rise)) / sum(drying.map((p) => p.etc_potential_mm)) : null;
  const cycleScales = cycles.map((c) => sum(c.map(rise)) / sum(c.map((p) => p.etc_potential_mm)));
  const agreeing =
    scale === null ? 0 : cycleScales.filter((s) => Math.abs(s / scale - 1) <= CYCLE_AGREEMENT).length;
  const refills = scale === null ? [] : refillsOf(pairs, scale, taw);
  const errFit = meanOrNull(refills.map((r) => Math.abs(r.pair.end_mm - r.predicted_fit_mm)));
  const errModel = meanOrNull(refills.map((r) => Math.abs(r.pair.end_mm - r.predicted_model_mm)));
  return {
    ok: true,
    curves: {
      zone,
      taw_mm: taw,
      raw_mm: raw,
      saturation_pct: evidence.zone.saturation_pct_soil as number,
      refill_pct: evidence.zone.target_min_pct_soil as number,
      anchored_days: anchored.length,
      pairs,
      drying,
      cycles,
      scale,
      cycleScales,
      cyclesAgree: cycles.length > 0 && agreeing * 3 >= cycles.length * 2,
      refills,
      refillErrorFit: errFit,
      refillErrorModel: errModel,
      refillsAgree:
        refills.length < MIN_REFILLS || (errFit as number) <= (errModel as number) + REFILL_SLACK_MM,
      stress: scale === null ? [] : stressOf(pairs, scale, taw, raw),
    },
  };
}

/** Enough drying days in enough cycles for a fit; null when there are, else what is missing. */
export function dryingShortfall(c: ProbeCurves): string | null {
  if (c.drying.length >= MIN_DRYING_DAYS && c.cycles.length >= MIN_CYCLES) return null;
  return (
    `${c.drying.length} drying day(s) in ${c.cycles.length} cycle(s) between waterings; ` +
    `${MIN_DRYING_DAYS} days in ${MIN_CYCLES} cycles are needed`
  );
}

/** The wilting point the stress days show (median of their estimates, anchors' mm); null with too few that agree. */
export function stressTaw(c: ProbeCurves): { taw_mm: number; days: StressDay[] } | null {
  const days = c.stress.filter((s) => s.taw_mm !== null);
  if (days.length < MIN_STRESS_DAYS) return null;
  const mid = median(days.map((s) => s.taw_mm as number));
  const agreeing = days.filter((s) => Math.abs((s.taw_mm as number) / mid - 1) <= CYCLE_AGREEMENT);
  return agreeing.length * 3 >= days.length * 2 ? { taw_mm: mid, days } : null;
}

/** Days past RAW on which the crop still drew at its full rate (k >= 0.9). */
export function fullRatePastRaw(c: ProbeCurves): StressDay[] {
  return c.stress.filter((s) => s.k >= 0.9 && s.pair.start_mm >= c.raw_mm * 1.2);
}

/** What a zone without a soil model waits for (shared, so the report groups the fields on one line). */
export function soilModelWait(missing: readonly string[]): string {
  return `a soil model (the zone lacks ${missing.join(', ')})`;
}

function wait(waiting_for: string, detail: string): ProbeReading {
  return { ok: false, waiting_for, detail };
}

function pairsOf(days: readonly SoilLedgerDay[]): ProbePair[] {
  const sorted = [...days].sort((a, b) => (a.date_local < b.date_local ? -1 : 1));
  const out: ProbePair[] = [];
  for (let i = 0; i + 1 < sorted.length; i += 1) {
    const day = sorted[i] as SoilLedgerDay;
    const next = sorted[i + 1] as SoilLedgerDay;
    if (!consecutive(day.date_local, next.date_local)) continue;
    if (day.probe_depletion_mm === null || next.probe_depletion_mm === null) continue;
    if (day.etc_potential_mm === null || day.rain_mm === null) continue;
    out.push({
      date: day.date_local,
      start_mm: day.probe_depletion_mm,
      end_mm: next.probe_depletion_mm,
      etc_potential_mm: day.etc_potential_mm,
      rain_mm: day.rain_mm,
      rain_credited_mm: day.rain_credited_mm ?? day.rain_mm,
      irrigation_net_mm: day.irrigation_seconds > 0 ? day.irrigation_net_mm : 0,
      etc_mm: day.etc_mm,
    });
  }
  return out;
}

function isDry(p: ProbePair): boolean {
  return p.irrigation_net_mm === 0 && p.rain_mm <= DRY_RAIN_MM && p.etc_potential_mm >= MIN_ETC_MM;
}

function inside(p: ProbePair, taw: number): boolean {
  return p.start_mm > EDGE_MM && p.end_mm < taw - EDGE_MM && p.start_mm < taw - EDGE_MM;
}

function rise(p: ProbePair): number {
  return p.end_mm - p.start_mm;
}

function cyclesOf(drying: readonly ProbePair[]): ProbePair[][] {
  const cycles: ProbePair[][] = [];
  for (const p of drying) {
    const last = cycles.at(-1);
    const prev = last?.at(-1);
    if (last && prev && consecutive(prev.date, p.date)) last.push(p);
    else cycles.push([p]);
  }
  return cycles;
}

function refillsOf(pairs: readonly ProbePair[], scale: number, taw: number): Refill[] {
  return pairs
    .filter((p) => p.irrigation_net_mm > 0 && p.rain_mm <= DRY_RAIN_MM && p.start_mm > EDGE_MM)
    .filter((p) => p.start_mm < taw - EDGE_MM && p.end_mm < taw - EDGE_MM)
    .map((p) => ({
      pair: p,
      predicted_fit_mm: Math.max(0, p.start_mm - scale * p.irrigation_net_mm) + scale * p.etc_potential_mm,
      predicted_model_mm: Math.max(0, p.start_mm - p.irrigation_net_mm) + p.etc_potential_mm,
    }));
}

function stressOf(pairs: readonly ProbePair[], scale: number, taw: number, raw: number): StressDay[] {
  return pairs
    .filter((p) => isDry(p) && inside(p, taw) && p.start_mm > raw * 1.05)
    .map((p) => {
      const k = rise(p) / (scale * p.etc_potential_mm);
      const estimate = k > 0.1 && k < 0.9 ? (p.start_mm - k * raw) / (1 - k) : null;
      return { pair: p, k, taw_mm: estimate };
    });
}

function consecutive(a: string, b: string): boolean {
  return Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`) === 86_400_000;
}

function near(a: number, b: number): boolean {
  return Math.abs(a - b) <= 0.01;
}

function meanOrNull(values: readonly number[]): number | null {
  return values.length === 0 ? null : sum(values) / values.length;
}
