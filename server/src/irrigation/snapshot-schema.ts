import { z } from 'zod';
import { SCHEDULING_MODELS } from '../config/schema';
import { OVERRIDE_MODES, TOMORROW_MODES } from './controls/types';

/**
 * The irrigation wire shapes of spec section 2.5 (plus the current weather
 * sample of 2.3), one zod schema each, so the engine that builds the snapshot
 * is typed by the spec and a test can hold a whole snapshot against it.
 *
 * How the spec's notation is read here:
 * - `T|null` means the key is always present and may be null: `.nullable()`,
 *   never `.optional()`. Only fields the spec marks optional are `.optional()`.
 * - Every field the spec lists is required-present, even outside a "Required"
 *   list: the service always emits them.
 * - epoch and every `_s` / seconds / count field the spec types as integer is a
 *   safe integer (`z.int()`).
 * - "Responses may carry extra fields beyond those listed; clients ignore them"
 *   (spec conventions) holds at every level, so every object is a
 *   `z.looseObject`: unknown keys pass through a parse instead of being dropped.
 * - Deprecated compatibility fields (spec 9.6) are literals of their fixed value.
 * - Where the spec names a field without giving its type, the choice made is
 *   noted on the field. A value drawn from weather evidence is nullable there,
 *   by the honesty rule (spec 1.5: missing evidence is null, never a zero).
 */

const epoch = z.int();
const integer = z.int();
/** A percentage probability; the spec gives 0..100 for the forecast ones (2.4). */
const probabilityPct = z.int().min(0).max(100);
/** Weekday as the spec numbers them: Sun=0 .. Sat=6. */
const weekday = z.int().min(0).max(6);

// ---------------------------------------------------------------------------
// Enumerations (spec 2.5 and the state sets of section 3)
// ---------------------------------------------------------------------------

/** Spec 2.5 irrigation snapshot `next_run_state`; spec 3 "Irrigation next_run_state". */
export const NEXT_RUN_STATES = [
  'at',
  'no_water_planned',
  'no_legal_day',
  'no_sunrise',
  'no_location',
] as const;
export const nextRunStateSchema = z.enum(NEXT_RUN_STATES);

/** Spec 2.5 irrigation snapshot `today_window.kind`. */
export const TODAY_WINDOW_KINDS = ['pre_dawn', 'post_sunrise'] as const;
export const todayWindowKindSchema = z.enum(TODAY_WINDOW_KINDS);

/** Spec 2.5 irrigation snapshot `override_tomorrow`; spec 3 "Override tomorrow". */
export const OVERRIDE_TOMORROW_VALUES = TOMORROW_MODES;
export const overrideTomorrowSchema = z.enum(OVERRIDE_TOMORROW_VALUES);

/** Spec 2.5 water budget row `observed_rain_source`. */
export const OBSERVED_RAIN_SOURCES = ['gauge', 'radar', 'model_archive', 'none'] as const;
export const observedRainSourceSchema = z.enum(OBSERVED_RAIN_SOURCES);

/** Spec 2.5 water budget row `forecast_credit_source`. */
export const FORECAST_CREDIT_SOURCES = ['bias_forecast', 'none', 'unavailable'] as const;
export const forecastCreditSourceSchema = z.enum(FORECAST_CREDIT_SOURCES);

/**
 * Spec 2.5 water budget row `scheduling_model`: `weekly` or `soil` (spec 3
 * "Scheduling model"), or the empty string older producers wrote.
 */
export const WATER_BUDGET_SCHEDULING_MODELS = [...SCHEDULING_MODELS, ''] as const;
export const waterBudgetSchedulingModelSchema = z.enum(WATER_BUDGET_SCHEDULING_MODELS);

/**
 * Spec 2.5 water budget row `soil_deferred_kind`: "may be `forecast_unavailable`".
 * The only value the spec names; the set is open (other hold kinds exist but are
 * not shown), so the schema accepts any non-empty kind, and null when no hold
 * deferred the zone (the spec gives no type; see the field).
 */
export const SOIL_DEFERRED_KIND_FORECAST_UNAVAILABLE = 'forecast_unavailable';
export const soilDeferredKindSchema = z.union([
  z.literal(SOIL_DEFERRED_KIND_FORECAST_UNAVAILABLE),
  z.string().min(1),
]);

