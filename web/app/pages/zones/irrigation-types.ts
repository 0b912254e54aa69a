/**
 * The parts of the irrigation resources (spec 2.3, 2.5) the dashboard and the
 * zone pages read. Every field the spec leaves open is optional here, and
 * nullable where the server may send null: the pages treat a missing value as
 * unknown, never as zero.
 */

export interface ZoneMath {
  bucket_mm: number | null;
  kc: number;
  cap_binding: boolean;
  /** Net mm the per-run cap leaves out of the next session (0 when it does not bind; null without a rate). */
  cap_shortfall_mm?: number | null;
  depletion_range_mm?: [number, number] | null;
  taw_mm?: number | null;
  raw_mm?: number | null;
  throughput_known?: boolean;
  cycle_count?: number;
  cycles_s?: number[];
  soak_s?: number | null;
  running_note?: string | null;
}

export interface Zone {
  name: string;
  slug: string;
  running: boolean;
  running_known: boolean;
  running_observed_epoch?: number | null;
  ledger_running?: boolean;
  controller_id?: string | null;
  planned_run_seconds?: number;
  bucket_mm?: number | null;
  throughput_mm_hr?: number;
  last_run_epoch?: number;
  smart_suppressed?: { weekdays: number[]; schedules: string[]; active_today: boolean } | null;
  math?: ZoneMath;
  /** The zone's sticky override (beyond the spec's fields). */
  override?: 'auto' | 'skip' | 'run';
}

export interface WaterPlanZone {
  zone: string;
  name: string;
  reason: string;
  reason_code: string;
  water_need: string;
  demand_source?: string;
  model?: string;
  planned_seconds: number;
  depletion_mm: number | null;
  trigger_mm: number | null;
  capacity_mm: number | null;
  demand_mm?: number;
  session_capped?: boolean;
  depletion_range_mm?: [number, number] | null;
  control_source?: string;
  uncapped_seconds?: number;
  /** The zone's own run window that day (`[zones.<slug>.run_window]`); absent: the deployment's. */
  run_window?: PlanZoneWindow;
}

/** `water_plan[].zones[].run_window`: where a zone with its own window runs; `closed` on day 0 only. */
export interface PlanZoneWindow {
  start_epoch: number;
  finish_epoch: number;
  kind: string;
  closed?: boolean;
}

export interface WaterPlanDay {
  date_local: string;
  day_offset: number;
  time_epoch: number;
  start_epoch: number | null;
  finish_epoch: number | null;
  forecast_rain_mm: number | null;
  expected_rain_mm: number | null;
  rain_probability_pct: number | null;
  evidence_complete: boolean;
  zones: WaterPlanZone[];
  /** The fixed schedules' runs of the day (beyond the spec). */
  schedule_runs?: ScheduleRun[];
}

export interface ScheduleRun {
  schedule: string;
  schedule_slug: string;
  mode: 'override' | 'floor';
  zone: string;
  date_local: string;
  start_epoch: number | null;
  planned_seconds: number;
  reason_code: string;
  reason: string;
}

export interface SevenDayVerdict {
  date_local: string;
  day_offset: number;
  time_epoch?: number;
  temp_max_f: number | null;
  temp_min_f: number | null;
  precip_in: number | null;
  precip_probability_max: number | null;
  rain_evidence_incomplete: boolean;
  verdict?: string;
  reason_code?: string;
  reason?: string;
}

export interface ZoneVerdict {
  zone: string;
  name: string;
  verdict: string;
  reason_code: string;
  reason: string;
  water_need?: string;
  planned_seconds: number;
  source?: string;
}

export interface WaterBudget {
  zone: string;
  today_seconds: number;
  today_reason: string;
  session_capped: boolean;
  needed_mm?: number;
  mm_per_session?: number;
  remaining_sessions?: number;
  observed_rain_mm?: number;
  observed_rain_source?: string;
  observed_rain_credited_mm?: number;
  rain_credit_cap_mm?: number;
  applied_mm?: number;
  forecast_credit_mm?: number;
  forecast_credit_source?: string;
  scheduling_model?: string;
  soil_depletion_mm?: number | null;
  soil_taw_mm?: number | null;
  soil_raw_mm?: number | null;
  soil_due?: boolean;
  soil_deferred_reason?: string;
  dormant?: boolean;
}

export interface CurrentWeatherSample {
  value: number;
  source_id: string;
  observed_epoch: number;
  max_age_s: number;
  measured: boolean;
  selection_reason: string;
}

/** One day of a zone's soil water balance in the decision trace. */
export interface TraceStep {
  date_local: string;
  kind: string;
  et0_mm: number | null;
  et0_method?: string | null;
  kc: number | null;
  etc_mm: number | null;
  rain_mm: number | null;
  rain_source?: string | null;
  rain_credited_mm: number | null;
  net_irrigation_mm: number | null;
  depletion_mm: number | null;
  depletion_range_mm: [number, number] | null;
  missing?: string[];
}

