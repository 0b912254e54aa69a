import { SPECIES_CATALOG, type Species } from '../catalogs/species';
import { SOIL_CATALOG, slopeInfiltrationFactor, type SlopeClass, type SoilTexture } from '../catalogs/soil';
import { MM_PER_INCH } from '../catalogs/units';

/**
 * Root-zone capacity (FAO-56, Allen et al. 1998, chapter 8: TAW, RAW), the
 * rain credit cap and the run-sizing helpers built on them. Pure functions:
 * no I/O, no clock. The day's soil-water step itself is one function,
 * `rootZoneDay` (root-zone-day.ts): the engine, the ledger and the replays
 * all run on it.
 *
 * Units: depths mm, rates mm/h, durations s.
 */

/** Spec 2.6 `engine` defaults. */
export const DEFAULT_CAPTURE_EFFICIENCY = 0.7; // spec 2.6 engine.capture_efficiency
export const DEFAULT_SOAK_MINUTES = 30; // spec 2.6 engine.soak_minutes
export const DEFAULT_MAX_RUN_MINUTES = 60; // spec 2.6 / 8: zone max_run_minutes null = 60
export const MAX_RUN_MINUTES_RANGE = { min: 5, max: 360 } as const; // spec 8: zone max_run_minutes 5..360
export const RAIN_CREDIT_CAP_IN_RANGE = { min: 0.05, max: 5.0 } as const; // spec 8: rain_credit_cap_in 0.05..5.0

// ---------------------------------------------------------------------------
// TAW / RAW
// ---------------------------------------------------------------------------

/**
 * FAO-56 eq. 82: TAW = 1000 (theta_FC - theta_WP) Zr, with Zr in m; here Zr
 * is in mm, so TAW_mm = (FC - WP) x root depth mm.
 */
export function totalAvailableWaterMm(
  fieldCapacity: number,
  wiltingPoint: number,
  rootDepthMm: number,
): number {
  if (!(fieldCapacity > wiltingPoint) || wiltingPoint < 0 || fieldCapacity > 1) {
    throw new RangeError(`need 0 <= WP < FC <= 1, got FC ${fieldCapacity}, WP ${wiltingPoint}`);
  }
  assertPositive(rootDepthMm, 'root depth mm');
  // Through mm-per-m rounded to 0.1 so 0.23 - 0.11 does not carry float noise into every TAW.
  const awMmPerM = Math.round((fieldCapacity - wiltingPoint) * 10000) / 10;
  return (awMmPerM * rootDepthMm) / 1000;
}

/** FAO-56 eq. 83: RAW = p x TAW, p = management allowed depletion (MAD) as a fraction. */
export function readilyAvailableWaterMm(tawMm: number, mad: number): number {
  assertNonNegative(tawMm, 'TAW mm');
  if (!(mad > 0 && mad <= 1)) throw new RangeError(`MAD ${mad} outside (0, 1]`);
  return mad * tawMm;
}

export interface ZoneAgronomy {
  species: Species | null | undefined;
  soil_texture: SoilTexture | null | undefined;
  /** Spec 2.6: null = species default. */
  root_depth_mm?: number | null;
  /** Spec 2.6: percent 1..100, null = species default. */
  mad_pct_override?: number | null;
}

export interface ZoneWaterCapacity {
  taw_mm: number;
  raw_mm: number;
  root_depth_mm: number;
  root_depth_source: 'zone' | 'species';
  mad: number;
  mad_source: 'zone' | 'species';
  field_capacity: number;
  wilting_point: number;
}

/**
 * TAW and RAW of a configured zone. Null when the zone has no species or no
 * soil texture: no bucket is derivable (spec 2.5 `bucket_mm` null).
 */
