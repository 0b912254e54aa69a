import type { ZoneConfig } from '../../config/schema';
import type { RunRecord } from '../../store/runs';
import type { SessionPlan } from '../../store/session-plans';

/**
 * The evidence bundle a recommendation deriver reads for one zone over one
 * window. Pure data: the store fills it today (evidence-source.ts); a season
 * simulator can fill it the same way.
 *
 * The last three members are seams for evidence this build does not record
 * yet. They are null until their providers are wired:
 * - `soilLedger`: the persisted daily soil water ledger per zone (issue 15);
 *   feeds `rain_credit_cap_in` and, with a bound probe, `root_depth_mm`,
 *   `mad_pct_override`, `soil_texture`.
 * - `weatherRecord`: the daily weather record with ET0 (issue 15); feeds
 *   `weekly_budget_in` and `sessions_per_week` against the ET record.
 * - `meteredRuns`: run records with metered volume (issue 17); feeds
 *   `precip_rate_mm_hr` (companion `precip_rate_source = measured`).
 */

export interface TuningWindow {
  days: number;
  from_epoch: number;
  to_epoch: number;
  timezone: string;
}

/** One zone's line of a stored daily decision, with its day. */
export interface ZoneDecisionDay {
  date_local: string;
  epoch: number;
  kind: string;
  reason_code: string;
  water_need: string;
  planned_seconds: number;
}

/** A day of the zone's soil water ledger (issue 15 provides these). */
export interface SoilLedgerDay {
  date_local: string;
  depletion_mm: number | null;
  rain_mm: number | null;
  rain_credited_mm: number | null;
  irrigation_mm: number | null;
  etc_mm: number | null;
  /** A bound soil probe's reading at the end of the day, when the zone has one. */
  probe_pct: number | null;
}

/** A local day of the weather record (issue 15 provides these). */
export interface WeatherRecordDay {
  date_local: string;
  et0_mm: number | null;
  rain_mm: number | null;
}

/** A watering run with metered volume (issue 17 provides these). */
export interface MeteredRun {
  session_id: string | null;
  start_epoch: number;
  duration_s: number;
  volume_gal: number;
  mean_flow_gpm: number | null;
}

export interface ZoneEvidence {
  slug: string;
  display_name: string;
  /** The zone as configured now. */
  zone: ZoneConfig;
  /** The model the zone runs on (its own, else the engine default). */
  model: 'soil' | 'weekly';
  window: TuningWindow;
  /** The zone's run rows started in the window, every status and source. */
  runs: readonly RunRecord[];
  /** Plans of the zone's scheduled sessions begun in the window. */
  sessions: readonly SessionPlan[];
  decisions: readonly ZoneDecisionDay[];
  soilLedger: readonly SoilLedgerDay[] | null;
  weatherRecord: readonly WeatherRecordDay[] | null;
  meteredRuns: readonly MeteredRun[] | null;
}

/** Where the evidence seams plug in (main.ts wires them when their issues land). */
export interface TuningEvidenceProviders {
  soilLedger?: (zone: string, window: TuningWindow) => readonly SoilLedgerDay[] | null;
  weatherRecord?: (window: TuningWindow) => readonly WeatherRecordDay[] | null;
  meteredRuns?: (zone: string, window: TuningWindow) => readonly MeteredRun[] | null;
}