export interface TraceZone {
  name?: string;
  model?: string;
  model_source?: string;
  inputs?: {
    species?: string | null;
    soil_texture?: string | null;
    sprinkler_type?: string | null;
    sun_exposure?: string | null;
    sun_factor?: number | null;
    precip_rate_mm_hr?: number | null;
    precip_rate_source?: string | null;
    root_depth_mm?: number | null;
    root_depth_source?: string | null;
    mad?: number | null;
    mad_source?: string | null;
    taw_mm?: number | null;
    raw_mm?: number | null;
    rain_cap_mm?: number | null;
    rain_cap_inferred?: boolean;
    max_run_minutes?: number | null;
    capture_efficiency?: number | null;
  };
  kc_today?: number | null;
  dormant?: boolean;
  steps?: TraceStep[];
  today_depletion_range_mm?: [number, number] | null;
  forecast_credit_mm?: number | null;
  forecast_credit_source?: string | null;
  control?: { decision: string; source: string; reason_code: string; reason: string } | null;
  cycle_soak?: {
    cycle_count?: number;
    cycles?: { run_s: number }[];
    soak_s?: number;
    max_cycle_s?: number | null;
    total_run_s?: number;
    total_elapsed_s?: number;
  } | null;
  weekly?: {
    budget?: {
      target_mm?: number;
      needed_mm?: number;
      mm_per_session?: number;
      remaining_sessions?: number;
      observed_rain_credited_mm?: number | null;
      applied_mm?: number;
    };
  } | null;
  decision?: ZoneVerdict | null;
  why?: string;
}

export interface DecisionTrace {
  date_local?: string;
  now_epoch?: number;
  verdict?: string;
  reason_code?: string;
  reason?: string;
  deciding?: string;
  et0_days?: { date_local: string; et0_mm: number | null; method?: string; reason?: string }[];
  zones?: Record<string, TraceZone>;
}

export interface IrrigationSnapshot {
  last_refresh_epoch: number;
  timezone?: string;
  restart_required?: boolean;
  restart_reasons?: string[];
  next_run_epoch?: number;
  next_run_state?: 'at' | 'no_water_planned' | 'no_legal_day' | 'no_sunrise' | 'no_location';
  next_run_day_offset?: number;
  next_run_total_minutes?: number;
  today_window?: { start: number; finish: number; kind: string; min_temp_f: number | null };
  restriction_allowed_days?: number[];
  master_enable?: boolean;
  zones: Zone[];
  water_plan?: WaterPlanDay[];
  skip_check?: { verdict?: string; reason_code?: string; reason?: string; is_paused?: boolean } | null;
  seven_day_verdicts?: SevenDayVerdict[];
  water_budgets?: WaterBudget[];
  zone_verdicts?: ZoneVerdict[];
  pause_until_epoch?: number;
  override_tomorrow?: string;
  global_override?: 'auto' | 'skip' | 'run';
  decision_trace?: DecisionTrace | null;
  current_weather?: Record<string, CurrentWeatherSample> | null;
}

export interface RunRecord {
  session_id?: string | null;
  zone: string;
  start_epoch: number;
  duration_s: number;
  skip_reason: string | null;
  source?: string;
  status?: string;
  controller_id?: string | null;
  applied_mm?: number | null;
  volume_gal?: number | null;
  note?: string | null;
  cycle_index?: number | null;
  cycle_count?: number | null;
  /** Extra: `observed`, `metered`, `commanded` or `simulated` (a demo's pretend water); absent on old rows. */
  evidence?: string | null;
}

export interface DailyDecision {
  date_local: string;
  epoch: number;
  kind: string;
  zones: {
    zone: string;
    name: string;
    reason_code: string;
    reason: string;
    water_need: string;
    planned_seconds: number;
  }[];
}

export interface HistoryWindow {
  from_epoch: number;
  to_epoch: number;
  runs: RunRecord[];
  daily: DailyDecision[];
}

export type OverrideMode = 'auto' | 'skip' | 'run';

/** POST irrigation/action answers (spec 4.4); other fields are ignored. */
export interface ActionResult {
  ok?: boolean;
  kind?: string;
  seconds?: number;
  clamped?: boolean;
  scope?: 'zone' | 'device';
  note?: string | null;
  confirm_within_s?: number | null;
}

/** The part of GET config the zone pages read: each zone's photo (spec 2.6 zone `photo_url`). */
export interface ZoneConfigs {
  zones?: Record<string, { photo_url?: string | null } | undefined>;
}