export function zoneWaterCapacity(zone: ZoneAgronomy): ZoneWaterCapacity | null {
  if (!zone.species || !zone.soil_texture) return null;
  const plant = SPECIES_CATALOG[zone.species];
  const soil = SOIL_CATALOG[zone.soil_texture];
  const zoneRoot = zone.root_depth_mm ?? null;
  const zoneMad = zone.mad_pct_override ?? null;
  if (zoneMad !== null && !(zoneMad >= 1 && zoneMad <= 100)) {
    throw new RangeError(`mad_pct_override ${zoneMad} outside 1..100`);
  }
  const rootDepthMm = zoneRoot ?? plant.root_depth_mm;
  const mad = zoneMad !== null ? zoneMad / 100 : plant.mad;
  const taw = totalAvailableWaterMm(soil.field_capacity, soil.wilting_point, rootDepthMm);
  return {
    taw_mm: taw,
    raw_mm: readilyAvailableWaterMm(taw, mad),
    root_depth_mm: rootDepthMm,
    root_depth_source: zoneRoot !== null ? 'zone' : 'species',
    mad,
    mad_source: zoneMad !== null ? 'zone' : 'species',
    field_capacity: soil.field_capacity,
    wilting_point: soil.wilting_point,
  };
}

// ---------------------------------------------------------------------------
// Rain credit cap
// ---------------------------------------------------------------------------

export interface RainCap {
  /** Per-day cap in mm; null = unknown (no zone cap and no TAW). */
  cap_mm: number | null;
  /** True when the cap was derived from soil texture and root depth (TAW) rather than set on the zone. */
  inferred: boolean;
}

/**
 * The per-day rain credit cap (spec 2.5 "Rain and forecast credit per day is
 * capped at the zone's root-zone capacity (TAW)"): the zone's
 * `rain_credit_cap_in` converted to mm when set, else TAW, flagged inferred.
 *
 * Why TAW and not the start-of-day depletion: the cap is a statement about
 * the soil (the most a root zone can bank from one day), the same number the
 * weekly budget uses. Inside the bucket the [0, TAW] clamp additionally drops
 * whatever exceeds the day's actual deficit (reported as `drained_mm`).
 */
export function resolveRainCap(rainCreditCapIn: number | null | undefined, tawMm: number | null): RainCap {
  if (rainCreditCapIn !== null && rainCreditCapIn !== undefined) {
    if (!(
      rainCreditCapIn >= RAIN_CREDIT_CAP_IN_RANGE.min && rainCreditCapIn <= RAIN_CREDIT_CAP_IN_RANGE.max
    )) {
      throw new RangeError(`rain_credit_cap_in ${rainCreditCapIn} outside 0.05..5.0`);
    }
    return { cap_mm: rainCreditCapIn * MM_PER_INCH, inferred: false };
  }
  if (tawMm === null) return { cap_mm: null, inferred: false };
  assertNonNegative(tawMm, 'TAW mm');
  return { cap_mm: tawMm, inferred: true };
}

// ---------------------------------------------------------------------------
// Run sizing
// ---------------------------------------------------------------------------

/** Net depth (mm) that `seconds` of run puts into the root zone: rate x efficiency x hours. */
export function netIrrigationMm(seconds: number, precipRateMmHr: number, captureEfficiency: number): number {
  assertNonNegative(seconds, 'seconds');
  assertPositive(precipRateMmHr, 'precip rate mm/h');
  assertEfficiency(captureEfficiency);
  return (seconds / 3600) * precipRateMmHr * captureEfficiency;
}

export interface PlannedRun {
  /** Seconds to run, after the per-run ceiling. */
  seconds: number;
  /** round(depth / (rate x efficiency) x 3600) before the ceiling. */
  uncapped_seconds: number;
  /** max_run_minutes x 60 (null max_run_minutes = 60 min). */
  ceiling_seconds: number;
  /** True only when the ceiling set the seconds (the uncapped run was longer). */
  cap_binding: boolean;
  /** Net depth the planned seconds deliver (planned, not delivered water). */
  planned_net_mm: number;
}

/**
 * Seconds to refill `depthMm` of net depth:
 *   seconds = round(depth / (rate x capture efficiency) x 3600),
 * limited to max_run_minutes x 60 (`cap_binding` when the limit is what set
 * the answer). `maxRunMinutes` null/undefined = 60 (spec 2.6). `rounding`
 * `up` never plans less than the depth (a refill meant to fill the root zone
 * must fill it; the part of a second more drains).
 */
