import {
  cycleSoak,
  netIrrigationMm,
  plannedSeconds,
  type CycleSoakPlan,
} from '../../agronomy/soil/water-balance';
import { isDormant } from '../../agronomy/catalogs/species';
import type { Wording } from '../../core/units/quantities';
import { resolveControls, type ControlResolution } from '../controls/resolve';
import { sunriseEpoch } from '../schedule/run-window';
import type { ZoneLedger } from './applied-water';
import { grossDepthMm } from '../soil/irrigation-evidence';
import type { EngineContext } from './context';
import type { SoilState } from '../soil/ledger-day';
import {
  carriesOver,
  forecastEtc,
  projectDay,
  rangeOf,
  round,
  soilDue,
  waterNeedLabel,
  type DepletionRange,
  type RainEvidence,
  type SoilDue,
  type SoilStepTrace,
} from './soil-model';
import { soilStart, type SoilStart } from './soil-start';
import { weeklyPlan, type WeeklyPlan } from './weekly-model';
import type { CompleteZone, ResolvedZone } from './zone-inputs';

/**
 * The per-zone 7-day plan (spec 2.5 Water plan zone) and today's decision.
 *
 * Gates, in order, for each plan day (first that speaks decides):
 * 1. the zone is incomplete -> `zone_incomplete` (nothing can be sized);
 * 2. controls (`resolveControls`): pause / tomorrow override / zone override /
 *    global override; a `skip` decides here (reason_code from the control);
 * 3. dormancy (unless a control forces `run`) -> `dormant`;
 * 4. the model: soil `depletion_unknown` / `not_due`, weekly
 *    `weekly_budget_unset` / `not_session_day` / `budget_met`;
 * 5. watering restrictions (also for forced runs: they are local law) -> `restricted_day`;
 * 6. the skip verdict (today: the live skip check; later days: the
 *    seven-day projection), unless a control forces `run`: `skip` or `unknown`
 *    (a hold) with the deciding rule's reason_code;
 * 7. rain evidence for the forecast credit missing -> `forecast_unavailable`
 *    (the zone is deferred: it could be raining on it);
 * 8. the forecast credit covers the deficit -> `forecast_rain_covers`;
 * 9. water: `water` (engine) or the control's `*_run` code.
 *
 * Forced runs (`water` controls) are sized by the model: soil refills the
 * proven deficit (lower bound), weekly waters one session's depth; with
 * nothing proven missing the forced run plans 0 s and says so.
 *
 * Day 0 is today's decision all day long. Once today's run window has closed
 * (`todayWindowClosed`), water still planned for today will not run today
 * (water that did run is already in the ledger and lowered the deficit): the
 * day says so, and the projection into tomorrow no longer counts it, so the
 * deficit carries forward instead of being refilled on paper.
 */

export type SkipLike = {
  verdict: 'skip' | 'unknown' | 'water';
  reason_code: string;
  reason: string;
  rain_evidence_incomplete?: boolean;
};

export interface PlanZoneDay {
  date_local: string;
  day_offset: number;
  reason: string;
  reason_code: string;
  water_need: string;
  demand_source: string;
  model: string;
  planned_seconds: number;
  depletion_mm: number | null;
  trigger_mm: number | null;
  capacity_mm: number | null;
  demand_mm: number;
  session_capped: boolean;
  depletion_range_mm: [number, number] | null;
  // extras (looseObject)
  control_source: string;
  uncapped_seconds: number;
}

export interface ZonePlan {
  zone: ResolvedZone;
  days: PlanZoneDay[];
  /** Start-of-today depletion after today's applied water (null for incomplete zones). */
  today_range: DepletionRange | null;
  /** Where today's state came from and the closed days behind it (null for incomplete zones). */
  start: SoilStart | null;
  /** Today's soil due check (null for incomplete zones). */
  due_today: SoilDue | null;
  soil: {
    need: 'due' | 'not_due' | 'unknown' | null;
    planned_seconds: number;
    ceiling_binding: boolean;
    deferred_reason: string;
    deferred_kind: string | null;
  };
  weekly: WeeklyPlan | null;
  forecast_credit_mm: number;
  forecast_credit_source: 'bias_forecast' | 'none' | 'unavailable';
  dormant: boolean;
  dormant_known: boolean;
  cycle_soak: CycleSoakPlan | null;
  steps: SoilStepTrace[];
  trailing_rain: RainEvidence[];
  applied_mm: number;
  control_today: ControlResolution;
  why: string;
}

