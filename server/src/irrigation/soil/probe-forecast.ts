import type { ZonePlan } from '../engine/water-plan';
import { depletionOfPct, pctOfDepletion } from './probe-calibration';
import { noProbe, type ProbeEvidence, type ProbeStatus } from './probe-evidence';
import { probeDisagreement, probeHoldReason } from './probe-hold';

/**
 * One zone's `soil_forecasts[]` entry (spec 2.5; fields beyond `status` are
 * ours, documented in docs/irrigation.md "Soil probes"):
 *
 * - `uncalibrated`: the relative reading (`reading_pct` = the raw reading), no curve;
 * - `calibrated`: the calibrated reading, the ledger's start-of-today depletion
 *   beside it (and the depletion the reading stands for), and a forward curve:
 *   per plan day, the plan's start-of-day depletion as a calibrated reading;
 * - `no_probe`, `unsupported`, `offline`, `distrusted`: no reading to show
 *   (the raw value of a distrusted/offline probe stays in `raw_pct`), no curve.
 */

export interface SoilForecastCurvePoint {
  date_local: string;
  depletion_mm: number | null;
  reading_pct: number | null;
}

// A type alias (not an interface): the snapshot's open schema wants an index signature.
export type SoilForecastEntry = {
  zone: string;
  status: ProbeStatus;
  probe_configured: boolean;
  sensor_id: string | null;
  raw_pct: number | null;
  reading_pct: number | null;
  reading_epoch: number | null;
  note: string | null;
  /** The hold sentence while the probe holds the zone (reason code `soil_probe_wet`). */
  hold: string | null;
  /** A dry reading the ledger contradicts (an anomaly, never a run). */
  disagreement: string | null;
  /** The ledger's start-of-today depletion (calibrated probes only). */
  depletion_mm: number | null;
  depletion_range_mm: [number, number] | null;
  /** What the calibrated reading stands for: TAW x (100 - reading) / 100. */
  probe_depletion_mm: number | null;
  curve: SoilForecastCurvePoint[] | null;
};

export function soilForecastEntry(plan: ZonePlan, probe: ProbeEvidence | undefined): SoilForecastEntry {
  const p = probe ?? noProbe();
  const cfg = plan.zone.config;
  const entry: SoilForecastEntry = {
    zone: plan.zone.slug,
    status: p.status,
    probe_configured: plan.zone.soil_probe_configured,
    sensor_id: p.sensor_id,
    raw_pct: p.raw_pct,
    reading_pct: p.reading_pct,
    reading_epoch: p.reading_epoch,
    note: p.note,
    hold: probeHoldReason(p, cfg),
    disagreement: probeDisagreement(p, cfg, plan.due_today?.need ?? null),
    depletion_mm: null,
    depletion_range_mm: null,
    probe_depletion_mm: null,
    curve: null,
  };
  const range = plan.today_range;
  if (p.status !== 'calibrated' || !plan.zone.complete || !range || p.reading_pct === null) return entry;
  const taw = plan.zone.capacity.taw_mm;
  return {
    ...entry,
    depletion_mm: range.exact === null ? null : r1(range.exact),
    depletion_range_mm: range.exact === null ? [r1(range.lo), r1(range.hi)] : null,
    probe_depletion_mm: r1(depletionOfPct(p.reading_pct, taw)),
    curve: plan.days.map((day) => ({
      date_local: day.date_local,
      depletion_mm: day.depletion_mm,
      reading_pct: day.depletion_mm === null ? null : r1(pctOfDepletion(day.depletion_mm, taw)),
    })),
  };
}

function r1(x: number): number {
  return Math.round(x * 10) / 10;
}