export function plannedSeconds(
  depthMm: number,
  precipRateMmHr: number,
  captureEfficiency: number = DEFAULT_CAPTURE_EFFICIENCY,
  maxRunMinutes: number | null = null,
  rounding: 'nearest' | 'up' = 'nearest',
): PlannedRun {
  assertNonNegative(depthMm, 'depth mm');
  assertPositive(precipRateMmHr, 'precip rate mm/h');
  assertEfficiency(captureEfficiency);
  const minutes = maxRunMinutes ?? DEFAULT_MAX_RUN_MINUTES;
  if (
    !Number.isInteger(minutes) ||
    minutes < MAX_RUN_MINUTES_RANGE.min ||
    minutes > MAX_RUN_MINUTES_RANGE.max
  ) {
    throw new RangeError(`max_run_minutes ${minutes} outside whole minutes 5..360`);
  }
  const ceiling = minutes * 60;
  const exact = (depthMm / (precipRateMmHr * captureEfficiency)) * 3600;
  // 1e-6 s of slack: float noise in a depth that is a whole number of seconds must not add one.
  const uncapped = rounding === 'up' ? Math.ceil(exact - 1e-6) : Math.round(exact);
  const seconds = Math.min(uncapped, ceiling);
  return {
    seconds,
    uncapped_seconds: uncapped,
    ceiling_seconds: ceiling,
    cap_binding: uncapped > ceiling,
    planned_net_mm: netIrrigationMm(seconds, precipRateMmHr, captureEfficiency),
  };
}

// ---------------------------------------------------------------------------
// Cycle and soak
// ---------------------------------------------------------------------------

/**
 * Shortest cycle the splitter will plan, seconds. Design choice, not a
 * published number: below about two minutes a spray zone spends much of the
 * cycle filling and draining laterals. When the soil would need shorter
 * cycles the plan uses this length and says so (`min_cycle_binding`): some
 * runoff is then expected.
 */
export const MIN_CYCLE_SECONDS = 120;

export interface CycleSoakPlan {
  cycles: { run_s: number }[];
  /** Soak between consecutive cycles, seconds (none after the last). */
  soak_s: number;
  cycle_count: number;
  /** Longest cycle the soil accepts without ponding beyond what soaks in; null when no split was needed. */
  max_cycle_s: number | null;
  effective_infiltration_mm_hr: number;
  slope_factor: number;
  slope_class: SlopeClass;
  slope_known: boolean;
  min_cycle_binding: boolean;
  total_run_s: number;
  /** Run time plus the soaks between cycles. */
  total_elapsed_s: number;
}

/**
 * Splits `seconds` of run into cycles separated by soaks when the
 * precipitation rate P exceeds the soil's effective infiltration rate I.
 *
 * Slope: I = basic infiltration x slope factor (1.0 / 0.8 / 0.6 / 0.4 for
 * 0-5 / 5-8 / 8-12 / 12+ %, the USDA maximum-precipitation-rate table, see
 * `slopeInfiltrationFactor`), so steeper ground gets more, shorter cycles.
 *
 * Cycle length: a cycle of t seconds applies P t; during the cycle and the
 * soak after it the soil takes in I (t + soak). Requiring P t <= I (t + soak)
 * gives t_max = I x soak / (P - I). The run is divided into
 * N = ceil(seconds / t_max) near-equal whole-second cycles. If t_max is under
 * MIN_CYCLE_SECONDS the cycles are MIN_CYCLE_SECONDS long instead
 * (N = floor(seconds / MIN_CYCLE_SECONDS), at least 1) and
 * `min_cycle_binding` is set. With no soak configured (0 min) nothing can
 * soak in between cycles, so the run stays one cycle.
 */
