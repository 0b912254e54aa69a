import type { ZoneConfig } from '../../config/schema';
import type { RunRecord } from '../../store/runs';
import type { SessionPlan } from '../../store/session-plans';
import type { SoilLedgerRow } from '../../store/soil-ledger';
import type { DailyWeather } from '../../store/weather-days';
import type { ResolvedZone } from '../engine/zone-inputs';

/**
 * The evidence bundle a recommendation deriver reads for one zone over one
 * window. Pure data: the store fills it (evidence-source.ts), through the
 * providers main.ts wires for the soil ledger and the daily weather record;
 * the season replay's tests fill it the same way from a replayed database.
 *
 * - `runs` and `sessions`: the run ledger and the session plans (issue 17's
 *   metered volumes ride on the run rows: `meteredRuns`).
 * - `soilLedger`: the persisted daily soil water ledger (issue 15), with a
 *   calibrated probe's start-of-day depletion where one anchored the day;
 *   feeds `rain_credit_cap_in`, `root_depth_mm`, `mad_pct_override`,
 *   `soil_texture`.
 * - `weatherRecord`: the daily weather record with the engine's ET0 (issue
 *   15); feeds `weekly_budget_in` and `sessions_per_week`.
 * `soilLedger` and `weatherRecord` are null when no provider is wired.
 */

export interface TuningWindow {
  days: number;
  from_epoch: number;
  to_epoch: number;
  timezone: string;
  /** The window's closed local days: `days` days before today, today excluded. */
  first_date: string;
  last_date: string;
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

/** A closed day of the zone's soil water ledger, as the derivers read it. */
export interface SoilLedgerDay {
  date_local: string;
  taw_mm: number;
  raw_mm: number;
  /** Kc x ET0 x sun factor, before the stress coefficient; null when ET0 is unknown. */
  etc_potential_mm: number | null;
  /** What the crop drew (Ks applied); null unless known. */
  etc_mm: number | null;
  rain_mm: number | null;
  /** Rain after the per-day cap; null when the rain is unknown. */
  rain_credited_mm: number | null;
  irrigation_seconds: number;
  irrigation_net_mm: number;
  /** The depletion the day started from; exact when both ends meet. */
  start_range_mm: readonly [number, number];
  /** The depletion the day closed at; exact when both ends meet. */
  closing_range_mm: readonly [number, number];
  /** A calibrated probe's start-of-day depletion (mm, through the zone's calibration) when one set the day's start. */
  probe_depletion_mm: number | null;
}

/** A closed local day of the weather record, with the engine's ET0 for it. */
export interface WeatherRecordDay {
  date_local: string;
  et0_mm: number | null;
  rain_mm: number | null;
}

/** A completed watering row with a flow meter's volume (issue 17). */
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
  /** The zone resolved with its catalog defaults (TAW, RAW, rate, rain cap), as the engine sees it. */
  resolved: ResolvedZone;
  /** The model the zone runs on (its own, else the engine default). */
  model: 'soil' | 'weekly';
  /** Site facts the models use: latitude (Kc curve) and the engine's capture efficiency. */
  site: { lat: number; capture_efficiency: number };
  window: TuningWindow;
  /** The zone's run rows started in the window, every status and source. */
  runs: readonly RunRecord[];
  /** Plans of the zone's scheduled sessions begun in the window. */
  sessions: readonly SessionPlan[];
  decisions: readonly ZoneDecisionDay[];
  meteredRuns: readonly MeteredRun[];
  soilLedger: readonly SoilLedgerDay[] | null;
  weatherRecord: readonly WeatherRecordDay[] | null;
}

/** Where the stored ledgers plug in (main.ts wires the store's). Dates are local, inclusive. */
export interface TuningEvidenceProviders {
  soilLedger?: (zone: string, from: string, to: string) => readonly SoilLedgerRow[];
  weatherRecord?: (from: string, to: string) => readonly DailyWeather[];
}