/** Appended to day 0's reason when its planned water outlived today's run window. */
export const WINDOW_CLOSED_NOTE =
  "today's run window has closed without this water: it is not counted in the days ahead";

const NONE_CONTROL: ControlResolution = {
  decision: 'engine',
  source: 'engine',
  reason_code: 'engine',
  reason: 'no control applies; the engine decides',
};

export function planZone(
  zone: ResolvedZone,
  ctx: EngineContext,
  ledger: ZoneLedger,
  verdicts: readonly SkipLike[],
  todayWindowClosed = false,
  /** Only today's planned seconds are wanted (the pass that places today's run window). */
  todayOnly = false,
  /** The probe's hold of the next run (soil/probe-hold.ts): after the controls, before every other gate. */
  probeHold: SkipLike | null = null,
): ZonePlan {
  const controls = ctx.dates.map((date, d) => controlFor(zone.slug, date, d, ctx));
  const trailingDates = Array.from({ length: 7 }, (_, i) => ctx.cal.addDays(ctx.cal.today, -(7 - i)));
  const trailing_rain = trailingDates.map(
    (date) => ctx.past_rain.get(date) ?? { rain_mm: null, source: 'none' as const },
  );
  const appliedDates = Array.from({ length: 7 }, (_, i) => ctx.cal.addDays(ctx.cal.today, -(6 - i)));
  const rate = zone.precip_rate_mm_hr;
  const applied_mm =
    rate === null
      ? 0
      : appliedDates.reduce((mm, date) => {
          const day = ledger.irrigation_by_date.get(date);
          return day ? mm + grossDepthMm(day, rate) : mm;
        }, 0);

  if (!zone.complete) return incompletePlan(zone, ctx, controls, trailing_rain, applied_mm);

  const z = zone;
  const say = ctx.say;
  const eff = ctx.capture_efficiency;
  const taw = z.capacity.taw_mm;
  const raw = z.capacity.raw_mm;

  // ---- tonight's closing state, then today's own evidence ----
  const start = soilStart(z, ctx, ledger);
  const steps: SoilStepTrace[] = [...start.past_steps];
  if (start.applied_today_net_mm > 0 || start.declared_today) {
    steps.push(todayTrace(ctx.cal.today, start.today, start.applied_today_net_mm));
  }
  let state: SoilState = start.today;
  const today_range = rangeOf(state);

  // ---- dormancy: the record's trailing 7 daily means ----
  const means = trailingDates.map((date) => {
    const w = ctx.weather_days.get(date);
    return w && w.tmax_c !== null && w.tmin_c !== null ? ((w.tmax_c + w.tmin_c) / 2) * 1.8 + 32 : null;
  });
  const dormantRaw = isDormant(z.species, means);
  const dormant = dormantRaw === true;

  // ---- forecast credit for today's sizing (complete next-24 h evidence only) ----
  const creditAvailable = ctx.next24h_rain_mm !== null;
  const creditMm = creditAvailable
    ? Math.min(z.rain_cap_mm, (ctx.next24h_rain_mm as number) * ctx.bias.multiplier)
    : 0;
  const creditSource: ZonePlan['forecast_credit_source'] = !creditAvailable
    ? 'unavailable'
    : creditMm > 0
      ? 'bias_forecast'
      : 'none';

  // ---- weekly model (when the zone uses it) ----
  let weekly: WeeklyPlan | null = null;
  const budgetIn = z.config.weekly_budget_in ?? null;
  const sessions = z.config.sessions_per_week ?? null;
  if (z.model === 'weekly' && budgetIn !== null && sessions !== null) {
    const wateredOffsets = appliedDates
      .map((date, i) => ((ledger.seconds_by_date.get(date) ?? 0) > 0 ? i - 6 : null))
      .filter((x): x is number => x !== null);
    weekly = weeklyPlan({
      weekly_budget_in: budgetIn,
      sessions_per_week: sessions,
      trailing_rain,
      applied_mm,
      cap_mm: z.rain_cap_mm,
      cap_inferred: z.rain_cap_inferred,
      completed_sessions: wateredOffsets.length,
      forecast_credit_mm: creditMm,
      last_water_offset: wateredOffsets.length > 0 ? Math.max(...wateredOffsets) : null,
    });
  }

  // ---- the 7 plan days ----
  const capNet = netIrrigationMm((z.max_run_minutes ?? 60) * 60, z.precip_rate_mm_hr, eff);
  const lastRow = start.past.at(-1) ?? null;
  const yesterday = ctx.cal.addDays(ctx.cal.today, -1);
  let carry =
    start.applied_today_net_mm === 0 && lastRow?.date_local === yesterday && carriesOver(lastRow, capNet);
  const days: PlanZoneDay[] = [];
  let soilToday: ZonePlan['soil'] = {
    need: null,
    planned_seconds: 0,
    ceiling_binding: false,
    deferred_reason: '',
    deferred_kind: null,
  };
  let dueToday: SoilDue | null = null;
  let cycle: CycleSoakPlan | null = null;
  const planDays = todayOnly ? 1 : ctx.dates.length;
  for (let d = 0; d < planDays; d += 1) {
    const date = ctx.dates[d] as string;
    const range = rangeOf(state);
    const control = controls[d] ?? NONE_CONTROL;
    const verdict = verdicts[d] ?? {
      verdict: 'unknown',
      reason_code: 'no_verdict',
      reason: 'no verdict for the day',
    };
    const forced = control.decision === 'water';
    const credit = d === 0 ? creditMm : Math.min(z.rain_cap_mm, ctx.forecast_rain_mm.get(date) ?? 0);
    const isSoil = z.model === 'soil';
    const due = soilDue(state, z, horizonEtc(z, ctx, d), credit, carry);
    if (d === 0) dueToday = due;

    let depthMm = 0; // net for soil, gross for weekly
    let demandMm = 0;
    let need: string;
    let demandSource: string;
    if (isSoil) {
      need = waterNeedLabel(due, raw);
      demandSource = 'soil_bucket';
      demandMm = Math.max(0, (forced ? range.lo : due.refill_mm) - credit);
      depthMm = demandMm;
    } else if (weekly) {
      const session = weekly.session_offsets.includes(d);
      need = weekly.budget.needed_mm <= 0 ? 'none' : session ? 'due' : 'low';
      demandSource = 'weekly_budget';
      demandMm = session || forced ? weekly.budget.mm_per_session : 0;
      depthMm = demandMm;
    } else {
      need = 'unknown';
      demandSource = 'none';
    }

    let code: string;
    let reason: string;
    let rainShortNote = '';
    const soilDueWater = isSoil && due.need === 'due';
    if (control.decision === 'skip') {
      code = control.reason_code;
      reason = control.reason;
    } else if (probeHold && !forced && (d === 0 || (d === 1 && todayWindowClosed))) {
      code = probeHold.reason_code;
      reason = probeHold.reason;
    } else if (dormant && !forced) {
      code = 'dormant';
      reason = `${z.species} is dormant (7-day mean temperature below its dormancy threshold)`;
    } else if (isSoil && !forced && due.need === 'unknown') {
      code = 'depletion_unknown';
      reason = `root-zone depletion is only known to lie in ${say.depthRange(range.lo, range.hi)} (${rangeWhy(state)}); by the next session it may or may not pass the trigger of ${say.depth(raw)}: no water on a guess`;
    } else if (isSoil && !forced && due.need === 'not_due') {
      code = 'not_due';
      reason = `depletion ${describe(range, say)} stays below the trigger (RAW ${say.depth(raw)}) until the next session (${say.depth(due.projected_hi)} by then)`;
    } else if (!isSoil && !weekly) {
      code = 'weekly_budget_unset';
      reason = 'weekly model needs weekly_budget_in and sessions_per_week on the zone';
    } else if (!isSoil && weekly && !forced && weekly.budget.needed_mm <= 0) {
      code = 'budget_met';
      reason = `weekly budget met: rain and irrigation cover the ${say.depth(weekly.budget.target_mm)} target`;
    } else if (!isSoil && weekly && !forced && !weekly.session_offsets.includes(d)) {
      code = 'not_session_day';
      reason = `not a session day (sessions every ${weekly.budget.session_spacing_days} day(s))`;
    } else if (!ctx.allowed_dates.has(date)) {
      code = 'restricted_day';
      reason = `watering restrictions do not allow ${date}`;
    } else if (
      !forced &&
      verdict.verdict !== 'water' &&
      !(soilDueWater && verdict.verdict === 'skip' && FORECAST_RAIN_CODES.has(verdict.reason_code))
    ) {
      code = verdict.reason_code;
      reason = verdict.reason;
    } else if (
      !forced &&
      ((d === 0 && !creditAvailable) || (d > 0 && verdict.rain_evidence_incomplete === true))
    ) {
      code = 'forecast_unavailable';
      reason =
        d === 0
          ? 'the next 24 hours of forecast rain are incomplete: the rain credit cannot be known, watering deferred'
          : 'forecast rain evidence for the day is incomplete: watering deferred';
    } else if (!forced && !isSoil && depthMm > 0 && sessionRainDefers(date, ctx)) {
      const rainIn = ctx.daily.get(date)?.precip_sum_in ?? 0;
      code = 'session_rain_deferred';
      const threshold = ctx.input.config.engine.session_rain_defer_in;
      reason = `${say.rain(rainIn)} of rain forecast for ${date} reaches session_rain_defer_in (${say.rain(threshold)}): the session waits for it`;
    } else if (depthMm <= 0) {
      code = forced ? `${control.reason_code}_nothing_missing` : 'forecast_rain_covers';
      reason = forced
        ? `${control.reason}, but no deficit is proven: nothing to refill`
        : `forecast rain (${say.depth(credit)} credited) covers the deficit`;
    } else {
      code = forced ? control.reason_code : isSoil ? due.kind : 'water';
      reason = forced
        ? control.reason
        : isSoil
          ? soilReason(due, range, raw, credit, state, say)
          : `weekly session: ${say.depth(depthMm)}`;
      if (!forced && isSoil && verdict.verdict === 'skip') {
        rainShortNote = `; ${verdict.reason_code} would skip, but the rain it expects (${say.depth(credit)} credited) leaves the root zone past its trigger before then`;
      } else if (!forced && isSoil && sessionRainDefers(date, ctx)) {
        rainShortNote = `; the rain forecast for ${date} (${say.depth(credit)} credited) does not cover the need: the rest is watered`;
      }
    }

    const watering =
      code === 'water' ||
      code === 'establishing_refill' ||
      code === 'cap_carryover' ||
      (forced && code === control.reason_code);
    const sized = isSoil
      ? plannedSeconds(depthMm, z.precip_rate_mm_hr, eff, z.max_run_minutes, 'up')
      : plannedSeconds(depthMm, z.precip_rate_mm_hr, 1, z.max_run_minutes);
    const seconds = watering ? sized.seconds : 0;
    const capped = watering && sized.cap_binding;
    if (watering) {
      reason += `${rainShortNote}; ${seconds} s`;
      if (capped) {
        reason += ` (capped at ${z.max_run_minutes ?? 60} min, ${sized.uncapped_seconds} s needed${isSoil ? '; the remainder carries into the next session' : ''})`;
      }
    }
    const unrunToday = d === 0 && todayWindowClosed && seconds > 0;
    if (unrunToday) reason += `; ${WINDOW_CLOSED_NOTE}`;
    if (d === 0) {
      const soilSized = plannedSeconds(
        Math.max(0, due.refill_mm - credit),
        z.precip_rate_mm_hr,
        eff,
        z.max_run_minutes,
        'up',
      );
      const soilDueNow = due.need === 'due';
      soilToday = {
        need: due.need,
        planned_seconds: isSoil ? seconds : soilDueNow && creditAvailable ? soilSized.seconds : 0,
        ceiling_binding: isSoil ? capped : soilDueNow && soilSized.cap_binding,
        deferred_reason: watering ? '' : reason,
        deferred_kind:
          code === 'forecast_unavailable'
            ? 'forecast_unavailable'
            : watering || code === 'not_due'
              ? null
              : code,
      };
      if (seconds > 0)
        cycle = cycleSoak(seconds, z.precip_rate_mm_hr, z.infiltration_mm_hr, z.slope_pct, ctx.soak_minutes);
    }

    days.push({
      date_local: date,
      day_offset: d,
      reason,
      reason_code: code,
      water_need: dormant && !forced ? 'none' : need,
      demand_source: demandSource,
      model: z.model,
      planned_seconds: seconds,
      depletion_mm: round(range.exact),
      trigger_mm: round(raw),
      capacity_mm: round(taw),
      demand_mm: round(demandMm) as number,
      session_capped: capped,
      depletion_range_mm:
        range.exact === null ? [round(range.lo) as number, round(range.hi) as number] : null,
      control_source: control.source,
      uncapped_seconds: watering ? sized.uncapped_seconds : 0,
    });

    // project to the next day: forecast ET0, bias-scaled forecast rain, planned (not applied) water
    if (d < planDays - 1) {
      const et = ctx.et0_by_date.get(date) ?? {
        date_local: date,
        et0_mm: null,
        method: null,
        reason: 'no entry',
      };
      const rainMm = ctx.forecast_rain_mm.get(date) ?? null;
      const net = unrunToday ? 0 : netIrrigationMm(seconds, z.precip_rate_mm_hr, eff);
      const s = projectDay(
        z,
        state,
        date,
        et,
        { rain_mm: rainMm, source: rainMm === null ? 'none' : 'forecast' },
        isSoil ? net : 0,
        ctx.lat,
      );
      state = s.state;
      steps.push(s.trace);
      carry = isSoil && capped && !unrunToday;
    }
  }

  const t = days[0] as PlanZoneDay;
  return {
    zone,
    days,
    today_range,
    start,
    due_today: dueToday,
    soil: soilToday,
    weekly,
    forecast_credit_mm: creditMm,
    forecast_credit_source: creditSource,
    dormant,
    dormant_known: dormantRaw !== null,
    cycle_soak: cycle,
    steps,
    trailing_rain,
    applied_mm,
    control_today: controls[0] ?? NONE_CONTROL,
    why: t.reason,
  };
}