export function cycleSoak(
  seconds: number,
  precipRateMmHr: number,
  infiltrationMmHr: number,
  slopePct: number | null,
  soakMinutes: number = DEFAULT_SOAK_MINUTES,
): CycleSoakPlan {
  if (!Number.isInteger(seconds) || seconds < 0)
    throw new RangeError(`seconds ${seconds} not a whole number >= 0`);
  assertPositive(precipRateMmHr, 'precip rate mm/h');
  assertPositive(infiltrationMmHr, 'infiltration mm/h');
  assertNonNegative(soakMinutes, 'soak minutes');
  const slope = slopeInfiltrationFactor(slopePct);
  const infiltration = infiltrationMmHr * slope.factor;
  const soakS = Math.round(soakMinutes * 60);
  const base = {
    effective_infiltration_mm_hr: infiltration,
    slope_factor: slope.factor,
    slope_class: slope.slope_class,
    slope_known: slope.slope_known,
    total_run_s: seconds,
  };
  if (seconds === 0) {
    return {
      ...base,
      cycles: [],
      soak_s: soakS,
      cycle_count: 0,
      max_cycle_s: null,
      min_cycle_binding: false,
      total_elapsed_s: 0,
    };
  }
  if (precipRateMmHr <= infiltration || soakS === 0) {
    return {
      ...base,
      cycles: [{ run_s: seconds }],
      soak_s: soakS,
      cycle_count: 1,
      max_cycle_s: null,
      min_cycle_binding: false,
      total_elapsed_s: seconds,
    };
  }
  const maxCycle = Math.floor((infiltration * soakS) / (precipRateMmHr - infiltration));
  let count: number;
  let minBinding = false;
  if (maxCycle < MIN_CYCLE_SECONDS) {
    minBinding = true;
    count = Math.max(1, Math.floor(seconds / MIN_CYCLE_SECONDS));
  } else {
    count = Math.ceil(seconds / maxCycle);
  }
  const each = Math.floor(seconds / count);
  const extra = seconds - each * count;
  const cycles = Array.from({ length: count }, (_, i) => ({ run_s: each + (i < extra ? 1 : 0) }));
  return {
    ...base,
    cycles,
    soak_s: soakS,
    cycle_count: count,
    max_cycle_s: maxCycle,
    min_cycle_binding: minBinding,
    total_elapsed_s: seconds + (count - 1) * soakS,
  };
}

// ---------------------------------------------------------------------------
// Weekly model
// ---------------------------------------------------------------------------

/** Spec 8: sessions are spaced floor(7 / sessions_per_week) days. */
export function sessionSpacingDays(sessionsPerWeek: number): number {
  assertSessions(sessionsPerWeek);
  return Math.floor(7 / sessionsPerWeek);
}

/**
 * Day offsets (0 = first session day) of the week's sessions, spaced
 * floor(7 / n) days: n = 1 -> [0]; 2 -> [0, 3]; 3 -> [0, 2, 4];
 * 4..7 -> [0, 1, ..., n - 1].
 */
export function sessionDays(sessionsPerWeek: number): number[] {
  const spacing = sessionSpacingDays(sessionsPerWeek);
  return Array.from({ length: sessionsPerWeek }, (_, i) => i * spacing);
}

export interface WeeklyBudgetInput {
  /** Gross weekly target, inches, rain included. */
  weekly_budget_in: number;
  /** 1..7 */
  sessions_per_week: number;
  /** Trailing days' observed rain, mm, one entry per day; null = no evidence for that day. */
  observed_rain_by_day: readonly (number | null)[];
  /** Gross irrigation applied over the trailing window, mm. */
  applied_mm: number;
  /** Per-day rain credit cap, mm; null or 0 = unknown, no cap applied. */
  cap_mm: number | null;
  /** Whether `cap_mm` was derived from soil texture and root depth (see `resolveRainCap`). */
  cap_inferred?: boolean;
  /** Completed watering events in the trailing window; default 0. */
  completed_sessions?: number;
  /** Forecast credit actually applied, mm; default 0. */
  forecast_credit_mm?: number;
}

