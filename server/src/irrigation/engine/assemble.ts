import { activeOverrideTomorrow, isPaused } from '../controls/resolve';
import { dayWindow, nextRunOverWindows, ownWindow, type TodayClosed } from '../schedule/zone-windows';
import type { IrrigationForecast, SevenDayVerdict, SkipCheck } from '../skip/skip-check';
import type {
  CurrentWeather,
  IrrigationSnapshot,
  WaterBudgetRow,
  WaterPlanDay,
  Zone,
} from '../snapshot-schema';
import type { ZoneLedger } from './applied-water';
import type { EngineContext } from './context';
import { round } from './soil-model';
import type { EngineOutput } from './types';
import type { ZonePlan } from './water-plan';
import { soilMath } from './zone-math';
import { capShortfallMm } from './cap-shortfall';
import { soilForecastEntry } from '../soil/probe-forecast';
import { PROBE_HOLD_CODE } from '../soil/probe-hold';
import { allowanceMm } from '../policy/forecast-policy';

/**
 * Builds the irrigation snapshot (spec 2.5) from the per-zone plans.
 *
 * Choices the spec leaves open, made here:
 * - `master_enable`: true unless a `master_enable` toggle is stored false (no
 *   such control exists yet; the pause is reported by `skip_check.is_paused`).
 * - `water_level_pct` null / `water_level_capable` false, `flow` all null and
 *   `flow_connected` false, `ha_adoption` [] and `ha_reachable` true: no controller
 *   or Home Assistant data reaches the engine; the irrigation service lays them over.
 * - `station_last_seen_epoch` / `forecast_last_seen_epoch`: 0 when never seen (the schema wants an integer).
 * - Water plan day `start_epoch`/`finish_epoch`: the run window for that day's total
 *   planned seconds; null when nothing is planned that day or no window exists.
 * - Water plan day `window_closed` (extra): true on day 0 once today's run window is
 *   over; its zones keep today's decision, and unrun seconds say so in `reason`.
 * - `zones[].planned_run_seconds` (and `math.cap_binding`): the zone's seconds in the
 *   next run window still to come: today's while today's window is open, tomorrow's
 *   once it has closed (the water plan's day 0 keeps the closed window's figure as a
 *   record, but it will not run), so it matches the next run. `math.cap_shortfall_mm`
 *   (and each plan zone's `cap_shortfall_mm`): the mm that ceiling leaves out (cap-shortfall.ts).
 * - `forecast.eto_today_mm`: the ET0 the engine used for today (the decision trace's
 *   `et0_days`, computed by `engine.et0_method` or the provider's own figure), so the
 *   snapshot carries one number for it; null only when the engine had none.
 * - `expected_rain_mm` of a plan day: forecast rain x probability x 0.7; of a budget
 *   row: the probability-weighted 7-day forward forecast (`rain_7day_weighted_in`) x 0.7.
 * - Overall verdict: `water` (some zone waters today), `paused`, `skip` (the skip
 *   check proved a skip), `hold` (a zone needs water but evidence is missing or
 *   an unknown rule holds it), else `none` (no zone needs water).
 */

export const EXPECTED_RAIN_FACTOR = 0.7;

export interface AssembleArgs {
  ctx: EngineContext;
  plans: ZonePlan[];
  ledgers: Map<string, ZoneLedger>;
  skip: SkipCheck;
  seven: SevenDayVerdict[];
  slice: IrrigationForecast;
  provisionalWindow: { start_epoch: number; finish_epoch: number; kind: string } | null;
  /** Today's run window is over: day 0's remaining water will not run today. */
  todayWindowClosed: boolean;
  /** Each zone's own flag (schedule/zone-windows.ts): its own window's, else the deployment's. */
  closed: TodayClosed;
}

const HOLD_CODES = new Set(['forecast_unavailable', 'depletion_unknown']);