/** Skip rules that skip for forecast rain: a soil zone the rain will not cover in time waters the rest. */
const FORECAST_RAIN_CODES: ReadonlySet<string> = new Set([
  'rain_today_forecast',
  'rain_next_4h',
  'tomorrow_rain',
  'rain_3day',
]);

/**
 * Forecast ETc from plan day `d` until the next legal session (the next day
 * restrictions allow); null when a day's forecast ET0 is unknown.
 */
function horizonEtc(zone: CompleteZone, ctx: EngineContext, d: number): number | null {
  let total = 0;
  for (let j = d; j < ctx.dates.length; j += 1) {
    const date = ctx.dates[j] as string;
    const etc = forecastEtc(zone, date, ctx.et0_by_date.get(date), ctx.lat);
    if (etc === null) return null;
    total += etc;
    const next = ctx.dates[j + 1];
    if (!next || ctx.allowed_dates.has(next)) return total;
  }
  return total;
}

function soilReason(
  due: SoilDue,
  range: DepletionRange,
  raw: number,
  credit: number,
  state: SoilState,
  say: Wording,
): string {
  const creditText = credit > 0 ? `, ${say.depth(credit)} of forecast rain credited` : '';
  if (due.kind === 'cap_carryover') {
    return `the last session was cut short by max_run_minutes: the remaining ${describe(range, say)} deficit carries into this session${creditText}`;
  }
  if (due.kind === 'establishing_refill') {
    return `depletion lies in ${say.depthRange(range.lo, range.hi)} (${rangeWhy(state)}) and even its lower bound passes the trigger (RAW ${say.depth(raw)}) before the next session (${say.depth(due.projected_lo)}): establishing refill to the upper bound ${say.depth(range.hi)}${creditText}, after which the root zone is known full`;
  }
  return `depletion ${describe(range, say)} would pass the trigger (RAW ${say.depth(raw)}) before the next session (${say.depth(due.projected_lo)} by then): refill to field capacity${creditText}`;
}