/** Spec 2.5 irrigation snapshot `ha_adoption[].outcome`. */
export const HA_ADOPTION_OUTCOMES = ['adopted', 'not_found', 'unreadable', 'kept_local'] as const;
export const haAdoptionOutcomeSchema = z.enum(HA_ADOPTION_OUTCOMES);

/** Spec 3 "Run record status". */
export const RUN_RECORD_STATUSES = ['intended', 'running', 'completed', 'aborted', 'skipped'] as const;
export const runRecordStatusSchema = z.enum(RUN_RECORD_STATUSES);

/**
 * Spec 3 "Run record source": `ha_refresher`, `manual`, `manual:<id>`, `dry_run`,
 * `dry_run:<id>`, `smart_morning`. The spec does not define `<id>`; here it is
 * one or more characters with no whitespace, so `manual:` alone is refused.
 */
export const RUN_RECORD_SOURCE_PATTERN = /^(?:ha_refresher|smart_morning|manual(?::\S+)?|dry_run(?::\S+)?)$/;
export const runRecordSourceSchema = z
  .string()
  .regex(
    RUN_RECORD_SOURCE_PATTERN,
    'expected ha_refresher, manual, manual:<id>, dry_run, dry_run:<id> or smart_morning',
  );

// ---------------------------------------------------------------------------
// 2.3 Current weather sample
// ---------------------------------------------------------------------------

/** Spec 2.3 "Current weather sample": all six fields required. */
export const currentWeatherSampleSchema = z.looseObject({
  value: z.number(),
  source_id: z.string(),
  observed_epoch: epoch,
  max_age_s: integer,
  measured: z.boolean(),
  selection_reason: z.string(),
});

/**
 * Spec 2.3 / 2.5 irrigation snapshot `current_weather`: `object|null`, a map of
 * samples. The set of keys is not shown, so any key is accepted.
 */
export const currentWeatherSchema = z.record(z.string(), currentWeatherSampleSchema).nullable();

// ---------------------------------------------------------------------------
// 2.5 Zone
// ---------------------------------------------------------------------------

/** Spec 2.5 Zone `smart_suppressed` (when not null): `{weekdays: [0..6], schedules: [name], active_today}`. */
export const smartSuppressedSchema = z.looseObject({
  weekdays: z.array(weekday),
  schedules: z.array(z.string()),
  active_today: z.boolean(),
});

/**
 * Spec 2.5 Zone `math`: includes `bucket_mm` (nullable), `kc`, `cap_binding`.
 * Its other fields: not shown (the object is open).
 */
export const zoneMathSchema = z.looseObject({
  bucket_mm: z.number().nullable(),
  kc: z.number(),
  cap_binding: z.boolean(),
});

/**
 * Spec 2.5 "Zone" table (required `name`, `slug`, `running`, `running_known`;
 * every other listed field always emitted), plus the deprecated zone fields of
 * spec 9.6: `hex` always '' and `today_run_minutes` always null.
 */
export const zoneSchema = z.looseObject({
  name: z.string(),
  slug: z.string(),
  running: z.boolean(),
  running_known: z.boolean(),
  running_observed_epoch: epoch.nullable(),
  ledger_running: z.boolean(),
  controller_id: z.string().nullable(),
  planned_run_seconds: integer,
  bucket_mm: z.number().nullable(),
  throughput_mm_hr: z.number(),
  last_run_epoch: epoch,
  smart_suppressed: smartSuppressedSchema.nullable(),
  math: zoneMathSchema,
  /** Beyond the spec's fields: the zone's sticky override (`set_zone_override`), `auto` when none. */
  override: z.enum(OVERRIDE_MODES),
  /** Deprecated (spec 9.6): always the empty string. */
  hex: z.literal(''),
  /** Deprecated (spec 9.6): always null. */
  today_run_minutes: z.null(),
});

// ---------------------------------------------------------------------------
// 2.5 Water budget row
// ---------------------------------------------------------------------------

/**
 * Spec 2.5 "Water budget row" (per zone), plus the deprecated `mode_active`
 * (spec 9.6, always true). The table gives meanings, not types: a value named
 * `number|null` there is nullable, seconds/counts/epochs are integers, flags are
 * booleans, the rest are numbers (spec 9.5 2.0.0 made only `expected_rain_mm`
 * nullable among these). The spec names no zone key for the row; an extra key
 * the engine adds to identify the zone passes through.
 */
