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
import { aheadCeilingMinutes, splitIntoSessions, wateringAheadNote } from '../schedule/restriction-plan';
import {
  allowanceMm,
  BET_HORIZON_DAYS,
  canAffordToWait,
  FORECAST_RAIN_CODES,
  findRainBet,
  holdWaitsOnAllowance,
  rangeDueReason,
  rangeDueWithinAllowance,
  forecastCredit,
  forecastUnavailableDefers,
  NO_FORECAST_NOTE,
  rainBetDecision,
  type Affordability,
  type BetDay,
  type Credit,
  rainFactorAt,
  rainWeightAt,
} from '../policy/forecast-policy';
import { weeklyPlan, type WeeklyPlan } from './weekly-model';
import type { CompleteZone, ResolvedZone } from './zone-inputs';

/**
 * The per-zone 7-day plan (spec 2.5 Water plan zone) and today's decision.
 *
 * Gates, in order, for each plan day (first that speaks decides):
 * 1. the zone is incomplete -> `zone_incomplete` (nothing can be sized);
 * 2. controls (`resolveControls`): pause / tomorrow override / zone override /
 *    global override; a `skip` decides here (reason_code from the control);
 *    then, unless a control forces a run, an override fixed schedule running
 *    the zone that day -> `schedule_override` (schedule/fixed-schedule-plan.ts);
 * 2a. a bound probe reading wet holds the next run -> `soil_probe_wet`
 *    (measured evidence, absolute; unless a control forces `run`);
 * 3. dormancy (unless a control forces `run`) -> `dormant`;
 * 4. the model: soil `depletion_unknown` / `not_due`, weekly
 *    `weekly_budget_unset` / `not_session_day` / `budget_met`;
 * 5. watering restrictions (also for forced runs: they are local law) -> `restricted_day`;
 * 6. the skip verdict (today: the live skip check; later days: the
 *    seven-day projection), unless a control forces `run`: `skip` or `unknown`
 *    (a hold) with the deciding rule's reason_code; a forecast-rain skip or a
 *    hold on missing evidence holds a due soil zone only while it can afford
 *    to wait (policy/forecast-policy.ts);
 * 7. a due soil zone waits for forecast rain it can afford to wait for (the
 *    skip rule's code, or `forecast_rain_expected`);
 * 8. rain evidence for the forecast credit missing -> `forecast_unavailable`,
 *    while the zone can afford to wait; with no forecast at all it waters;
 * 9. weekly: `session_rain_deferred`; the forecast credit covers the deficit
 *    -> `forecast_rain_covers`;
 * 10. water: `water` (engine) or the control's `*_run` code.
 *
 * Each gate is a small function (GATES, in this order); the policy's rules
 * (allowance, bet, credit, make-up, no forecast, missing evidence) live in
 * policy/forecast-policy.ts.
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
  /** Rules that could skip but lack evidence (an `unknown` verdict); absent when not known. */
  unknown_rules?: readonly string[];
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
  // A weekly zone has no allowance to bet against: its budget counts the credit as before.
  const weeklyCredit = todayCredit(z, ctx, true);
  const creditAvailable = weeklyCredit.source !== 'unavailable' || !ctx.forecast_present;
  let todayCreditOf = weeklyCredit;

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
      forecast_credit_mm: weeklyCredit.mm,
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
    const control = controls[d] ?? NONE_CONTROL;
    const verdict = verdicts[d] ?? {
      verdict: 'unknown',
      reason_code: 'no_verdict',
      reason: 'no verdict for the day',
    };
    const { c, dayCredit } = dayCase({
      z,
      ctx,
      d,
      date,
      state,
      control,
      verdict,
      weekly,
      dormant,
      carry,
      probeHold,
      todayWindowClosed,
    });
    const { forced, isSoil, due, range } = c;
    if (d === 0) {
      todayCreditOf = dayCredit;
      dueToday = due;
    }
    const sizing = sizeDay(c);
    const gate = firstGate(c, sizing.depthMm);
    const code = gate.code;
    const run = sizeRun(c, gate, sizing.depthMm);
    const { seconds, capped } = run;
    const unrunToday = d === 0 && todayWindowClosed && seconds > 0;
    const reason = unrunToday ? `${run.reason}; ${WINDOW_CLOSED_NOTE}` : run.reason;
    if (d === 0) {
      soilToday = soilTodayOf(c, code, reason, run, creditAvailable);
      if (seconds > 0)
        cycle = splitIntoSessions(
          cycleSoak(seconds, z.precip_rate_mm_hr, z.infiltration_mm_hr, z.slope_pct, ctx.soak_minutes),
          (z.max_run_minutes ?? 60) * 60,
        );
    }
    const { need, demandSource, demandMm } = sizing;
    const watering = run.watering;
    const sized = run.sized;

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

    // project to the next day: forecast ET0, the forecast rain the policy counts, planned (not applied) water
    if (d < planDays - 1) {
      const et = ctx.et0_by_date.get(date) ?? {
        date_local: date,
        et0_mm: null,
        method: null,
        reason: 'no entry',
      };
      const rainMm = projectedRainMm(c, date);
      const scheduled = ctx.fixed.projectedSeconds(z.slug, z.precip_rate_mm_hr, date);
      const net = netIrrigationMm((unrunToday ? 0 : seconds) + scheduled, z.precip_rate_mm_hr, eff);
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
    forecast_credit_mm: todayCreditOf.mm,
    forecast_credit_source: todayCreditOf.source,
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

interface DayCaseInput {
  z: CompleteZone;
  ctx: EngineContext;
  d: number;
  date: string;
  state: SoilState;
  control: ControlResolution;
  verdict: SkipLike;
  weekly: WeeklyPlan | null;
  dormant: boolean;
  carry: boolean;
  probeHold: SkipLike | null;
  todayWindowClosed: boolean;
}

/** A plan day as the gates read it: the allowance, whether the zone can afford to wait, the credit, the due check. */
function dayCase(i: DayCaseInput): { c: DayCase; dayCredit: Credit } {
  const { z, ctx, d, date, state } = i;
  const range = rangeOf(state);
  const raw = z.capacity.raw_mm;
  const allowance = allowanceMm(z.capacity.taw_mm, raw) as number;
  const isSoil = z.model === 'soil';
  const horizon = horizonEtc(z, ctx, d);
  const afford = isSoil
    ? canAffordToWait(
        { start_hi_mm: range.hi, raw_mm: raw, allowance_mm: allowance, etc_until_rain_mm: horizon },
        ctx.say,
      )
    : null;
  const dayCredit =
    d === 0 ? todayCredit(z, ctx, afford?.affordable ?? true) : laterCredit(z, ctx, date, afford);
  const due = rangeRule(soilDue(state, z, horizon, dayCredit.mm, i.carry), state, allowance);
  const c: DayCase = {
    z,
    ctx,
    d,
    date,
    range,
    state,
    control: i.control,
    verdict: i.verdict,
    forced: i.control.decision === 'water',
    isSoil,
    weekly: i.weekly,
    due,
    credit: dayCredit.mm,
    allowance,
    afford,
    dormant: i.dormant,
    probeHold: i.probeHold,
    todayWindowClosed: i.todayWindowClosed,
  };
  return { c, dayCredit };
}

interface Run {
  watering: boolean;
  seconds: number;
  capped: boolean;
  sized: ReturnType<typeof plannedSeconds>;
  /** The gate's reason, with the note, the seconds and the cap when the zone waters. */
  reason: string;
}

const WATERING_CODES: ReadonlySet<string> = new Set(['water', 'establishing_refill', 'cap_carryover']);

/** The run a gate's decision plans: seconds for the depth (soil rounds up, after capture efficiency). */
function sizeRun(c: DayCase, gate: Gate, depthMm: number): Run {
  const z = c.z;
  const watering = WATERING_CODES.has(gate.code) || (c.forced && gate.code === c.control.reason_code);
  // Watering ahead of a restricted stretch may take more than one session (restriction-plan.ts).
  const ahead = c.isSoil && !c.forced ? aheadCeilingMinutes(c.ctx, c.d, z.max_run_minutes ?? 60) : null;
  const ceiling = ahead ?? z.max_run_minutes;
  const sized = c.isSoil
    ? plannedSeconds(depthMm, z.precip_rate_mm_hr, c.ctx.capture_efficiency, ceiling, 'up')
    : plannedSeconds(depthMm, z.precip_rate_mm_hr, 1, z.max_run_minutes);
  const seconds = watering ? sized.seconds : 0;
  const capped = watering && sized.cap_binding;
  let reason = gate.reason;
  if (watering) {
    reason += `${gate.note ?? ''}${c.isSoil && !c.forced ? wateringAheadNote(c.ctx, c.d) : ''}; ${seconds} s`;
    if (capped) {
      reason += ` (capped at ${ceiling ?? 60} min, ${sized.uncapped_seconds} s needed${c.isSoil ? '; the remainder carries into the next session' : ''})`;
    }
  }
  return { watering, seconds, capped, sized, reason };
}

/** Today's soil summary (water budget row): the soil model's own need and size, and what deferred it. */
function soilTodayOf(
  c: DayCase,
  code: string,
  reason: string,
  run: Run,
  creditAvailable: boolean,
): ZonePlan['soil'] {
  const z = c.z;
  const soilSized = plannedSeconds(
    Math.max(0, c.due.refill_mm - c.credit),
    z.precip_rate_mm_hr,
    c.ctx.capture_efficiency,
    z.max_run_minutes,
    'up',
  );
  const soilDueNow = c.due.need === 'due';
  return {
    need: c.due.need,
    planned_seconds: c.isSoil ? run.seconds : soilDueNow && creditAvailable ? soilSized.seconds : 0,
    ceiling_binding: c.isSoil ? run.capped : soilDueNow && soilSized.cap_binding,
    deferred_reason: run.watering ? '' : reason,
    deferred_kind:
      code === 'forecast_unavailable'
        ? 'forecast_unavailable'
        : run.watering || code === 'not_due'
          ? null
          : code,
  };
}

/**
 * The forecast rain a projected day counts: the bias-scaled amount at the
 * forecast's skill, and none for a soil zone that cannot afford to wait for
 * it (the plan then shows the session that waters it, as the policy will).
 */
function projectedRainMm(c: DayCase, date: string): number | null {
  const mm = c.ctx.forecast_rain_mm.get(date) ?? null;
  if (mm === null) return null;
  if (c.afford !== null && !c.afford.affordable) return 0;
  return mm * skillFactorAt(c.ctx, date);
}

/** The skill's factor on a plan day's bias-scaled forecast rain (policy: rainFactorAt). */
function skillFactorAt(ctx: EngineContext, date: string): number {
  return rainFactorAt(ctx.skill, Math.max(0, ctx.dates.indexOf(date)), ctx.bias.multiplier);
}

/** The policy's range rule: a range opened by missing evidence that could pass the allowance is due. */
function rangeRule(due: SoilDue, state: SoilState, allowance: number): SoilDue {
  if (due.need !== 'unknown' || !rangeDueWithinAllowance(state.reason, due.projected_hi, allowance))
    return due;
  return { ...due, need: 'due', kind: 'establishing_refill', range_rule: true };
}

/** One plan day of one complete zone, as the gates read it. */
interface DayCase {
  z: CompleteZone;
  ctx: EngineContext;
  d: number;
  date: string;
  range: DepletionRange;
  state: SoilState;
  control: ControlResolution;
  verdict: SkipLike;
  forced: boolean;
  isSoil: boolean;
  weekly: WeeklyPlan | null;
  due: SoilDue;
  /** Forecast rain credited in the due check and the sizing (0 when the zone cannot afford the bet). */
  credit: number;
  allowance: number;
  /** Whether a soil zone can afford to wait until its next session (null for weekly zones). */
  afford: Affordability | null;
  dormant: boolean;
  /** A wet bound probe's hold of the next run (soil/probe-hold.ts), null when none. */
  probeHold: SkipLike | null;
  todayWindowClosed: boolean;
}

interface Sizing {
  /** Net for soil, gross for weekly. */
  depthMm: number;
  demandMm: number;
  need: string;
  demandSource: string;
}

function sizeDay(c: DayCase): Sizing {
  if (c.isSoil) {
    const demandMm = Math.max(0, (c.forced ? c.range.lo : c.due.refill_mm) - c.credit);
    return {
      depthMm: demandMm,
      demandMm,
      need: waterNeedLabel(c.due, c.z.capacity.raw_mm),
      demandSource: 'soil_bucket',
    };
  }
  if (c.weekly) {
    const session = c.weekly.session_offsets.includes(c.d);
    const demandMm = session || c.forced ? c.weekly.budget.mm_per_session : 0;
    return {
      depthMm: demandMm,
      demandMm,
      need: c.weekly.budget.needed_mm <= 0 ? 'none' : session ? 'due' : 'low',
      demandSource: 'weekly_budget',
    };
  }
  return { depthMm: 0, demandMm: 0, need: 'unknown', demandSource: 'none' };
}

interface Gate {
  code: string;
  reason: string;
  /** Appended to a watering reason (why a forecast rule did not hold the zone). */
  note?: string;
}

type GateFn = (c: DayCase, depthMm: number) => Gate | null;

/**
 * The gates in order (see the file comment); the first that speaks decides.
 * The forecast gates call the policy (policy/forecast-policy.ts).
 */
const GATES: readonly GateFn[] = [
  controlSkipGate,
  probeHoldGate,
  scheduleOverrideGate,
  dormancyGate,
  soilModelGate,
  weeklyModelGate,
  restrictionGate,
  skipVerdictGate,
  rainBetGate,
  forecastUnavailableGate,
  sessionRainDeferGate,
  nothingToRefillGate,
];

function firstGate(c: DayCase, depthMm: number): Gate {
  let note = '';
  for (const gate of GATES) {
    const g = gate(c, depthMm);
    if (g === null) continue;
    if (g.code !== '') return { ...g, note: (g.note ?? '') + note };
    note += g.note ?? '';
  }
  return { ...waterGate(c, depthMm), note: note === '' ? sessionRainNote(c) : note };
}

function controlSkipGate(c: DayCase): Gate | null {
  return c.control.decision === 'skip' ? { code: c.control.reason_code, reason: c.control.reason } : null;
}

/** An override fixed schedule runs the zone that day: smart watering stands down (schedule/fixed-schedule-plan.ts). */
function scheduleOverrideGate(c: DayCase): Gate | null {
  if (c.forced) return null;
  const suppressed = c.ctx.fixed.suppressionReason(c.z.slug, c.date);
  return suppressed === null ? null : { code: 'schedule_override', reason: suppressed };
}

/**
 * A bound probe reading wet holds the next run (today's, or tomorrow's once
 * today's window has closed): measured evidence, absolute like the measured
 * rules, so no forecast bet or note reopens it; only a forced run passes.
 */
function probeHoldGate(c: DayCase): Gate | null {
  const hold = c.probeHold;
  if (!hold || c.forced) return null;
  if (c.d !== 0 && !(c.d === 1 && c.todayWindowClosed)) return null;
  return { code: hold.reason_code, reason: hold.reason };
}

function dormancyGate(c: DayCase): Gate | null {
  if (!c.dormant || c.forced) return null;
  return {
    code: 'dormant',
    reason: `${c.z.species} is dormant (7-day mean temperature below its dormancy threshold)`,
  };
}

function soilModelGate(c: DayCase): Gate | null {
  if (!c.isSoil || c.forced) return null;
  const say = c.ctx.say;
  const raw = c.z.capacity.raw_mm;
  if (c.due.need === 'unknown') {
    const known = c.range.exact !== null;
    return {
      code: 'depletion_unknown',
      reason: known
        ? `depletion ${say.depth(c.range.exact as number)} is known, but the crop water use until the next session is not (no ET0 for those days): by then it may or may not pass the trigger of ${say.depth(raw)}: no water on a guess`
        : `root-zone depletion is only known to lie in ${say.depthRange(c.range.lo, c.range.hi)} (${rangeWhy(c.state)}); by the next session it may or may not pass the trigger of ${say.depth(raw)}: no water on a guess`,
    };
  }
  if (c.due.need !== 'not_due') return null;
  const credited =
    c.credit > 0
      ? ` with ${say.depth(c.credit)} of forecast rain credited (a bet within the stress allowance ${say.depth(c.allowance)})`
      : '';
  return {
    code: 'not_due',
    reason: `depletion ${describe(c.range, say)} stays below the trigger (RAW ${say.depth(raw)}) until the next session (${say.depth(Math.max(0, c.due.projected_hi))} by then${credited})`,
  };
}

function weeklyModelGate(c: DayCase): Gate | null {
  if (c.isSoil) return null;
  const w = c.weekly;
  if (!w) {
    return {
      code: 'weekly_budget_unset',
      reason: 'weekly model needs weekly_budget_in and sessions_per_week on the zone',
    };
  }
  if (c.forced) return null;
  if (w.budget.needed_mm <= 0) {
    return {
      code: 'budget_met',
      reason: `weekly budget met: rain and irrigation cover the ${c.ctx.say.depth(w.budget.target_mm)} target`,
    };
  }
  if (!w.session_offsets.includes(c.d)) {
    return {
      code: 'not_session_day',
      reason: `not a session day (sessions every ${w.budget.session_spacing_days} day(s))`,
    };
  }
  return null;
}

function restrictionGate(c: DayCase): Gate | null {
  if (c.ctx.allowed_dates.has(c.date)) return null;
  return {
    code: 'restricted_day',
    reason: c.ctx.restriction_why.get(c.date) ?? `watering restrictions do not allow ${c.date}`,
  };
}

/**
 * The skip verdict holds the zone, except a forecast-rain skip of a due soil
 * zone: that is a bet, taken only while the zone can afford it (the rain bet
 * gate); otherwise the zone waters and the reason says why the skip did not hold.
 */
function skipVerdictGate(c: DayCase): Gate | null {
  const v = c.verdict;
  if (c.forced || v.verdict === 'water') return null;
  const forecastSkip = v.verdict === 'skip' && FORECAST_RAIN_CODES.has(v.reason_code);
  const waitableHold = v.verdict === 'unknown' && holdWaitsOnAllowance(v.unknown_rules ?? []);
  const dueSoil = c.isSoil && c.due.need === 'due';
  if (dueSoil && waitableHold && c.afford !== null && !c.afford.affordable) {
    return {
      code: '',
      reason: '',
      note: `; ${v.reason_code}: the evidence cannot rule out a skip, but ${c.afford.reason}: watered`,
    };
  }
  if (!(dueSoil && forecastSkip)) return { code: v.reason_code, reason: v.reason };
  return null;
}

/** A due soil zone waits for forecast rain it can afford to wait for (policy: findRainBet). */
function rainBetGate(c: DayCase): Gate | null {
  if (!c.isSoil || c.forced || c.due.need !== 'due' || c.due.kind === 'cap_carryover') return null;
  if (!c.ctx.forecast_present) return null;
  const skipCode = c.verdict.verdict === 'skip' ? c.verdict.reason_code : null;
  const bet = findRainBet({
    start_hi_mm: c.range.hi,
    raw_mm: c.z.capacity.raw_mm,
    allowance_mm: c.allowance,
    bias_multiplier: rainWeightAt(c.ctx.skill, c.d, c.ctx.bias.multiplier),
    rain_cap_mm: c.z.rain_cap_mm,
    days: betDays(c),
  });
  const madeUp = c.afford?.code === 'forecast_bet_made_up' ? c.afford.reason : null;
  const decision = rainBetDecision(bet, skipCode, c.allowance, c.ctx.say, madeUp);
  if (decision.wait) return { code: decision.code, reason: decision.reason };
  return decision.note ? { code: '', reason: '', note: decision.note } : null;
}

/** The plan days from `c.d` on, as a bet reads them: forecast rain, its probability, the day's ETc. */
function betDays(c: DayCase): BetDay[] {
  return c.ctx.dates.slice(c.d, c.d + BET_HORIZON_DAYS).map((date) => {
    const day = c.ctx.daily.get(date);
    const rainIn = day?.precip_sum_in;
    return {
      date_local: date,
      weight: rainWeightAt(c.ctx.skill, Math.max(0, c.ctx.dates.indexOf(date)), c.ctx.bias.multiplier),
      rain_mm: typeof rainIn === 'number' && Number.isFinite(rainIn) && rainIn >= 0 ? rainIn * 25.4 : null,
      probability_pct: percentOrNull(day?.precip_probability_max),
      etc_mm: forecastEtc(c.z, date, c.ctx.et0_by_date.get(date), c.ctx.lat),
    };
  });
}

/**
 * Rain evidence missing: an incomplete forecast (rain could be on its way)
 * defers only a zone that can afford to wait; with no forecast at all the
 * zone waters on local evidence.
 */
function forecastUnavailableGate(c: DayCase): Gate | null {
  if (c.forced) return null;
  const missing = c.d === 0 ? c.ctx.next24h_rain_mm === null : c.verdict.rain_evidence_incomplete === true;
  if (!missing) return null;
  if (!c.ctx.forecast_present) return { code: '', reason: '', note: `; ${NO_FORECAST_NOTE}` };
  if (!forecastUnavailableDefers(true, c.afford?.affordable ?? true)) {
    return {
      code: '',
      reason: '',
      note: `; forecast rain evidence is incomplete, but ${c.afford?.reason ?? 'the zone cannot wait'}: watered`,
    };
  }
  return {
    code: 'forecast_unavailable',
    reason:
      c.d === 0
        ? 'the next 24 hours of forecast rain are incomplete: the rain credit cannot be known, watering deferred'
        : 'forecast rain evidence for the day is incomplete: watering deferred',
  };
}

function sessionRainDeferGate(c: DayCase, depthMm: number): Gate | null {
  if (c.forced || c.isSoil || depthMm <= 0 || !sessionRainDefers(c.date, c.ctx)) return null;
  const say = c.ctx.say;
  const rainIn = c.ctx.daily.get(c.date)?.precip_sum_in ?? 0;
  const threshold = c.ctx.input.config.engine.session_rain_defer_in;
  return {
    code: 'session_rain_deferred',
    reason: `${say.rain(rainIn)} of rain forecast for ${c.date} reaches session_rain_defer_in (${say.rain(threshold)}): the session waits for it`,
  };
}

function nothingToRefillGate(c: DayCase, depthMm: number): Gate | null {
  if (depthMm > 0) return null;
  return c.forced
    ? {
        code: `${c.control.reason_code}_nothing_missing`,
        reason: `${c.control.reason}, but no deficit is proven: nothing to refill`,
      }
    : {
        code: 'forecast_rain_covers',
        reason: `forecast rain (${c.ctx.say.depth(c.credit)} credited) covers the deficit`,
      };
}

function waterGate(c: DayCase, depthMm: number): Gate {
  if (c.forced) return { code: c.control.reason_code, reason: c.control.reason };
  if (!c.isSoil) return { code: 'water', reason: `weekly session: ${c.ctx.say.depth(depthMm)}` };
  return {
    code: c.due.kind,
    reason: soilReason(c.due, c.range, c.z.capacity.raw_mm, c.credit, c.state, c.ctx.say, c.allowance),
  };
}

/** A soil zone watering on a day whose forecast rain reaches session_rain_defer_in: the rain does not cover the need. */
function sessionRainNote(c: DayCase): string {
  if (c.forced || !c.isSoil || c.credit <= 0 || !sessionRainDefers(c.date, c.ctx)) return '';
  return `; the rain forecast for ${c.date} (${c.ctx.say.depth(c.credit)} credited) does not cover the need: the rest is watered`;
}

function percentOrNull(v: number | null | undefined): number | null {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= 100 ? v : null;
}

/** Today's credit: the next 24 hours of forecast rain, for a zone that can afford the bet (policy). */
function todayCredit(z: CompleteZone, ctx: EngineContext, affordable: boolean): Credit {
  return forecastCredit(
    {
      forecast_present: ctx.forecast_present,
      next24h_mm: ctx.next24h_rain_mm,
      bias_multiplier: rainWeightAt(ctx.skill, 0, ctx.bias.multiplier),
      rain_cap_mm: z.rain_cap_mm,
      affordable,
    },
    ctx.say,
  );
}

/** A later plan day's credit: its bias-scaled forecast rain, while the zone can afford the bet. */
function laterCredit(
  z: CompleteZone,
  ctx: EngineContext,
  date: string,
  afford: Affordability | null,
): Credit {
  const mm = Math.min(z.rain_cap_mm, (ctx.forecast_rain_mm.get(date) ?? 0) * skillFactorAt(ctx, date));
  if (afford !== null && !afford.affordable)
    return { mm: 0, source: 'none', code: afford.code, reason: afford.reason };
  return { mm, source: mm > 0 ? 'bias_forecast' : 'none', code: 'credit', reason: '' };
}

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
  allowance: number,
): string {
  const creditText = credit > 0 ? `, ${say.depth(credit)} of forecast rain credited` : '';
  if (due.kind === 'cap_carryover') {
    return `the last session was cut short by max_run_minutes: the remaining ${describe(range, say)} deficit carries into this session${creditText}`;
  }
  if (due.range_rule) {
    return `depletion lies in ${say.depthRange(range.lo, range.hi)} (${rangeWhy(state)}); ${rangeDueReason(due.projected_hi, allowance, say)}: establishing refill to the upper bound ${say.depth(range.hi)}${creditText}, after which the root zone is known full`;
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
  et0_estimated: 'ET0 estimated from bridged inputs since',
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
  if (d > 0) runEpoch = sunriseEpoch(date, ctx.timezone, ctx.lat, ctx.lon) ?? ctx.cal.dayStart(date);
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