const RANGE_WHY: Record<string, string> = {
  start_unknown: 'nothing has proven the root zone full since',
  rain_unknown: 'rain unknown since',
  et0_unknown: 'ET0 unknown since',
  irrigation_unknown: 'irrigation amount unknown since',
};

function rangeWhy(state: SoilState): string {
  const text = RANGE_WHY[state.reason ?? 'start_unknown'] ?? `${state.reason} since`;
  return state.since ? `${text} ${state.since}` : text;
}

function todayTrace(date: string, state: SoilState, net: number): SoilStepTrace {
  const range = rangeOf(state);
  return {
    date_local: date,
    kind: 'applied_today',
    et0_mm: 0,
    et0_method: null,
    kc: 0,
    ks: null,
    etc_mm: 0,
    rain_mm: 0,
    rain_source: 'none',
    rain_credited_mm: 0,
    net_irrigation_mm: round(net),
    drainage_mm: null,
    depletion_mm: round(range.exact),
    depletion_range_mm: range.exact === null ? [round(range.lo) as number, round(range.hi) as number] : null,
    missing: [],
  };
}

function incompletePlan(
  zone: Extract<ResolvedZone, { complete: false }>,
  ctx: EngineContext,
  controls: ControlResolution[],
  trailing_rain: RainEvidence[],
  applied_mm: number,
): ZonePlan {
  const reason = `zone cannot be modelled: missing ${zone.missing.join(', ')}`;
  return {
    zone,
    days: ctx.dates.map((date, d) => ({
      date_local: date,
      day_offset: d,
      reason,
      reason_code: 'zone_incomplete',
      water_need: 'unknown',
      demand_source: 'none',
      model: zone.model,
      planned_seconds: 0,
      depletion_mm: null,
      trigger_mm: null,
      capacity_mm: null,
      demand_mm: 0,
      session_capped: false,
      depletion_range_mm: null,
      control_source: (controls[d] ?? NONE_CONTROL).source,
      uncapped_seconds: 0,
    })),
    today_range: null,
    start: null,
    due_today: null,
    soil: {
      need: null,
      planned_seconds: 0,
      ceiling_binding: false,
      deferred_reason: reason,
      deferred_kind: 'zone_incomplete',
    },
    weekly: null,
    forecast_credit_mm: 0,
    forecast_credit_source: 'none',
    dormant: false,
    dormant_known: false,
    cycle_soak: null,
    steps: [],
    trailing_rain,
    applied_mm,
    control_today: controls[0] ?? NONE_CONTROL,
    why: reason,
  };
}