export const waterBudgetRowSchema = z.looseObject({
  today_seconds: integer,
  today_reason: z.string(),
  session_capped: z.boolean(),
  expected_rain_mm: z.number().nullable(),
  needed_mm: z.number(),
  mm_per_session: z.number(),
  remaining_sessions: integer,
  observed_rain_mm: z.number(),
  observed_rain_source: observedRainSourceSchema,
  observed_rain_credited_mm: z.number(),
  /** Per-day cap in mm; 0 = unknown, no cap applied. */
  rain_credit_cap_mm: z.number(),
  rain_cap_inferred: z.boolean(),
  applied_mm: z.number(),
  forecast_credit_mm: z.number(),
  forecast_credit_source: forecastCreditSourceSchema,
  bias_multiplier: z.number(),
  bias_sample_count: integer,
  scheduling_model: waterBudgetSchedulingModelSchema,
  soil_depletion_mm: z.number().nullable(),
  soil_taw_mm: z.number().nullable(),
  soil_raw_mm: z.number().nullable(),
  /** The stress allowance a forecast bet may not pass (docs/irrigation.md); null when TAW/RAW are unknown. */
  soil_allowance_mm: z.number().nullable().optional(),
  soil_due: z.boolean(),
  soil_planned_seconds: integer,
  soil_deferred_reason: z.string(),
  /** Type not given by the spec: a hold kind, or null when no hold deferred the zone. */
  soil_deferred_kind: soilDeferredKindSchema.nullable(),
  soil_ceiling_binding: z.boolean(),
  dormant: z.boolean(),
  last_run_epoch: epoch,
  /** Deprecated (spec 9.6): always true. */
  mode_active: z.literal(true),
});

// ---------------------------------------------------------------------------
// 2.5 Water plan zone / day
// ---------------------------------------------------------------------------

/** Spec 2.5 "Water plan zone" (all required). */
export const waterPlanZoneSchema = z.looseObject({
  zone: z.string(),
  name: z.string(),
  reason: z.string(),
  reason_code: z.string(),
  water_need: z.string(),
  demand_source: z.string(),
  model: z.string(),
  planned_seconds: integer,
  depletion_mm: z.number().nullable(),
  trigger_mm: z.number().nullable(),
  capacity_mm: z.number().nullable(),
  demand_mm: z.number(),
  session_capped: z.boolean(),
  /** Exactly two numbers, or null. */
  depletion_range_mm: z.tuple([z.number(), z.number()]).nullable(),
});

/** Spec 2.5 "Water plan day" (all required; a future scenario, not a command and not applied water). */
/** One fixed schedule's run of one zone on one plan day (`water_plan[].schedule_runs[]`). */
export const scheduleRunSchema = z.looseObject({
  schedule: z.string(),
  schedule_slug: z.string(),
  mode: z.enum(['override', 'floor']),
  zone: z.string(),
  date_local: z.string(),
  day_offset: integer,
  start_epoch: epoch.nullable(),
  planned_seconds: integer,
  target_seconds: integer.nullable(),
  delivered_seconds: integer.nullable(),
  reason_code: z.string(),
  reason: z.string(),
  session_id: z.string(),
  /** Day 0: its own start is more than an hour past (fixed-schedule-plan.ts). */
  window_closed: z.boolean().optional(),
});

export const waterPlanDaySchema = z.looseObject({
  date_local: z.string(),
  day_offset: integer,
  time_epoch: epoch,
  start_epoch: epoch.nullable(),
  finish_epoch: epoch.nullable(),
  forecast_rain_mm: z.number().nullable(),
  expected_rain_mm: z.number().nullable(),
  rain_probability_pct: probabilityPct.nullable(),
  evidence_complete: z.boolean(),
  zones: z.array(waterPlanZoneSchema),
  /** Beyond the spec: the fixed schedules' runs of the day (irrigation/schedule/fixed-schedule-plan.ts). */
  schedule_runs: z.array(scheduleRunSchema).optional(),
});

// ---------------------------------------------------------------------------
// 2.5 skip_check, forecast, seven_day_verdicts
// ---------------------------------------------------------------------------

/** Spec 2.5 `skip_check.script_hold` when not null: `{id, name, reason}`. */
export const scriptHoldSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  reason: z.string(),
});

