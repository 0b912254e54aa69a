import type { Et0Method } from '../../agronomy/et0';
import { unitSystemOf, wording } from '../../core/units/quantities';
import type { DailyWeather } from '../../store/weather-days';
import { rainSourceOf } from '../../weather-record/types';
import { type RecordEt0 } from '../soil/et0-of-day';
import { bandedEt0OfRecord } from '../soil/et0-bridge';
import { pastWeather } from './fallback-record';
import { effectiveSkipRules } from '../controls/controls-store';
import { restrictionContext, withRestrictionCaps } from '../schedule/restriction-plan';
import { runWindow } from '../schedule/run-window';
import { windowChoiceOf } from '../schedule/window-choice';
import { todayClosed, zoneWindowChoices } from '../schedule/zone-windows';
import { FixedSchedules } from '../schedule/fixed-schedule-plan';
import { withScheduleRuns } from '../schedule/fixed-schedule-snapshot';
import { localCalendar } from '../skip/local-days';
import { indexDaily, rainOverInterval, HOUR_S } from '../skip/rain-evidence';
import {
  evaluateSkipCheck,
  hasForecast,
  irrigationForecastSlice,
  sevenDayVerdicts,
  type SkipCheckInput,
} from '../skip/skip-check';
import { zoneLedger, type ZoneLedger } from './applied-water';
import { assembleOutput } from './assemble';
import type { EngineContext } from './context';
import { et0ForDay, type Et0Day } from './et0-days';
import type { RainEvidence } from './soil-model';
import type { EngineInput, EngineOutput } from './types';
import {
  forecastSkill,
  withLeadSkill,
  NO_FORECAST_LOW_DAYS,
  SKILL_LOOKBACK_DAYS,
  type Promise as RainPromise,
} from '../policy/forecast-policy';
import { planZone, type SkipLike, type ZonePlan } from './water-plan';
import { ownWindowSkipChecks, todayVerdict } from './own-window-skip';
import { resolveZones } from './zone-inputs';
import { PROBE_HOLD_CODE, probeHolds } from '../soil/probe-hold';

/**
 * The irrigation engine (spec 2.5, 2.6): a pure function of its input. No
 * I/O, no clock (`input.nowEpoch` is "now"), local days through
 * `localCalendar` (core/tz: the zone files and luxon's wall-time rules).
 *
 * Steps: resolve zones -> ET0 per day -> ledger (applied water) -> a
 * provisional plan to place today's run window -> the skip check and the
 * seven-day verdicts -> the real plan (controls, models, gates) -> the
 * snapshot (assemble.ts).
 */