export function assembleOutput(a: AssembleArgs): EngineOutput {
  const { ctx, plans, skip } = a;
  const input = ctx.input;
  const today = ctx.cal.today;
  const totalByDay = ctx.dates.map((_, d) =>
    plans.reduce((s, p) => s + (p.days[d]?.planned_seconds ?? 0), 0),
  );
  const minTempByDay = ctx.dates.map((date) => ctx.daily.get(date)?.temp_min_f ?? null);
  const next = nextRunOverWindows(ctx, plans, minTempByDay);
  const paused = isPaused(input.controls, ctx.now);
  const weightedIn = skip.rain_7day_weighted_in;
  const budgetExpected = weightedIn === null ? null : r2(weightedIn * 25.4 * EXPECTED_RAIN_FACTOR);

  // ---- water plan ----
  const water_plan: WaterPlanDay[] = ctx.dates.map((date, d) => {
    const entry = ctx.daily.get(date);
    const rainIn = entry?.precip_sum_in;
    const rainMm = rainIn === null || rainIn === undefined || rainIn < 0 ? null : r2(rainIn * 25.4);
    const prob = entry?.precip_probability_max;
    const probPct = prob === null || prob === undefined || prob < 0 || prob > 100 ? null : Math.round(prob);
    const total = totalByDay[d] ?? 0;
    const span = total > 0 ? dayWindow(ctx, plans, d, a.ledgers) : null;
    const start = span?.start ?? null;
    const finish = span?.finish ?? null;
    const verdict = a.seven[d];
    const et = ctx.et0_by_date.get(date);
    return {
      date_local: date,
      day_offset: d,
      time_epoch: Math.floor(ctx.cal.dayStart(date)),
      start_epoch: start,
      finish_epoch: finish,
      forecast_rain_mm: rainMm,
      expected_rain_mm:
        rainMm === null || probPct === null ? null : r2(rainMm * (probPct / 100) * EXPECTED_RAIN_FACTOR),
      rain_probability_pct: probPct,
      evidence_complete:
        verdict !== undefined && !verdict.rain_evidence_incomplete && (et?.et0_mm ?? null) !== null,
      window_closed: d === 0 && a.todayWindowClosed,
      zones: plans.map((p) => {
        const z = p.days[d];
        const own = ownWindow(ctx, p, d, a.ledgers);
        return {
          zone: p.zone.slug,
          name: p.zone.name,
          ...(z as NonNullable<typeof z>),
          cap_shortfall_mm: capShortfallMm(p, z, ctx.capture_efficiency),
          ...(own
            ? { run_window: { ...own, ...(d === 0 ? { closed: a.closed.of(p.zone.slug) } : {}) } }
            : {}),
        };
      }),
    };
  });

  // ---- zones ----
  const zones: Zone[] = plans.map((p) => {
    const ledger = a.ledgers.get(p.zone.slug);
    const run = input.zoneRunning?.get(p.zone.slug);
    const upcoming = a.closed.of(p.zone.slug) ? p.days[1] : p.days[0];
    const range = p.today_range;
    const bucket = range && range.exact !== null ? r2(0 - range.exact) : null;
    const kc = p.zone.complete
      ? (p.steps.find((s) => s.date_local === today && s.kind === 'projected')?.kc ?? 0)
      : 0;
    const soil = soilMath(p, ctx);
    return {
      name: p.zone.name,
      slug: p.zone.slug,
      running: run?.running ?? false,
      running_known: run?.running_known ?? false,
      running_observed_epoch: run?.observed_epoch ?? null,
      ledger_running: ledger?.ledger_running ?? false,
      controller_id: p.zone.controller_id,
      planned_run_seconds: upcoming?.planned_seconds ?? 0,
      bucket_mm: bucket,
      throughput_mm_hr: p.zone.precip_rate_mm_hr ?? 0,
      last_run_epoch: ledger?.last_run_epoch ?? 0,
      smart_suppressed: ctx.fixed.smartSuppressed(p.zone.slug),
      math: {
        bucket_mm: bucket,
        kc,
        cap_binding: upcoming?.session_capped ?? false,
        cap_shortfall_mm: capShortfallMm(p, upcoming, ctx.capture_efficiency),
        depletion_range_mm: range && range.exact === null ? [r2(range.lo), r2(range.hi)] : null,
        taw_mm: p.zone.complete ? r2(p.zone.capacity.taw_mm) : null,
        raw_mm: p.zone.complete ? r2(p.zone.capacity.raw_mm) : null,
        allowance_mm: allowanceOf(p),
        throughput_known: p.zone.precip_rate_mm_hr !== null,
        cycle_count: p.cycle_soak?.cycle_count ?? 0,
        cycles_s: p.cycle_soak?.cycles.map((c) => c.run_s) ?? [],
        soak_s: p.cycle_soak ? p.cycle_soak.soak_s : null,
        running_note: run?.running && run.running_known ? 'zone reported running; planning unaffected' : null,
        ...soil,
      },
      override: input.controls.zone_overrides[p.zone.slug] ?? 'auto',
      hex: '',
      today_run_minutes: null,
    };
  });

  // ---- water budgets ----
  const water_budgets: WaterBudgetRow[] = plans.map((p) => {
    const t = p.days[0];
    const w = p.weekly?.budget ?? null;
    const known = p.trailing_rain.filter((x) => x.rain_mm !== null);
    const cap = p.zone.complete ? p.zone.rain_cap_mm : 0;
    const observedRaw = known.reduce((s, x) => s + (x.rain_mm as number), 0);
    const observedCredited = known.reduce(
      (s, x) => s + Math.min(x.rain_mm as number, cap > 0 ? cap : Infinity),
      0,
    );
    const isSoil = p.zone.model === 'soil';
    const range = p.today_range;
    const soilNeeded = range ? Math.max(0, range.lo - p.forecast_credit_mm) : 0;
    const eff = ctx.capture_efficiency;
    const row: WaterBudgetRow & Record<string, unknown> = {
      zone: p.zone.slug,
      today_seconds: t?.planned_seconds ?? 0,
      today_reason: t?.reason ?? '',
      session_capped: t?.session_capped ?? false,
      expected_rain_mm: budgetExpected,
      needed_mm: r2(w ? w.needed_mm : isSoil && p.soil.need === 'due' ? soilNeeded / eff : 0),
      mm_per_session: r2(w ? w.mm_per_session : isSoil && p.soil.need === 'due' ? soilNeeded / eff : 0),
      remaining_sessions: w ? w.remaining_sessions : 1,
      observed_rain_mm: r2(observedRaw),
      observed_rain_source: p.weekly?.observed_rain_source ?? sourceOf(p),
      observed_rain_credited_mm: r2(observedCredited),
      rain_credit_cap_mm: r2(cap),
      rain_cap_inferred: p.zone.complete ? p.zone.rain_cap_inferred : false,
      applied_mm: r2(p.applied_mm),
      forecast_credit_mm: r2(p.forecast_credit_mm),
      forecast_credit_source: p.forecast_credit_source,
      bias_multiplier: ctx.bias.multiplier,
      bias_sample_count: Math.floor(ctx.bias.sample_count),
      scheduling_model: p.zone.model,
      soil_depletion_mm: range && range.exact !== null ? r2(range.exact) : null,
      soil_taw_mm: p.zone.complete ? r2(p.zone.capacity.taw_mm) : null,
      soil_raw_mm: p.zone.complete ? r2(p.zone.capacity.raw_mm) : null,
      soil_allowance_mm: allowanceOf(p),
      soil_due: p.soil.need === 'due',
      soil_planned_seconds: p.soil.planned_seconds,
      soil_deferred_reason: p.soil.deferred_reason,
      soil_deferred_kind: p.soil.deferred_kind,
      soil_ceiling_binding: p.soil.ceiling_binding,
      dormant: p.dormant,
      last_run_epoch: a.ledgers.get(p.zone.slug)?.last_run_epoch ?? 0,
      mode_active: true,
      soil_depletion_range_mm: range && range.exact === null ? [r2(range.lo), r2(range.hi)] : null,
      observed_rain_days_missing: p.trailing_rain.length - known.length,
    };
    return row;
  });

  // ---- verdicts ----
  const zoneVerdicts = plans.map((p) => {
    const t = p.days[0];
    const seconds = t?.planned_seconds ?? 0;
    const code = t?.reason_code ?? '';
    const verdict =
      seconds > 0
        ? 'water'
        : p.control_today.decision === 'skip' || code === PROBE_HOLD_CODE
          ? 'skip'
          : skip.verdict === 'skip' && code === skip.reason_code
            ? 'skip'
            : (skip.verdict === 'unknown' && code === skip.reason_code) ||
                HOLD_CODES.has(code) ||
                code === 'zone_incomplete'
              ? 'hold'
              : 'none';
    return {
      zone: p.zone.slug,
      name: p.zone.name,
      verdict,
      reason_code: code,
      reason: t?.reason ?? '',
      water_need: t?.water_need ?? 'unknown',
      planned_seconds: seconds,
      source: p.control_today.source,
    };
  });
  const overall = overallVerdict(zoneVerdicts, paused, skip);
  const trace = decisionTrace(a, overall, zoneVerdicts);

  const toggles = input.controls.toggles as Record<string, boolean | undefined>;
  const skipCheck = {
    ...skip,
    script_hold: skip.script_hold ? { ...skip.script_hold } : null,
    is_paused: paused,
    run_window: next.today_window.kind,
    window_min_temp_f: skip.window_min_temp_f,
  };
  const snapshot: IrrigationSnapshot = {
    last_refresh_epoch: Math.floor(ctx.now),
    timezone: ctx.timezone,
    restart_required: false,
    restart_reasons: [],
    next_run_epoch: Math.floor(next.next_run_epoch),
    next_run_state: next.next_run_state,
    next_run_day_offset: next.next_run_day_offset,
    next_run_total_minutes: next.next_run_total_minutes,
    today_window: {
      start: Math.floor(next.today_window.start),
      finish: Math.floor(next.today_window.finish),
      kind: next.today_window.kind,
      min_temp_f: next.today_window.min_temp_f,
    },
    restriction_allowed_days: [...ctx.allowed_days],
    master_enable: toggles['master_enable'] !== false,
    water_level_pct: null,
    water_level_capable: false,
    station_last_seen_epoch: Math.floor(input.weather.last_packet_epoch ?? 0),
    forecast_last_seen_epoch: Math.floor(input.forecast.last_refresh_epoch ?? 0),
    zones,
    water_plan,
    skip_check: skipCheck,
    forecast: { ...a.slice, eto_today_mm: et0Used(ctx, today) },
    seven_day_verdicts: a.seven.map((v) => ({ ...v })),
    soil_forecasts: plans.map((p) => soilForecastEntry(p, input.probes?.get(p.zone.slug))),
    water_budgets,
    zone_verdicts: zoneVerdicts,
    pause_until_epoch: Math.floor(input.controls.pause_until_epoch),
    override_tomorrow: activeOverrideTomorrow(input.controls, ctx.now, ctx.timezone),
    global_override: input.controls.global_override,
    decision_trace: trace,
    current_weather: (input.currentWeather ?? null) as CurrentWeather,
    controls_persisted: input.controlsPersisted,
    flow_connected: false,
    flow: { rate_gpm: null, rate_source_id: null, total_gal_today: null, total_source_id: null },
    software_failsafe_controllers: [],
    ha_adoption: [],
    override_helpers_present: input.controlsPersisted,
    ha_reachable: true,
    iu_enabled: false,
    iu_suspended: false,
    ha_adoption_awaiting_config: false,
  };
  return {
    snapshot,
    decision: {
      date_local: today,
      epoch: Math.floor(ctx.now),
      kind: overall.verdict,
      zones: zoneVerdicts.map((z) => ({
        zone: z.zone,
        name: z.name,
        reason_code: z.reason_code,
        reason: z.reason,
        water_need: z.water_need,
        planned_seconds: z.planned_seconds,
        ...tomorrowPromise(ctx),
      })),
    },
    verdict: overall.verdict,
    verdictReason: { reason_code: overall.reason_code, reason: overall.reason, deciding: overall.deciding },
  };
}