/**
 * Spec 2.5 "Named `skip_check` fields". The first group is "(all nullable)" as
 * written, `is_paused` included. Other fields of `skip_check`: not shown (open
 * object). Types the spec does not give are chosen as noted.
 */
export const skipCheckSchema = z.looseObject({
  is_paused: z.boolean().nullable(),
  forecast_in: z.number().nullable(),
  rain_today_forecast_in: z.number().nullable(),
  rain_3day_weighted_in: z.number().nullable(),
  rain_7day_weighted_in: z.number().nullable(),
  rain_next_4h_in: z.number().nullable(),
  rain_intensity_now_in_hr: z.number().nullable(),
  rain_tomorrow_prob_pct: probabilityPct.nullable(),
  /** Zones (slugs) lacking complete next-24-hour rain evidence. */
  planning_forecast_unavailable: z.array(z.string()),
  /** Forecast peak wind over the run window; null when no window or no forecast (honesty rule). */
  wind_window_max_mph: z.number().nullable(),
  /** Which window today's run is planned into: the same kinds as `today_window.kind`. */
  run_window: todayWindowKindSchema,
  /** The run window's forecast minimum; null when unknown (honesty rule). */
  window_min_temp_f: z.number().nullable(),
  /** Local dates on which any zone watered in the trailing week. */
  watered_days: z.array(z.string()),
  /** Per zone slug: whether a soil probe is bound. */
  soil_probe_configured: z.record(z.string(), z.boolean()),
  /** Per zone slug: the probe-integrity hold reason. */
  soil_probe_holds: z.record(z.string(), z.string()),
  script_hold: scriptHoldSchema.nullable(),
});

/**
 * Spec 2.5 "Named irrigation `forecast` fields (nullable)". Other fields of the
 * irrigation `forecast`: not shown (open object).
 */
export const irrigationForecastSchema = z.looseObject({
  wind_max_today_mph: z.number().nullable(),
  temp_min_24h_f: z.number().nullable(),
  temp_max_3day_f: z.number().nullable(),
  humidity_now_pct: z.number().nullable(),
  heat_index_now_f: z.number().nullable(),
  heat_index_max_3day_f: z.number().nullable(),
  rain_today_om_in: z.number().nullable(),
  rain_tomorrow_in: z.number().nullable(),
  rain_3day_in: z.number().nullable(),
  rain_3day_weighted_in: z.number().nullable(),
  rain_7day_weighted_in: z.number().nullable(),
  rain_next_4h_in: z.number().nullable(),
  rain_intensity_in_hr: z.number().nullable(),
  eto_today_mm: z.number().nullable(),
  temp_max_today_f: z.number().nullable(),
  temp_min_today_f: z.number().nullable(),
  humidity_mean_today_pct: z.number().nullable(),
  rain_tomorrow_prob_pct: probabilityPct.nullable(),
});

/**
 * Spec 2.5 "Named `seven_day_verdicts[]` fields": nullable `temp_max_f`,
 * `temp_min_f`, `precip_in`, `precip_probability_max`; boolean
 * `rain_evidence_incomplete`. Other fields of an entry: not shown (open object).
 */
export const sevenDayVerdictSchema = z.looseObject({
  temp_max_f: z.number().nullable(),
  temp_min_f: z.number().nullable(),
  precip_in: z.number().nullable(),
  precip_probability_max: probabilityPct.nullable(),
  rain_evidence_incomplete: z.boolean(),
});

// ---------------------------------------------------------------------------
// 2.5 Irrigation snapshot
// ---------------------------------------------------------------------------

/**
 * Spec 2.5 irrigation snapshot `today_window`: `start`, `finish`, `kind`
 * (`pre_dawn` or `post_sunrise`), `min_temp_f`. The spec gives no types:
 * `start` and `finish` are epochs (as `start_epoch`/`finish_epoch` of a water
 * plan day), `min_temp_f` is a forecast value, null when unknown (honesty rule).
 */
export const todayWindowSchema = z.looseObject({
  start: epoch,
  finish: epoch,
  kind: todayWindowKindSchema,
  min_temp_f: z.number().nullable(),
});

/**
 * Spec 2.5 irrigation snapshot `flow`: nullable `rate_gpm`, `rate_source_id`,
 * `total_gal_today`, `total_source_id`. A rate does not imply a total.
 */
export const flowSchema = z.looseObject({
  rate_gpm: z.number().nullable(),
  rate_source_id: z.string().nullable(),
  total_gal_today: z.number().nullable(),
  total_source_id: z.string().nullable(),
});