export function computeIrrigation(input: EngineInput): EngineOutput {
  const ctx = buildContext(input);
  const zones = withRestrictionCaps(resolveZones(input.config), ctx.restriction_caps_today);
  const ledgers = new Map<string, ZoneLedger>(
    zones.map((z) => [
      z.slug,
      zoneLedger(z.slug, input.runs, ctx.cal, z.config.area_sqft ?? null, input.config.features.demo_mode),
    ]),
  );
  const ledgerOf = (slug: string): ZoneLedger => ledgers.get(slug) as ZoneLedger;

  // Pass 1: plan as if every day were a watering day, only to size today's window for the skip check.
  const allWater: SkipLike[] = ctx.dates.map(() => ({ verdict: 'water', reason_code: 'water', reason: '' }));
  const provisional = zones.map((z) => planZone(z, ctx, ledgerOf(z.slug), allWater, false, true));
  // The deployment's window holds only the zones without a window of their own (zone-windows.ts).
  const provisionalSeconds = provisional.reduce(
    (s, p) => s + (ctx.zone_windows.has(p.zone.slug) ? 0 : (p.days[0]?.planned_seconds ?? 0)),
    0,
  );
  const todayMin = ctx.daily.get(ctx.cal.today)?.temp_min_f ?? null;
  const win = runWindow({
    lat: ctx.lat,
    lon: ctx.lon,
    timezone: ctx.timezone,
    dateLocal: ctx.cal.today,
    totalRunSeconds: provisionalSeconds,
    minTempF: todayMin,
    minTempThresholdF: ctx.rules.min_temp_f,
    choice: ctx.run_window,
  });
  const skipRunWindow =
    win.state === 'ok' && win.window.finish > win.window.start
      ? { start_epoch: win.window.start, finish_epoch: win.window.finish, kind: win.window.kind }
      : null;

  const holds = probeHolds(zones, input.probes);
  const wateredDays = new Set<string>();
  for (const l of ledgers.values()) {
    for (const [date, secs] of l.seconds_by_date) {
      if (secs > 0 && date >= ctx.cal.addDays(ctx.cal.today, -6) && date <= ctx.cal.today)
        wateredDays.add(date);
    }
  }
  const skipInput: SkipCheckInput = {
    now_epoch: ctx.now,
    timezone: ctx.timezone,
    rules: ctx.rules,
    units: ctx.say.units,
    weather: input.weather,
    hourly: input.forecast.hourly,
    daily: input.forecast.daily,
    past_rain: ctx.past_dates.map((date) => {
      const r = ctx.past_rain.get(date);
      return { date_local: date, rain_in: r && r.rain_mm !== null ? r.rain_mm / 25.4 : null };
    }),
    pause_until_epoch: input.controls.pause_until_epoch,
    run_window: skipRunWindow,
    soil_temp_probe: null,
    zones: zones.filter((z) => z.complete).map((z) => z.slug),
    watered_days: [...wateredDays].sort(),
    soil_probe_configured: Object.fromEntries(zones.map((z) => [z.slug, z.soil_probe_configured])),
    soil_probe_holds: holds,
    // A demo replay or a cloud model reports live values that nobody measured: the reasons say so.
    unmeasured_fields: Object.entries(input.currentWeather ?? {})
      .filter(([, sample]) => !sample.measured)
      .map(([field]) => field),
    calendar: ctx.cal,
    recent_lows_f: recentLowsF(ctx),
  };
  const skip = evaluateSkipCheck(skipInput);
  const seven = sevenDayVerdicts(skipInput, skip);
  const slice = irrigationForecastSlice(skipInput);
  const verdicts: SkipLike[] = ctx.dates.map((_, d) => {
    const v = seven[d];
    if (d === 0) return todayVerdict(skip);
    return v
      ? {
          verdict: v.verdict,
          reason_code: v.reason_code,
          reason: v.reason,
          rain_evidence_incomplete: v.rain_evidence_incomplete,
        }
      : { verdict: 'unknown', reason_code: 'no_verdict', reason: 'no forecast verdict for the day' };
  });

  // Pass 2: the real plan (each zone's window-closed flag follows its own window, zone-windows.ts;
  // a bound probe reading wet holds the zone's next run, soil/probe-hold.ts).
  const closed = todayClosed(ctx, provisional, ledgers);
  const todayWindowClosed = closed.deployment;
  // A zone with its own run window is judged on its own hours (own-window-skip.ts).
  const ownSkips = ownWindowSkipChecks(ctx, provisional, ledgers, skipInput);
  const plans: ZonePlan[] = zones.map((z) => {
    const hold = holds[z.slug];
    const probeHold: SkipLike | null = hold
      ? { verdict: 'skip', reason_code: PROBE_HOLD_CODE, reason: hold }
      : null;
    const own = ownSkips.get(z.slug);
    const zoneVerdicts = own ? [todayVerdict(own), ...verdicts.slice(1)] : verdicts;
    return planZone(z, ctx, ledgerOf(z.slug), zoneVerdicts, closed.of(z.slug), false, probeHold);
  });
  const output = assembleOutput({
    ctx,
    plans,
    ledgers,
    skip,
    seven,
    slice,
    provisionalWindow: skipRunWindow,
    todayWindowClosed,
    closed,
  });
  return withScheduleRuns(output, ctx, plans, zones, { skipInput, closed, ledgers });
}

export function buildContext(input: EngineInput): EngineContext {
  const cal = localCalendar(input.timezone, input.nowEpoch);
  const cfg = input.config;
  const lat = cfg.deployment.location.lat;
  const lon = cfg.deployment.location.lon;
  const elevation = cfg.deployment.location.elevation_m ?? null;
  const method = cfg.engine.et0_method as Et0Method;
  const daily = indexDaily(input.forecast.daily);
  const pastDaily = indexDaily(input.forecast.past_daily);
  const dates = Array.from({ length: 7 }, (_, d) => cal.addDays(cal.today, d));

  // Past days: every date before today the record, the archive or the gauge covers, from the oldest
  // one on (a gap day inside the span stays as a day of unknown evidence).
  const weather_days = pastWeather(
    input.soil?.weather ?? [],
    pastDaily,
    input.gaugeDailyRain,
    input.forecast.source_label,
    cal.today,
  );
  const pastKnown = [...weather_days.keys()];
  const past_dates: string[] = [];
  if (pastKnown.length > 0) {
    for (let date = pastKnown[0] as string; date < cal.today; date = cal.addDays(date, 1))
      past_dates.push(date);
  }
  const et0_by_date = new Map<string, Et0Day>();
  const record_et0 = new Map<string, RecordEt0>();
  const site = { lat, elevation_m: elevation };
  for (const date of past_dates) {
    const e = bandedEt0OfRecord(
      date,
      (d) => weather_days.get(d),
      (d, n) => cal.addDays(d, n),
      method,
      site,
    );
    record_et0.set(date, e);
    et0_by_date.set(date, { date_local: date, et0_mm: e.et0_mm, method: e.method, reason: e.reason });
  }
  for (const date of dates) et0_by_date.set(date, et0ForDay(daily.get(date), date, method, site));
  const forecast_present = hasForecast(input.forecast, input.nowEpoch, cal.today);
  standInEt0(et0_by_date, record_et0, dates, cal.today, cal.addDays(cal.today, -7));

  const past_rain = new Map<string, RainEvidence>();
  for (let date = cal.addDays(cal.today, -7); date < cal.today; date = cal.addDays(date, 1)) {
    past_rain.set(date, observedRain(weather_days.get(date)));
  }
  for (const date of past_dates) past_rain.set(date, observedRain(weather_days.get(date)));

  const forecast_rain_mm = new Map<string, number | null>();
  for (const date of dates) {
    const v = daily.get(date)?.precip_sum_in;
    forecast_rain_mm.set(
      date,
      v === null || v === undefined || !Number.isFinite(v) || v < 0 ? null : v * 25.4 * input.bias.multiplier,
    );
  }
  const restrictions = restrictionContext(cfg, dates);
  const next24 = rainOverInterval(input.forecast.hourly, input.nowEpoch, input.nowEpoch + 24 * HOUR_S).value;

  return {
    input,
    cal,
    now: input.nowEpoch,
    timezone: input.timezone,
    lat,
    lon,
    elevation_m: elevation,
    et0_method: method,
    capture_efficiency: cfg.engine.capture_efficiency,
    soak_minutes: cfg.engine.soak_minutes,
    rules: effectiveSkipRules(cfg.engine.skip_rules, input.controls),
    say: wording(unitSystemOf(cfg.deployment.units)),
    dates,
    past_dates,
    daily,
    past_daily: pastDaily,
    weather_days,
    et0_by_date,
    record_et0,
    past_rain,
    forecast_rain_mm,
    next24h_rain_mm: next24 === null ? null : next24 * 25.4,
    bias: input.bias,
    forecast_present,
    skill: withLeadSkill(
      forecastSkill(recordedPromises(input, cal.today), (date) => past_rain.get(date)?.rain_mm ?? null),
      input.archiveSkill ?? null,
      input.bias.multiplier,
      dates.length,
    ),
    ...restrictions,
    run_window: windowChoiceOf(cfg),
    zone_windows: zoneWindowChoices(cfg),
    fixed: new FixedSchedules({
      schedules: cfg.schedules ?? [],
      dates,
      now: input.nowEpoch,
      timezone: input.timezone,
      lat,
      lon,
      allowedDates: restrictions.allowed_dates,
      restrictionWhy: restrictions.restriction_why,
    }),
  };
}