/** The ET0 the engine used for a day (what the decision trace lists), rounded like the trace. */
function et0Used(ctx: EngineContext, date: string): number | null {
  const value = ctx.et0_by_date.get(date)?.et0_mm ?? null;
  return value === null ? null : r2(value);
}

function sourceOf(p: ZonePlan): 'gauge' | 'model_archive' | 'none' {
  const known = p.trailing_rain.filter((x) => x.rain_mm !== null);
  if (known.length === 0) return 'none';
  return known.some((x) => x.source !== 'gauge') ? 'model_archive' : 'gauge';
}

interface ZoneVerdictRow {
  zone: string;
  name: string;
  verdict: string;
  reason_code: string;
  reason: string;
  water_need: string;
  planned_seconds: number;
  source: string;
}

export interface OverallVerdict {
  verdict: 'water' | 'paused' | 'skip' | 'hold' | 'none';
  reason_code: string;
  reason: string;
  /** What decided: `controls`, `skip_check`, `model`, `evidence`. */
  deciding: string;
}

function overallVerdict(rows: ZoneVerdictRow[], paused: boolean, skip: SkipCheck): OverallVerdict {
  const watering = rows.filter((r) => r.verdict === 'water');
  if (watering.length > 0) {
    const first = watering[0] as ZoneVerdictRow;
    return {
      verdict: 'water',
      reason_code: first.reason_code,
      reason: `${watering.length} zone(s) water today: ${watering.map((r) => `${r.name} ${r.planned_seconds} s`).join(', ')}.`,
      deciding: first.source === 'engine' ? 'model' : 'controls',
    };
  }
  if (paused)
    return {
      verdict: 'paused',
      reason_code: 'paused',
      reason: 'Irrigation is paused.',
      deciding: 'controls',
    };
  const controlled = rows.find((r) => r.source !== 'engine' && r.verdict === 'skip');
  if (controlled && rows.every((r) => r.verdict === 'skip' || r.verdict === 'none')) {
    return {
      verdict: 'skip',
      reason_code: controlled.reason_code,
      reason: controlled.reason,
      deciding: 'controls',
    };
  }
  if (skip.verdict === 'skip') {
    return { verdict: 'skip', reason_code: skip.reason_code, reason: skip.reason, deciding: 'skip_check' };
  }
  const held = rows.find((r) => r.verdict === 'hold');
  if (held) {
    return {
      verdict: 'hold',
      reason_code: held.reason_code,
      reason: `${held.name}: ${held.reason}`,
      deciding: held.reason_code === skip.reason_code ? 'skip_check' : 'evidence',
    };
  }
  return {
    verdict: 'none',
    reason_code: 'no_water_needed',
    reason: 'No zone needs water today.',
    deciding: 'model',
  };
}