/**
 * Spec 2.5 irrigation snapshot `ha_adoption[]` entry: `entity`, `outcome`,
 * `target`, `adopted_value`, `previous_value`, `epoch`, optional
 * `observed_value`. The values are the helper's value as text; the spec gives
 * no types, and `adopted_value` / `previous_value` are null when there is none.
 */
export const haAdoptionEntrySchema = z.looseObject({
  entity: z.string(),
  outcome: haAdoptionOutcomeSchema,
  target: z.string(),
  adopted_value: z.string().nullable(),
  previous_value: z.string().nullable(),
  epoch: epoch,
  observed_value: z.string().optional(),
});

/** Spec 2.5 `soil_forecasts[]`: only `status` is named (`uncalibrated` among its values); the rest is not shown. */
export const soilForecastSchema = z.looseObject({
  status: z.string(),
});

/** Spec 2.5 `zone_verdicts[]` and `decision_trace`: fields not shown (open objects). */
export const zoneVerdictSchema = z.looseObject({});
export const decisionTraceSchema = z.looseObject({});

/**
 * Spec 2.5 "Irrigation snapshot" table (required `last_refresh_epoch`, `zones`;
 * every other listed field always emitted), with the deprecated fields of spec
 * 9.6: `iu_enabled`, `iu_suspended`, `ha_adoption_awaiting_config` always false,
 * `ha_reachable` a boolean, and `override_helpers_present` equal to
 * `controls_persisted` (a refinement). Extra fields are allowed (clients ignore
 * them).
 */
export const irrigationSnapshotSchema = z
  .looseObject({
    last_refresh_epoch: epoch,
    timezone: z.string(),
    restart_required: z.boolean(),
    restart_reasons: z.array(z.string()),
    next_run_epoch: epoch,
    next_run_state: nextRunStateSchema,
    next_run_day_offset: integer,
    next_run_total_minutes: integer,
    today_window: todayWindowSchema,
    restriction_allowed_days: z.array(weekday),
    master_enable: z.boolean(),
    water_level_pct: z.number().nullable(),
    water_level_capable: z.boolean(),
    station_last_seen_epoch: epoch,
    forecast_last_seen_epoch: epoch,
    zones: z.array(zoneSchema),
    water_plan: z.array(waterPlanDaySchema),
    skip_check: skipCheckSchema,
    forecast: irrigationForecastSchema,
    seven_day_verdicts: z.array(sevenDayVerdictSchema),
    soil_forecasts: z.array(soilForecastSchema),
    water_budgets: z.array(waterBudgetRowSchema),
    zone_verdicts: z.array(zoneVerdictSchema),
    /** 0 = no pause. */
    pause_until_epoch: epoch,
    override_tomorrow: overrideTomorrowSchema,
    /** Beyond the spec's fields: the sticky global override (`set_global_override`). */
    global_override: z.enum(OVERRIDE_MODES),
    decision_trace: decisionTraceSchema.nullable(),
    current_weather: currentWeatherSchema,
    controls_persisted: z.boolean(),
    flow_connected: z.boolean(),
    flow: flowSchema,
    /**
     * Beyond the spec's fields: real controllers with no device-side limit,
     * whose valves only Raincheck's stop and watchdog close (docs/controllers.md).
     */
    software_failsafe_controllers: z.array(z.string()),
    ha_adoption: z.array(haAdoptionEntrySchema),
    /** Deprecated (spec 9.6): same as `controls_persisted` (refinement below). */
    override_helpers_present: z.boolean(),
    /** Deprecated (spec 9.6): last home-automation poll succeeded; always true on the native path. */
    ha_reachable: z.boolean(),
    /** Deprecated (spec 9.6): always false. */
    iu_enabled: z.literal(false),
    /** Deprecated (spec 9.6): always false. */
    iu_suspended: z.literal(false),
    /** Deprecated (spec 9.6): always false. */
    ha_adoption_awaiting_config: z.literal(false),
  })
  .refine((s) => s.override_helpers_present === s.controls_persisted, {
    path: ['override_helpers_present'],
    message: 'override_helpers_present must equal controls_persisted (spec 9.6)',
  });

// ---------------------------------------------------------------------------
// 2.5 Run record, Daily decision, History window
// ---------------------------------------------------------------------------