function controlFor(slug: string, date: string, d: number, ctx: EngineContext): ControlResolution {
  let runEpoch = ctx.now;
  if (d > 0) runEpoch = sunriseOf(date, ctx) ?? ctx.cal.dayStart(date);
  return resolveControls({
    controls: ctx.input.controls,
    zone: slug,
    dateLocal: date,
    now: ctx.now,
    runEpoch,
    timezone: ctx.timezone,
  });
}

/** A depletion in the owner's units: one number when known, `lo..hi` when a range. */
function describe(r: DepletionRange, say: Wording): string {
  return r.exact !== null ? say.depth(r.exact) : say.depthRange(r.lo, r.hi);
}

export type { CompleteZone };

/** Sunrise per date, computed once per recompute (a context) rather than per zone and pass. */
const sunrises = new WeakMap<EngineContext, Map<string, number | null>>();

function sunriseOf(date: string, ctx: EngineContext): number | null {
  let byDate = sunrises.get(ctx);
  if (!byDate) sunrises.set(ctx, (byDate = new Map()));
  if (!byDate.has(date)) byDate.set(date, sunriseEpoch(date, ctx.timezone, ctx.lat, ctx.lon));
  return byDate.get(date) ?? null;
}

/**
 * `engine.session_rain_defer_in`: a session on a day whose forecast rain (a
 * complete daily sum) reaches it waits for that rain instead of watering
 * ahead of it. Unknown rain defers nothing here; the skip check already holds
 * days whose rain evidence is incomplete.
 */
function sessionRainDefers(date: string, ctx: EngineContext): boolean {
  const rainIn = ctx.daily.get(date)?.precip_sum_in;
  return typeof rainIn === 'number' && rainIn >= ctx.input.config.engine.session_rain_defer_in;
}