/**
 * The day-ahead rain promises the recorded daily decisions read (the latest
 * decision of each day, for the day after it), for targets before today.
 */
function recordedPromises(input: EngineInput, today: string): RainPromise[] {
  const latest = new Map<string, NonNullable<EngineInput['recentDecisions']>[number]>();
  for (const d of input.recentDecisions ?? []) {
    const seen = latest.get(d.date_local);
    if (!seen || d.epoch >= seen.epoch) latest.set(d.date_local, d);
  }
  const cal = localCalendar(input.timezone, input.nowEpoch);
  const from = cal.addDays(today, -SKILL_LOOKBACK_DAYS);
  const out: RainPromise[] = [];
  for (const [date, d] of latest) {
    const target = cal.addDays(date, 1);
    const line = d.zones.find((z) => z.forecast_tomorrow_rain_mm !== undefined);
    if (!line || target >= today || target < from) continue;
    out.push({
      date_local: target,
      precip_mm: line.forecast_tomorrow_rain_mm ?? null,
      probability_pct: line.forecast_tomorrow_rain_pct ?? null,
    });
  }
  return out;
}

/** Lows of the last recorded days, °F, newest first (freeze safety without a forecast). */
function recentLowsF(ctx: EngineContext): (number | null)[] {
  return Array.from({ length: NO_FORECAST_LOW_DAYS }, (_, i) => {
    const tmin = ctx.weather_days.get(ctx.cal.addDays(ctx.cal.today, -(i + 1)))?.tmin_c ?? null;
    return tmin === null ? null : tmin * 1.8 + 32;
  });
}

/**
 * A plan day the forecast gives no ET0 for (no forecast at all, or a gap):
 * its ET0 stands in as the highest ET0 the record computed over its last
 * NO_FORECAST_LOW_DAYS days of the past week (local evidence, named as
 * such in the trace); with none of them known the days stay unknown.
 */
function standInEt0(
  et0ByDate: Map<string, Et0Day>,
  recordEt0: Map<string, RecordEt0>,
  dates: readonly string[],
  today: string,
  weekAgo: string,
): void {
  const recent = [...recordEt0.entries()]
    .filter(([date, e]) => date < today && date >= weekAgo && e.et0_mm !== null)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .slice(-NO_FORECAST_LOW_DAYS);
  if (recent.length === 0) return;
  const mm = Math.max(...recent.map(([, e]) => e.et0_mm as number));
  const from = recent.map(([date]) => date).join(', ');
  for (const date of dates) {
    if (et0ByDate.get(date)?.et0_mm != null) continue;
    et0ByDate.set(date, {
      date_local: date,
      et0_mm: mm,
      method: 'recent_record',
      reason: `no forecast ET0 for the day: the highest recorded ET0 of ${from}`,
    });
  }
}

/** A past day's rain from the record: the gauge when it measured, else the model archive, else unknown. */
function observedRain(day: DailyWeather | undefined): RainEvidence {
  const source = rainSourceOf(day);
  return { rain_mm: source === 'none' ? null : (day?.rain_mm ?? null), source };
}
