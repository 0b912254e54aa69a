import {
  cycleSoak,
  netIrrigationMm,
  plannedSeconds,
  type CycleSoakPlan,
} from '../../agronomy/soil/water-balance';
import { isDormant } from '../../agronomy/catalogs/species';
import { resolveControls, type ControlResolution } from '../controls/resolve';
import { isWeekdayAllowed } from '../schedule/restrictions';
import { weekdayOf } from '../schedule/local-date';
import { sunriseEpoch } from '../schedule/run-window';
import type { DepletionState } from '../../agronomy/soil/water-balance';
import type { ZoneLedger } from './applied-water';
import { grossMm } from './applied-water';
import type { EngineContext } from './context';
import {
  applyToday,
  rangeOf,
  round,
  soilNeed,
  soilStep,
  waterNeedLabel,
  type DepletionRange,
  type RainEvidence,
  type SoilStepTrace,
} from './soil-model';
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
): ZonePlan {
  const controls = ctx.dates.map((date, d) => controlFor(zone.slug, date, d, ctx));
  const trailingDates = Array.from({ length: 7 }, (_, i) => ctx.cal.addDays(ctx.cal.today, -(7 - i)));
  const trailing_rain = trailingDates.map(
    (date) => ctx.past_rain.get(date) ?? { rain_mm: null, source: 'none' as const },
  );
  const appliedDates = Array.from({ length: 7 }, (_, i) => ctx.cal.addDays(ctx.cal.today, -(6 - i)));
  const appliedSeconds = appliedDates.reduce((s, date) => s + (ledger.seconds_by_date.get(date) ?? 0), 0);
  const applied_mm = zone.precip_rate_mm_hr === null ? 0 : grossMm(appliedSeconds, zone.precip_rate_mm_hr);

  if (!zone.complete) {
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

  const z = zone;
  const eff = ctx.capture_efficiency;
  const taw = z.capacity.taw_mm;
  const raw = z.capacity.raw_mm;

  // ---- replay the past (unknown start: the whole [0, TAW]) ----
  const steps: SoilStepTrace[] = [];
  let state: DepletionState = { depletion_mm: null, depletion_range_mm: [0, taw] };
  for (const date of ctx.past_dates) {
    const et = ctx.et0_by_date.get(date) ?? {
      date_local: date,
      et0_mm: null,
      method: null,
      reason: 'no entry',
    };
    const rain = ctx.past_rain.get(date) ?? { rain_mm: null, source: 'none' as const };
    const secs = ledger.seconds_by_date.get(date) ?? 0;
    const s = soilStep(
      z,
      state,
      date,
      'past',
      et,
      rain,
      netIrrigationMm(secs, z.precip_rate_mm_hr, eff),
      ctx.lat,
    );
    state = s.state;
    steps.push(s.trace);
  }
  const todaySecs = ledger.seconds_by_date.get(ctx.cal.today) ?? 0;
  if (todaySecs > 0) {
    const s = applyToday(
      z,
      state,
      ctx.cal.today,
      netIrrigationMm(todaySecs, z.precip_rate_mm_hr, eff),
      ctx.lat,
    );
    state = s.state;
    steps.push(s.trace);
  }
  const today_range = rangeOf(state, taw);

  // ---- dormancy: trailing 7 daily means from the archive ----
  const means = ctx.past_dates.map((date) => {
    const e = ctx.past_daily.get(date);
    return e && e.temp_max_f !== null && e.temp_min_f !== null ? (e.temp_max_f + e.temp_min_f) / 2 : null;
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
  const days: PlanZoneDay[] = [];
  let soilToday: ZonePlan['soil'] = {
    need: null,
    planned_seconds: 0,
    ceiling_binding: false,
    deferred_reason: '',
    deferred_kind: null,
  };
  let cycle: CycleSoakPlan | null = null;
  for (let d = 0; d < ctx.dates.length; d += 1) {
    const date = ctx.dates[d] as string;
    const range = rangeOf(state, taw);
    const control = controls[d] ?? NONE_CONTROL;
    const verdict = verdicts[d] ?? {
      verdict: 'unknown',
      reason_code: 'no_verdict',
      reason: 'no verdict for the day',
    };
    const forced = control.decision === 'water';
    const credit = d === 0 ? creditMm : 0;
    const isSoil = z.model === 'soil';

    let depthMm = 0; // net for soil, gross for weekly
    let demandMm = 0;
    let need: string;
    let demandSource: string;
    if (isSoil) {
      need = waterNeedLabel(range, raw);
      demandSource = 'soil_bucket';
      demandMm = Math.max(0, range.lo - credit);
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
    const sn = soilNeed(range, raw);
    if (control.decision === 'skip') {
      code = control.reason_code;
      reason = control.reason;
    } else if (dormant && !forced) {
      code = 'dormant';
      reason = `${z.species} is dormant (7-day mean temperature below its dormancy threshold)`;
    } else if (isSoil && !forced && sn === 'unknown') {
      code = 'depletion_unknown';
      reason = `root-zone depletion is only known to lie in ${fmt(range.lo)}..${fmt(range.hi)} mm against a trigger of ${fmt(raw)} mm: no water on a guess`;
    } else if (isSoil && !forced && sn === 'not_due') {
      code = 'not_due';
      reason = `depletion ${describe(range)} mm is below the trigger (RAW ${fmt(raw)} mm)`;
    } else if (!isSoil && !weekly) {
      code = 'weekly_budget_unset';
      reason = 'weekly model needs weekly_budget_in and sessions_per_week on the zone';
    } else if (!isSoil && weekly && !forced && weekly.budget.needed_mm <= 0) {
      code = 'budget_met';
      reason = `weekly budget met: rain and irrigation cover the ${fmt(weekly.budget.target_mm)} mm target`;
    } else if (!isSoil && weekly && !forced && !weekly.session_offsets.includes(d)) {
      code = 'not_session_day';
      reason = `not a session day (sessions every ${weekly.budget.session_spacing_days} day(s))`;
    } else if (!isWeekdayAllowed(ctx.allowed_days, weekdayOf(date))) {
      code = 'restricted_day';
      reason = `watering restrictions do not allow ${date}`;
    } else if (!forced && verdict.verdict !== 'water') {
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
    } else if (!forced && depthMm > 0 && sessionRainDefers(date, ctx)) {
      const rainIn = ctx.daily.get(date)?.precip_sum_in ?? 0;
      code = 'session_rain_deferred';
      const threshold = ctx.input.config.engine.session_rain_defer_in;
      reason = `${rainIn.toFixed(2)} in of rain forecast for ${date} reaches session_rain_defer_in (${threshold.toFixed(2)} in): the session waits for it`;
    } else if (depthMm <= 0) {
      code = forced ? `${control.reason_code}_nothing_missing` : 'forecast_rain_covers';
      reason = forced
        ? `${control.reason}, but no deficit is proven: nothing to refill`
        : `forecast rain (${fmt(credit)} mm credited) covers the deficit`;
    } else {
      code = forced ? control.reason_code : 'water';
      reason = forced
        ? control.reason
        : isSoil
          ? `depletion ${describe(range)} mm reached the trigger (RAW ${fmt(raw)} mm)`
          : `weekly session: ${fmt(depthMm)} mm`;
    }

    const watering = code === 'water' || (forced && code === control.reason_code);
    const sized = plannedSeconds(depthMm, z.precip_rate_mm_hr, isSoil ? eff : 1, z.max_run_minutes);
    const seconds = watering ? sized.seconds : 0;
    const capped = watering && sized.cap_binding;
    if (watering) {
      reason += `; ${seconds} s${capped ? ` (capped at ${z.max_run_minutes ?? 60} min, ${sized.uncapped_seconds} s needed)` : ''}`;
    }
    const unrunToday = d === 0 && todayWindowClosed && seconds > 0;
    if (unrunToday) reason += `; ${WINDOW_CLOSED_NOTE}`;
    if (d === 0) {
      const soilSized = plannedSeconds(
        Math.max(0, range.lo - credit),
        z.precip_rate_mm_hr,
        eff,
        z.max_run_minutes,
      );
      const soilDue = sn === 'due';
      soilToday = {
        need: sn,
        planned_seconds: isSoil ? seconds : soilDue && creditAvailable ? soilSized.seconds : 0,
        ceiling_binding: isSoil ? capped : soilDue && soilSized.cap_binding,
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
    if (d < ctx.dates.length - 1) {
      const et = ctx.et0_by_date.get(date) ?? {
        date_local: date,
        et0_mm: null,
        method: null,
        reason: 'no entry',
      };
      const rainMm = ctx.forecast_rain_mm.get(date) ?? null;
      const s = soilStep(
        z,
        state,
        date,
        'projected',
        et,
        { rain_mm: rainMm, source: rainMm === null ? 'none' : 'forecast' },
        netIrrigationMm(unrunToday ? 0 : seconds, z.precip_rate_mm_hr, eff),
        ctx.lat,
      );
      state = s.state;
      steps.push(s.trace);
    }
  }

  const t = days[0] as PlanZoneDay;
  return {
    zone,
    days,
    today_range,
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

function fmt(x: number): string {
  return (Math.round(x * 10) / 10).toFixed(1);
}

function describe(r: DepletionRange): string {
  return r.exact !== null ? fmt(r.exact) : `${fmt(r.lo)}..${fmt(r.hi)}`;
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