/**
 * Spec 2.5 "Run record" table (required `zone`, `start_epoch`, `duration_s`,
 * `skip_reason`; every other listed field always emitted), `status` and `source`
 * from the state sets of spec 3.
 */
export const runRecordSchema = z.looseObject({
  session_id: z.string().nullable(),
  zone: z.string(),
  start_epoch: epoch,
  duration_s: integer,
  skip_reason: z.string().nullable(),
  source: runRecordSourceSchema,
  status: runRecordStatusSchema,
  controller_id: z.string().nullable(),
  applied_mm: z.number().nullable(),
  volume_gal: z.number().nullable(),
  note: z.string().nullable(),
  cycle_index: integer.nullable(),
  cycle_count: integer.nullable(),
});

/**
 * Spec 2.5 "Daily decision" `zones[]` entry: `{zone, name, reason_code, reason,
 * water_need, planned_seconds}` (all required; types as on a water plan zone).
 */
export const dailyDecisionZoneSchema = z.looseObject({
  zone: z.string(),
  name: z.string(),
  reason_code: z.string(),
  reason: z.string(),
  water_need: z.string(),
  planned_seconds: integer,
});

/** Spec 2.5 "Daily decision" (all required). */
export const dailyDecisionSchema = z.looseObject({
  date_local: z.string(),
  epoch: epoch,
  kind: z.string(),
  zones: z.array(dailyDecisionZoneSchema),
});

/** Spec 2.5 "History window" (all required); the body of GET /irrigation/history (spec 4.4). */
export const historyWindowSchema = z.looseObject({
  from_epoch: epoch,
  to_epoch: epoch,
  runs: z.array(runRecordSchema),
  daily: z.array(dailyDecisionSchema),
});

// ---------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------

export type NextRunState = z.infer<typeof nextRunStateSchema>;
export type TodayWindowKind = z.infer<typeof todayWindowKindSchema>;
export type OverrideTomorrow = z.infer<typeof overrideTomorrowSchema>;
export type ObservedRainSource = z.infer<typeof observedRainSourceSchema>;
export type ForecastCreditSource = z.infer<typeof forecastCreditSourceSchema>;
export type WaterBudgetSchedulingModel = z.infer<typeof waterBudgetSchedulingModelSchema>;
export type SoilDeferredKind = z.infer<typeof soilDeferredKindSchema>;
export type HaAdoptionOutcome = z.infer<typeof haAdoptionOutcomeSchema>;
export type RunRecordStatus = z.infer<typeof runRecordStatusSchema>;
export type RunRecordSource = z.infer<typeof runRecordSourceSchema>;

export type CurrentWeatherSample = z.infer<typeof currentWeatherSampleSchema>;
export type CurrentWeather = z.infer<typeof currentWeatherSchema>;
export type SmartSuppressed = z.infer<typeof smartSuppressedSchema>;
export type ZoneMath = z.infer<typeof zoneMathSchema>;
export type Zone = z.infer<typeof zoneSchema>;
export type WaterBudgetRow = z.infer<typeof waterBudgetRowSchema>;
export type WaterPlanZone = z.infer<typeof waterPlanZoneSchema>;
export type WaterPlanDay = z.infer<typeof waterPlanDaySchema>;
export type ScriptHold = z.infer<typeof scriptHoldSchema>;
export type SkipCheck = z.infer<typeof skipCheckSchema>;
export type IrrigationForecast = z.infer<typeof irrigationForecastSchema>;
export type SevenDayVerdict = z.infer<typeof sevenDayVerdictSchema>;
export type TodayWindow = z.infer<typeof todayWindowSchema>;
export type Flow = z.infer<typeof flowSchema>;
export type HaAdoptionEntry = z.infer<typeof haAdoptionEntrySchema>;
export type SoilForecast = z.infer<typeof soilForecastSchema>;
export type ZoneVerdict = z.infer<typeof zoneVerdictSchema>;
export type DecisionTrace = z.infer<typeof decisionTraceSchema>;
export type IrrigationSnapshot = z.infer<typeof irrigationSnapshotSchema>;
export type RunRecord = z.infer<typeof runRecordSchema>;
export type DailyDecisionZone = z.infer<typeof dailyDecisionZoneSchema>;
export type DailyDecision = z.infer<typeof dailyDecisionSchema>;
export type HistoryWindow = z.infer<typeof historyWindowSchema>;