export interface WeeklyBudget {
  target_mm: number;
  /** Balance remainder: max(0, target - credited rain - applied - forecast credit). */
  needed_mm: number;
  /** Gross depth per remaining session. */
  mm_per_session: number;
  /** sessions_per_week - completed_sessions, floor 1. */
  remaining_sessions: number;
  session_spacing_days: number;
  /** Raw sum of the days with evidence; null when no day has evidence. */
  observed_rain_mm: number | null;
  /** Sum over days with evidence of min(day, cap); null when no day has evidence. */
  observed_rain_credited_mm: number | null;
  /** Per-day cap in mm; 0 = unknown, no cap applied (spec 2.5). */
  rain_credit_cap_mm: number;
  rain_cap_inferred: boolean;
  rain_days_known: number;
  rain_days_missing: number;
  /** False when any day's rain is unknown: needed_mm then excludes that day (it may overstate the need). */
  rain_evidence_complete: boolean;
  applied_mm: number;
  forecast_credit_mm: number;
}

/**
 * The weekly water balance in gross terms (spec 2.5 water budget row):
 *
 *   credited  = sum over days with evidence of min(rain_day, cap)
 *   needed    = max(0, weekly_budget_in x 25.4 - credited - applied - forecast credit)
 *   remaining = max(1, sessions_per_week - completed_sessions)
 *   per session = needed / remaining
 *
 * A day with no rain evidence is excluded (spec 1.5: unknown is excluded,
 * never counted as 0 mm): its count is reported and `rain_evidence_complete`
 * is false, and the sums are null when no day has evidence at all.
 */
export function weeklyBudget(input: WeeklyBudgetInput): WeeklyBudget {
  assertNonNegative(input.weekly_budget_in, 'weekly_budget_in');
  assertSessions(input.sessions_per_week);
  assertNonNegative(input.applied_mm, 'applied mm');
  const completed = input.completed_sessions ?? 0;
  if (!Number.isInteger(completed) || completed < 0) {
    throw new RangeError(`completed_sessions ${completed} not a whole number >= 0`);
  }
  const forecast = input.forecast_credit_mm ?? 0;
  assertNonNegative(forecast, 'forecast credit mm');
  const cap = input.cap_mm !== null && input.cap_mm > 0 ? input.cap_mm : null;
  if (input.cap_mm !== null) assertNonNegative(input.cap_mm, 'cap mm');

  let known = 0;
  let raw = 0;
  let credited = 0;
  for (const day of input.observed_rain_by_day) {
    if (day === null) continue;
    assertNonNegative(day, 'rain mm');
    known += 1;
    raw += day;
    credited += cap === null ? day : Math.min(day, cap);
  }
  const missing = input.observed_rain_by_day.length - known;
  const target = input.weekly_budget_in * MM_PER_INCH;
  const needed = Math.max(0, target - credited - input.applied_mm - forecast);
  const remaining = Math.max(1, input.sessions_per_week - completed);
  return {
    target_mm: target,
    needed_mm: needed,
    mm_per_session: needed / remaining,
    remaining_sessions: remaining,
    session_spacing_days: sessionSpacingDays(input.sessions_per_week),
    observed_rain_mm: known > 0 ? raw : null,
    observed_rain_credited_mm: known > 0 ? credited : null,
    rain_credit_cap_mm: cap ?? 0,
    rain_cap_inferred: cap !== null && (input.cap_inferred ?? false),
    rain_days_known: known,
    rain_days_missing: missing,
    rain_evidence_complete: missing === 0,
    applied_mm: input.applied_mm,
    forecast_credit_mm: forecast,
  };
}

// ---------------------------------------------------------------------------
// Argument checks
// ---------------------------------------------------------------------------

function assertNonNegative(x: number, what: string): void {
  if (!Number.isFinite(x) || x < 0) throw new RangeError(`${what} ${x} is not a finite number >= 0`);
}

function assertPositive(x: number, what: string): void {
  if (!Number.isFinite(x) || x <= 0) throw new RangeError(`${what} ${x} is not a finite number > 0`);
}

function assertEfficiency(e: number): void {
  if (!Number.isFinite(e) || e <= 0 || e > 1) throw new RangeError(`capture efficiency ${e} outside (0, 1]`);
}

function assertSessions(n: number): void {
  if (!Number.isInteger(n) || n < 1 || n > 7) throw new RangeError(`sessions_per_week ${n} outside 1..7`);
}