function decisionTrace(
  a: AssembleArgs,
  overall: OverallVerdict,
  rows: ZoneVerdictRow[],
): Record<string, unknown> {
  const { ctx, plans, skip } = a;
  return {
    date_local: ctx.cal.today,
    now_epoch: Math.floor(ctx.now),
    verdict: overall.verdict,
    reason_code: overall.reason_code,
    reason: overall.reason,
    deciding: overall.deciding,
    skip_check: {
      verdict: skip.verdict,
      reason_code: skip.reason_code,
      reason: skip.reason,
      unknown_policy: skip.unknown_policy,
      deciding_rule: skip.rules.find((r) => r.reason_code === skip.reason_code)?.rule ?? null,
    },
    provisional_window: a.provisionalWindow,
    et0_method_requested: ctx.et0_method,
    bias: ctx.bias,
    forecast_skill: ctx.skill,
    next24h_rain_mm: ctx.next24h_rain_mm === null ? null : r2(ctx.next24h_rain_mm),
    soil_rule:
      "tonight's closing depletion from the soil ledger; due when even its lower bound plus the ETc until the next session, less the rain credit, reaches RAW; refill to field capacity (an establishing refill to the upper bound while it is a range); a capped run carries over",
    zones: Object.fromEntries(
      plans.map((p) => {
        const row = rows.find((r) => r.zone === p.zone.slug);
        const z = p.zone;
        return [
          z.slug,
          {
            name: z.name,
            model: z.model,
            model_source: z.model_source,
            inputs: z.complete
              ? {
                  species: z.species,
                  soil_texture: z.soil_texture,
                  sprinkler_type: z.config.sprinkler_type ?? null,
                  sun_exposure: z.config.sun_exposure ?? null,
                  sun_factor: z.sun_factor,
                  precip_rate_mm_hr: z.precip_rate_mm_hr,
                  precip_rate_source: z.precip_rate_source,
                  root_depth_mm: z.capacity.root_depth_mm,
                  root_depth_source: z.capacity.root_depth_source,
                  mad: z.capacity.mad,
                  mad_source: z.capacity.mad_source,
                  taw_mm: r2(z.capacity.taw_mm),
                  raw_mm: r2(z.capacity.raw_mm),
                  rain_cap_mm: r2(z.rain_cap_mm),
                  rain_cap_inferred: z.rain_cap_inferred,
                  max_run_minutes: z.max_run_minutes ?? 60,
                  capture_efficiency: ctx.capture_efficiency,
                }
              : { missing: z.missing },
            et0_days: p.steps.map((s) => ({
              date_local: s.date_local,
              et0_mm: s.et0_mm,
              method: s.et0_method,
            })),
            kc_today:
              p.steps.find((s) => s.date_local === ctx.cal.today && s.kind === 'projected')?.kc ?? null,
            dormant: p.dormant,
            dormant_known: p.dormant_known,
            depletion_source: p.start?.origin ?? null,
            due: p.due_today,
            steps: p.steps,
            today_depletion_range_mm: p.today_range ? [r2(p.today_range.lo), r2(p.today_range.hi)] : null,
            forecast_credit_mm: r2(p.forecast_credit_mm),
            forecast_credit_source: p.forecast_credit_source,
            control: p.control_today,
            cycle_soak: p.cycle_soak,
            weekly: p.weekly
              ? {
                  ...p.weekly.budget,
                  session_offsets: p.weekly.session_offsets,
                  next_due_offset: p.weekly.next_due_offset,
                }
              : null,
            decision: row ?? null,
            why: p.why,
          },
        ];
      }),
    ),
    et0_days: [...ctx.et0_by_date.values()].map((e) => ({
      date_local: e.date_local,
      et0_mm: e.et0_mm === null ? null : r2(e.et0_mm),
      method: e.method,
      reason: e.reason,
    })),
  };
}

function r2(x: number): number {
  return round(x) as number;
}

/** The zone's stress allowance (forecast-policy.ts), null when TAW/RAW are unknown. */
function allowanceOf(p: ZonePlan): number | null {
  if (!p.zone.complete) return null;
  const mm = allowanceMm(p.zone.capacity.taw_mm, p.zone.capacity.raw_mm);
  return mm === null ? null : Math.round(mm * 100) / 100;
}

/** Tomorrow's forecast rain as this decision read it (recorded: the forecast skill is judged by it). */
function tomorrowPromise(ctx: EngineContext): {
  forecast_tomorrow_rain_mm: number | null;
  forecast_tomorrow_rain_pct: number | null;
} {
  const day = ctx.daily.get(ctx.cal.addDays(ctx.cal.today, 1));
  const inches = day?.precip_sum_in;
  const pct = day?.precip_probability_max;
  return {
    forecast_tomorrow_rain_mm:
      typeof inches === 'number' && Number.isFinite(inches) && inches >= 0 ? r2(inches * 25.4) : null,
    forecast_tomorrow_rain_pct: typeof pct === 'number' && Number.isFinite(pct) ? pct : null,
  };
}
