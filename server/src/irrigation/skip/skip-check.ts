import type { DailyEntry, HourlyEntry } from '../../forecast/types';
import { wording, type UnitSystem } from '../../core/units/quantities';
import type { WeatherSnapshot } from '../../weather/snapshot';
import { finite, nonNegative, percent, round, valueOf, type Evidence } from './evidence';
import { localCalendar, type LocalCalendar } from './local-days';
import {
  consecutiveDates,
  daysSinceSignificantRain,
  HOUR_S,
  indexDaily,
  observedRainToday,
  pastRainNewestFirst,
  rainNext4h,
  rainOnDay,
  rainOverDays,
  rainOverInterval,
  rainProbOnDay,
  weightedRain,
  type PastRain,
  type RainTodaySource,
} from './rain-evidence';
import {
  alreadyWetRule,
  DEFAULT_SKIP_RULES,
  freezeRule,
  heatAdvisoryRule,
  pausedRule,
  rain3DayRule,
  rainNext4hRule,
  rainNowRule,
  rainTodayForecastRule,
  soilFrostRule,
  tomorrowRainRule,
  windForecastRule,
  windNowRule,
  type FreezeScope,
  type RuleId,
  type RuleResult,
  type SkipRules,
  type SoilTempProbe,
  type WindScope,
} from './rules';
import {
  currentReading,
  heatIndexF,
  maxHeatIndexOverInterval,
  maxTempOverDays,
  maxWindOverDays,
  maxWindOverInterval,
  minTempOverDays,
  minTempOverInterval,
  pickHumidity,
  pickRainRate,
  pickTemp,
  pickWind,
  withBounds,
  type ReadingSource,
} from './weather-evidence';
import { FORWARD_RULES, forwardRuleWithoutForecast, freezeWithoutForecast } from '../policy/forecast-policy';

/**
 * Today's skip check (spec 2.5 `skip_check`), the irrigation `forecast` slice
 * and the seven-day verdict strip, from the same evidence. Pure: inputs in,
 * verdict out; `now_epoch` is an input.
 *
 * Verdict precedence:
 * 1. `skip` when any rule proves a skip; the first in rule order decides
 *    (pause, raining now, freeze, soil frost, wind now, wind forecast, already
 *    wet, rain today, rain next 4 h, rain tomorrow, 3-day rain). A proven skip
 *    beats an unknown: either way no water goes down today.
 * 2. `unknown` when no rule skips but a rule that could skip cannot be
 *    evaluated, under the `hold` policy (the default). Wrong water is worse than
 *    no water: water applied ahead of rain that a gap hid, into a freeze, or in
 *    a gale cannot be taken back, while a held run is made up by the next one.
 *    The first unknown in rule order gives the reason.
 * 3. `water` otherwise: reason_code `heat_advisory` with run_multiplier 1.15
 *    when the heat advisory is active, else `water`. Under the opt-in `water`
 *    policy, unknown rules do not hold and the code is `water_unverified`.
 *
 * The heat advisory cannot skip, so its unknown never holds watering.
 */

export type SkipVerdict = 'skip' | 'unknown' | 'water';

/** `hold`: do not water while a rule that could skip is unknown. `water`: water anyway (opt-in). */
export type UnknownPolicy = 'hold' | 'water';

export const DEFAULT_UNKNOWN_POLICY: UnknownPolicy = 'hold';

/** Below this, "significant rain" falls back to the already-wet default (a 0 threshold would call every day wet). */
export const SIGNIFICANT_RAIN_FALLBACK_IN = 0.05;

/** Past days the days-since-rain count looks back. */
export const DRY_DAYS_LOOKBACK = 30;

export type RunWindowKind = 'pre_dawn' | 'post_sunrise';

/** The planned run window (spec 2.5 `today_window`): `[start_epoch, finish_epoch)`. */
export interface RunWindow {
  start_epoch: number;
  finish_epoch: number;
  kind: RunWindowKind;
}

export interface ScriptHold {
  id: string;
  name: string;
  reason: string;
}

export interface SkipCheckInput {
  now_epoch: number;
  /** The deployment's IANA zone: local days, "today", "tomorrow". */
  timezone: string;
  /** `engine.skip_rules`; spec 2.6 defaults when omitted. */
  rules?: SkipRules;
  /** `deployment.units`: the reasons' numbers (imperial when omitted); machine fields keep theirs. */
  units?: UnitSystem;
  unknown_policy?: UnknownPolicy;
  /** The merged live weather snapshot (spec 2.2), or null when there is none. */
  weather: WeatherSnapshot | null;
  /** The forecast the engine plans with; entries for past hours of today count as the model's estimate of them. */
  hourly: readonly HourlyEntry[];
  /** Forecast days by `date_local` (today onward; any order, extra days ignored). */
  daily: readonly DailyEntry[];
  /** Rain of the days before today (gauge totals, else the model archive); an absent day is unknown. */
  past_rain?: readonly PastRain[];
  /** 0 = no pause. */
  pause_until_epoch?: number;
  /** Today's planned run window; null when none is known (no location, no sunrise). */
  run_window?: RunWindow | null;
  /** The yard's soil temperature probe; null or omitted when none is configured. */
  soil_temp_probe?: SoilTempProbe | null;
  /** Slugs of the zones the automatic planner sizes (for `planning_forecast_unavailable`). */
  zones?: readonly string[];
  /** Local dates (YYYY-MM-DD) of this week's watered days; passed through. */
  watered_days?: readonly string[];
  /** Whether each zone has a bound soil moisture probe; passed through. */
  soil_probe_configured?: Readonly<Record<string, boolean>>;
  /** Probe integrity holds by zone; passed through. */
  soil_probe_holds?: Readonly<Record<string, string>>;
  /** Weather snapshot fields whose live value is modelled, not measured (`current_weather[f].measured` false). */
  unmeasured_fields?: readonly string[];
  /**
   * The calendar of `timezone` at `now_epoch`, when the caller has one (the
   * engine's): its memoised local days are shared instead of computed again.
   */
  calendar?: LocalCalendar;
  /** Lows of the last recorded days, °F, newest first: freeze safety when no forecast reached the service. */
  recent_lows_f?: readonly (number | null)[];
}

export interface Decision {
  verdict: SkipVerdict;
  reason_code: string;
  reason: string;
  /** 1, or 1.15 when the heat advisory adds water. */
  run_multiplier: number;
  /** The rule that decided, or null for a plain `water`. */
  deciding_rule: RuleId | null;
}

/** Spec 2.5 `skip_check`: the named fields plus the rules, the verdict and its reason. */
export interface SkipCheck {
  is_paused: boolean;
  /** Tomorrow's forecast rain total (unweighted). */
  forecast_in: number | null;
  /** Today's whole-day forecast rain total. */
  rain_today_forecast_in: number | null;
  rain_3day_weighted_in: number | null;
  rain_7day_weighted_in: number | null;
  rain_next_4h_in: number | null;
  rain_intensity_now_in_hr: number | null;
  rain_tomorrow_prob_pct: number | null;
  /** Zones lacking complete next-24-hour rain evidence. */
  planning_forecast_unavailable: string[];
  wind_window_max_mph: number | null;
  run_window: RunWindowKind | null;
  window_min_temp_f: number | null;
  watered_days: string[];
  soil_probe_configured: Record<string, boolean>;
  soil_probe_holds: Record<string, string>;
  /** Always null: script rules are not evaluated here. */
  script_hold: ScriptHold | null;
  // Extra fields (spec 2.5: responses may carry more).
  /** Rain fallen today so far, and whether a gauge measured it or the model estimated it. */
  rain_today_in: number | null;
  rain_today_source: RainTodaySource | null;
  rain_intensity_now_source: ReadingSource | null;
  temp_now_f: number | null;
  wind_now_mph: number | null;
  humidity_now_pct: number | null;
  days_since_significant_rain: number | null;
  unknown_policy: UnknownPolicy;
  rules: RuleResult[];
  verdict: SkipVerdict;
  reason_code: string;
  reason: string;
  run_multiplier: number;
}

/** Spec 2.5 irrigation `forecast`: the forecast slice the engine used (every field nullable). */
export interface IrrigationForecast {
  wind_max_today_mph: number | null;
  temp_min_24h_f: number | null;
  temp_max_3day_f: number | null;
  humidity_now_pct: number | null;
  heat_index_now_f: number | null;
  heat_index_max_3day_f: number | null;
  rain_today_om_in: number | null;
  rain_tomorrow_in: number | null;
  rain_3day_in: number | null;
  rain_3day_weighted_in: number | null;
  rain_7day_weighted_in: number | null;
  rain_next_4h_in: number | null;
  rain_intensity_in_hr: number | null;
  eto_today_mm: number | null;
  temp_max_today_f: number | null;
  temp_min_today_f: number | null;
  humidity_mean_today_pct: number | null;
  rain_tomorrow_prob_pct: number | null;
}

/** Spec 2.5 `seven_day_verdicts[]` entry. */
export interface SevenDayVerdict {
  date_local: string;
  day_offset: number;
  /** Local midnight starting the day. */
  time_epoch: number;
  temp_max_f: number | null;
  temp_min_f: number | null;
  precip_in: number | null;
  precip_probability_max: number | null;
  /** The day's own rain, the next day's rain or the weighted 3 days after it is unknown. */
  rain_evidence_incomplete: boolean;
  verdict: SkipVerdict;
  reason_code: string;
  reason: string;
  run_multiplier: number;
}

/** Today's skip check. */
export function evaluateSkipCheck(input: SkipCheckInput): SkipCheck {
  const d = derive(input);
  const rules = d.rules;
  const say = wording(input.units);
  const results: RuleResult[] = [
    pausedRule({ pause_until_epoch: d.pauseUntil, at_epoch: d.now, timezone: input.timezone }),
    rainNowRule(
      {
        intensity_in_hr: d.rainRate.evidence,
        source: d.rainRate.source,
        measured: d.measured('rain_intensity_in_hr'),
      },
      rules,
      say,
    ),
    freezeRule({ min_temp_f: d.freeze.evidence, scope: d.freeze.scope }, rules, say),
    soilFrostRule(input.soil_temp_probe ?? null, rules, say),
    windNowRule(
      { wind_mph: d.windNow.evidence, source: d.windNow.source, measured: d.measured('wind_avg_mph') },
      rules,
      say,
    ),
    windForecastRule({ max_wind_mph: d.windForecast.evidence, scope: d.windForecast.scope }, rules, say),
    alreadyWetRule(
      {
        rain_today_in: d.rainSoFar.evidence,
        source: d.rainSoFar.source,
        measured: d.measured('rain_in_today'),
      },
      rules,
      say,
    ),
    rainTodayForecastRule({ rain_today_forecast_in: d.rainTodayForecast }, rules, say),
    rainNext4hRule({ rain_next_4h_in: d.rainNext4h }, rules, say),
    tomorrowRainRule(
      { rain_tomorrow_in: d.rainTomorrow, rain_tomorrow_prob_pct: d.rainTomorrowProb },
      rules,
      say,
    ),
    rain3DayRule({ rain_3day_weighted_in: d.rain3dayWeighted }, rules, say),
    heatAdvisoryRule(
      {
        temp_max_3day_f: d.tempMax3day,
        humidity_pct: d.humidityNow.evidence,
        days_since_significant_rain: d.daysSinceRain,
        rain_3day_weighted_in: d.rain3dayWeighted,
      },
      rules,
      say,
    ),
  ].map((r) => (d.forecastPresent ? r : withoutForecast(r, input, d.tempNow.evidence.value)));
  const decision = decideVerdict(results, d.policy);
  return {
    is_paused: d.pauseUntil > d.now,
    forecast_in: d.rainTomorrow,
    rain_today_forecast_in: d.rainTodayForecast,
    rain_3day_weighted_in: d.rain3dayWeighted.value,
    rain_7day_weighted_in: d.rain7dayWeighted.value,
    rain_next_4h_in: d.rainNext4h.value,
    rain_intensity_now_in_hr: d.rainRate.evidence.value,
    rain_tomorrow_prob_pct: d.rainTomorrowProb,
    planning_forecast_unavailable: d.next24hRain.value === null ? [...(input.zones ?? [])] : [],
    wind_window_max_mph: d.window ? d.windForecast.evidence.value : null,
    run_window: d.window?.kind ?? null,
    window_min_temp_f: d.window ? d.freeze.evidence.value : null,
    watered_days: [...(input.watered_days ?? [])],
    soil_probe_configured: { ...(input.soil_probe_configured ?? {}) },
    soil_probe_holds: { ...(input.soil_probe_holds ?? {}) },
    script_hold: null,
    rain_today_in: d.rainSoFar.evidence.value,
    rain_today_source: d.rainSoFar.source,
    rain_intensity_now_source: d.rainRate.source,
    temp_now_f: d.tempNow.evidence.value,
    wind_now_mph: d.windNow.evidence.value,
    humidity_now_pct: d.humidityNow.evidence.value,
    days_since_significant_rain: d.daysSinceRain.value,
    unknown_policy: d.policy,
    rules: results,
    verdict: decision.verdict,
    reason_code: decision.reason_code,
    reason: decision.reason,
    run_multiplier: decision.run_multiplier,
  };
}

/** The overall verdict from rule results in rule order (see the precedence above). */
export function decideVerdict(
  results: readonly RuleResult[],
  policy: UnknownPolicy = DEFAULT_UNKNOWN_POLICY,
): Decision {
  const skip = results.find((r) => r.verdict === 'skip');
  if (skip) {
    return {
      verdict: 'skip',
      reason_code: skip.reason_code,
      reason: skip.reason,
      run_multiplier: 1,
      deciding_rule: skip.rule,
    };
  }
  const unknown = results.filter((r) => r.verdict === 'unknown' && r.can_skip);
  const extension = results.find((r) => r.run_multiplier !== 1 && r.verdict === 'pass');
  const multiplier = extension?.run_multiplier ?? 1;
  const [first] = unknown;
  if (first && policy === 'hold') {
    const others = unknown.slice(1).map((r) => r.rule);
    const more = others.length > 0 ? ` Also unknown: ${others.join(', ')}.` : '';
    return {
      verdict: 'unknown',
      reason_code: first.reason_code,
      reason: `Watering held: the evidence cannot rule out a skip. ${first.reason}${more}`,
      run_multiplier: 1,
      deciding_rule: first.rule,
    };
  }
  if (first) {
    return {
      verdict: 'water',
      reason_code: 'water_unverified',
      reason: `Watering without proof (policy: water on unknown): ${unknown.map((r) => r.rule).join(', ')} could not be evaluated.${extension ? ` ${extension.reason}` : ''}`,
      run_multiplier: multiplier,
      deciding_rule: first.rule,
    };
  }
  if (extension) {
    return {
      verdict: 'water',
      reason_code: extension.reason_code,
      reason: extension.reason,
      run_multiplier: multiplier,
      deciding_rule: extension.rule,
    };
  }
  return {
    verdict: 'water',
    reason_code: 'water',
    reason: 'No skip rule applies: water as planned.',
    run_multiplier: 1,
    deciding_rule: null,
  };
}

/** The irrigation snapshot's `forecast` slice, from the same evidence as the skip check. */
export function irrigationForecastSlice(input: SkipCheckInput): IrrigationForecast {
  const d = derive(input);
  const today = indexDaily(input.daily).get(d.cal.today);
  const t = d.tempNow.evidence.value;
  const rh = d.humidityNow.evidence.value;
  const hi3 = d.heatIndexMax3day.value;
  return {
    wind_max_today_mph: d.windToday.value,
    temp_min_24h_f: d.tempMin24h.value,
    temp_max_3day_f: d.tempMax3day.value,
    humidity_now_pct: rh,
    heat_index_now_f: t === null || rh === null ? null : round(heatIndexF(t, rh), 1),
    heat_index_max_3day_f: hi3 === null ? null : round(hi3, 1),
    rain_today_om_in: d.rainTodayForecast,
    rain_tomorrow_in: d.rainTomorrow,
    rain_3day_in: d.rain3day.value,
    rain_3day_weighted_in: d.rain3dayWeighted.value,
    rain_7day_weighted_in: d.rain7dayWeighted.value,
    rain_next_4h_in: d.rainNext4h.value,
    rain_intensity_in_hr: d.rainRate.evidence.value,
    eto_today_mm: today ? et0Mm(today) : null,
    temp_max_today_f: valueOf(maxTempOverDays(input.daily, [d.cal.today])),
    temp_min_today_f: valueOf(minTempOverDays(input.daily, [d.cal.today])),
    humidity_mean_today_pct: today ? percent(today.humidity_mean_pct ?? today.humidity_pct) : null,
    rain_tomorrow_prob_pct: d.rainTomorrowProb,
  };
}

/**
 * Seven entries, today and the 6 days after it, by local date (a day the
 * forecast lacks is an entry of nulls, never skipped over). Today's entry
 * carries the live skip check's verdict (pass `today` to reuse one already
 * computed). Later days are projections on the forecast alone: pause, freeze
 * (the day's low), forecast wind (the day's peak), the day's rain, the next
 * day's weighted rain, the 3 days after it and the heat advisory; rules about
 * "now" (rain rate, current wind, rain fallen, next 4 h) and the soil probe
 * have no future evidence and are not projected.
 */
export function sevenDayVerdicts(input: SkipCheckInput, today?: SkipCheck): SevenDayVerdict[] {
  const d = derive(input);
  const live = today ?? evaluateSkipCheck(input);
  const byDate = indexDaily(input.daily);
  const rules = d.rules;
  const say = wording(input.units);
  const wetIn = significantRainIn(rules);
  const past = pastRainNewestFirst(input.past_rain ?? [], d.cal, d.cal.today, DRY_DAYS_LOOKBACK);

  return Array.from({ length: 7 }, (_, offset) => {
    const date = d.cal.addDays(d.cal.today, offset);
    const entry = byDate.get(date);
    const next = d.cal.addDays(date, 1);
    const after3 = consecutiveDates(d.cal, next, 3);
    const rain3dayWeighted = weightedRain(input.daily, after3);
    const precip = rainOnDay(input.daily, date);
    const incomplete =
      precip === null || rainOnDay(input.daily, next) === null || rain3dayWeighted.value === null;

    let decision: Pick<Decision, 'verdict' | 'reason_code' | 'reason' | 'run_multiplier'> = live;
    if (offset > 0) {
      // Newest first: the day itself, the forecast days back to today, then the past.
      const forecastDays = Array.from({ length: offset + 1 }, (_, i) =>
        rainOnDay(input.daily, d.cal.addDays(date, -i)),
      );
      const humidity = entry ? percent(entry.humidity_mean_pct ?? entry.humidity_pct) : null;
      const results = [
        pausedRule({
          pause_until_epoch: d.pauseUntil,
          at_epoch: d.cal.dayStart(date),
          timezone: input.timezone,
        }),
        freezeRule({ min_temp_f: minTempOverDays(input.daily, [date]), scope: 'day' }, rules, say),
        windForecastRule({ max_wind_mph: dayWind(input, d.cal, date), scope: 'day' }, rules, say),
        rainTodayForecastRule({ rain_today_forecast_in: precip }, rules, say),
        tomorrowRainRule(
          {
            rain_tomorrow_in: rainOnDay(input.daily, next),
            rain_tomorrow_prob_pct: rainProbOnDay(input.daily, next),
          },
          rules,
          say,
        ),
        rain3DayRule({ rain_3day_weighted_in: rain3dayWeighted }, rules, say),
        heatAdvisoryRule(
          {
            temp_max_3day_f: maxTempOverDays(input.daily, consecutiveDates(d.cal, date, 3)),
            humidity_pct: humidity,
            days_since_significant_rain: daysSinceSignificantRain([...forecastDays, ...past], wetIn),
            rain_3day_weighted_in: rain3dayWeighted,
          },
          rules,
          say,
        ),
      ];
      decision = decideVerdict(
        d.forecastPresent ? results : results.map((r) => withoutForecast(r, input, null)),
        d.policy,
      );
    }
    return {
      date_local: date,
      day_offset: offset,
      time_epoch: d.cal.dayStart(date),
      temp_max_f: entry ? valueOf(maxTempOverDays(input.daily, [date])) : null,
      temp_min_f: entry ? valueOf(minTempOverDays(input.daily, [date])) : null,
      precip_in: precip,
      precip_probability_max: rainProbOnDay(input.daily, date),
      rain_evidence_incomplete: incomplete,
      verdict: decision.verdict,
      reason_code: decision.reason_code,
      reason: decision.reason,
      run_multiplier: decision.run_multiplier,
    };
  });
}

// ---- evidence shared by the three outputs ----

interface Derived {
  cal: LocalCalendar;
  now: number;
  rules: SkipRules;
  policy: UnknownPolicy;
  pauseUntil: number;
  window: RunWindow | null;
  rainRate: { evidence: Evidence; source: ReadingSource | null };
  tempNow: { evidence: Evidence; source: ReadingSource | null };
  windNow: { evidence: Evidence; source: ReadingSource | null };
  humidityNow: { evidence: Evidence; source: ReadingSource | null };
  rainSoFar: { evidence: Evidence; source: RainTodaySource | null };
  rainTodayForecast: number | null;
  rainTomorrow: number | null;
  rainTomorrowProb: number | null;
  rainNext4h: Evidence;
  next24hRain: Evidence;
  rain3day: Evidence;
  rain3dayWeighted: Evidence;
  rain7dayWeighted: Evidence;
  freeze: { evidence: Evidence; scope: FreezeScope };
  windForecast: { evidence: Evidence; scope: WindScope };
  windToday: Evidence;
  tempMin24h: Evidence;
  tempMax3day: Evidence;
  heatIndexMax3day: Evidence;
  daysSinceRain: Evidence;
  /** Whether the live value of a weather snapshot field is a measurement. */
  measured: (field: string) => boolean;
  /** Whether any forecast reached the service (else the forward rules do not apply). */
  forecastPresent: boolean;
}

/** The skip check, the seven-day strip and the forecast slice of one input share one derivation. */
const derivations = new WeakMap<SkipCheckInput, Derived>();

function derive(input: SkipCheckInput): Derived {
  let derived = derivations.get(input);
  if (!derived) derivations.set(input, (derived = deriveEvidence(input)));
  return derived;
}

function deriveEvidence(input: SkipCheckInput): Derived {
  const now = input.now_epoch;
  const cal = calendarOf(input);
  const rules = input.rules ?? DEFAULT_SKIP_RULES;
  const window = validWindow(input.run_window ?? null);
  const hourly = input.hourly;
  const daily = input.daily;
  const tomorrow = cal.addDays(cal.today, 1);
  const weather = input.weather;

  const rainSoFar = observedRainToday(weather, hourly, cal, now);
  const windToday = dayWind(input, cal, cal.today);
  // Only the part of the window still ahead matters to a decision made now: a night of water
  // that began before midnight starts the day inside its window, with yesterday's hours behind it.
  const ahead = window ? windowAhead(window, now) : null;
  const freeze = ahead
    ? {
        evidence: windowMinTemp(hourly, daily, cal, ahead.start_epoch, ahead.finish_epoch),
        scope: 'run_window' as const,
      }
    : { evidence: windowMinTemp(hourly, daily, cal, now, now + 24 * HOUR_S), scope: 'next_24h' as const };
  const windForecast = ahead
    ? {
        evidence: withBounds(
          maxWindOverInterval(hourly, ahead.start_epoch, ahead.finish_epoch),
          null,
          maxWindOverDays(daily, datesSpanned(cal, ahead.start_epoch, ahead.finish_epoch)).value,
        ),
        scope: 'run_window' as const,
      }
    : { evidence: windToday, scope: 'day' as const };
  const past = pastRainNewestFirst(input.past_rain ?? [], cal, cal.today, DRY_DAYS_LOOKBACK);

  const unmeasured = new Set(input.unmeasured_fields ?? []);
  return {
    cal,
    now,
    rules,
    measured: (field) => !unmeasured.has(field),
    forecastPresent: hasForecast(input, now, cal.today),
    policy: input.unknown_policy ?? DEFAULT_UNKNOWN_POLICY,
    pauseUntil: finite(input.pause_until_epoch) ?? 0,
    window,
    rainRate: currentReading(nonNegative(weather?.rain_intensity_in_hr), hourly, now, pickRainRate),
    tempNow: currentReading(weather?.air_temp_f, hourly, now, pickTemp),
    windNow: currentReading(nonNegative(weather?.wind_avg_mph), hourly, now, pickWind),
    humidityNow: currentReading(percent(weather?.rh_pct), hourly, now, pickHumidity),
    rainSoFar,
    rainTodayForecast: rainOnDay(daily, cal.today),
    rainTomorrow: rainOnDay(daily, tomorrow),
    rainTomorrowProb: rainProbOnDay(daily, tomorrow),
    rainNext4h: rainNext4h(hourly, now),
    next24hRain: rainOverInterval(hourly, now, now + 24 * HOUR_S),
    rain3day: rainOverDays(daily, consecutiveDates(cal, tomorrow, 3)),
    rain3dayWeighted: weightedRain(daily, consecutiveDates(cal, tomorrow, 3)),
    rain7dayWeighted: weightedRain(daily, consecutiveDates(cal, tomorrow, 7)),
    freeze,
    windForecast,
    windToday,
    tempMin24h: minTempOverInterval(hourly, now, now + 24 * HOUR_S),
    tempMax3day: maxTempOverDays(daily, consecutiveDates(cal, cal.today, 3)),
    heatIndexMax3day: maxHeatIndexOverInterval(
      hourly,
      cal.dayStart(cal.today),
      cal.dayEnd(cal.addDays(cal.today, 2)),
    ),
    daysSinceRain: daysSinceSignificantRain([rainSoFar.evidence, ...past], significantRainIn(rules)),
  };
}

/** A forecast is present when it has a day from today on or an hour from the current hour on. */
export function hasForecast(
  input: Pick<SkipCheckInput, 'hourly' | 'daily'>,
  nowEpoch: number,
  today: string,
): boolean {
  const hourStart = Math.floor(nowEpoch / HOUR_S) * HOUR_S;
  return (
    input.daily.some((day) => day.date_local >= today) || input.hourly.some((h) => h.time_epoch >= hourStart)
  );
}

/**
 * No forecast (forecast-policy.ts): the forward rules do not apply, and
 * freeze is judged on the live temperature (null for a projected day) and the
 * record's recent lows.
 */
function withoutForecast(r: RuleResult, input: SkipCheckInput, liveTempF: number | null): RuleResult {
  if (FORWARD_RULES.has(r.rule)) return forwardRuleWithoutForecast(r.rule);
  if (r.rule !== 'freeze') return r;
  return freezeWithoutForecast(
    { live_temp_f: liveTempF, recent_lows_f: input.recent_lows_f ?? [] },
    input.rules ?? DEFAULT_SKIP_RULES,
    wording(input.units),
  );
}

function calendarOf(input: SkipCheckInput): LocalCalendar {
  const given = input.calendar;
  const fits = given && given.timezone === input.timezone && given.dateOf(input.now_epoch) === given.today;
  return fits ? given : localCalendar(input.timezone, input.now_epoch);
}

/** Minimum temperature over `[from, to)` from the hourly forecast, bounded below by the days' own lows. */
function windowMinTemp(
  hourly: readonly HourlyEntry[],
  daily: readonly DailyEntry[],
  cal: LocalCalendar,
  fromEpoch: number,
  toEpoch: number,
): Evidence {
  const dayLow = minTempOverDays(daily, datesSpanned(cal, fromEpoch, toEpoch)).value;
  return withBounds(minTempOverInterval(hourly, fromEpoch, toEpoch), dayLow, null);
}

/** A day's peak wind: the daily `wind_max_mph`, else the day's hours when every one reports. */
function dayWind(input: SkipCheckInput, cal: LocalCalendar, date: string): Evidence {
  const daily = maxWindOverDays(input.daily, [date]);
  if (daily.value !== null) return daily;
  return maxWindOverInterval(input.hourly, cal.dayStart(date), cal.dayEnd(date));
}

/** Local dates holding any instant of `[from, to)`. */
function datesSpanned(cal: LocalCalendar, fromEpoch: number, toEpoch: number): string[] {
  const first = cal.dateOf(fromEpoch);
  const last = cal.dateOf(Math.max(fromEpoch, toEpoch - 1));
  const dates = [first];
  while (dates[dates.length - 1] !== last && dates.length < 400)
    dates.push(cal.addDays(dates[dates.length - 1] ?? first, 1));
  return dates;
}

/** The window from the start of the current hour on; the whole window once it is over. */
function windowAhead(window: RunWindow, now: number): RunWindow {
  const hourStart = Math.floor(now / HOUR_S) * HOUR_S;
  const start = Math.max(window.start_epoch, hourStart);
  return start < window.finish_epoch ? { ...window, start_epoch: start } : window;
}

function validWindow(window: RunWindow | null): RunWindow | null {
  if (window === null) return null;
  const { start_epoch: start, finish_epoch: finish } = window;
  if (!Number.isFinite(start) || !Number.isFinite(finish) || finish <= start) {
    throw new RangeError(`run window must be finite with finish after start, got ${start}..${finish}`);
  }
  return window;
}

function significantRainIn(rules: SkipRules): number {
  return rules.already_wet_in > 0 ? rules.already_wet_in : SIGNIFICANT_RAIN_FALLBACK_IN;
}

/** Today's reference ET0 in mm: a positive `et0_in`, or a zero the provider reported (spec 2.4). */
function et0Mm(day: DailyEntry): number | null {
  const et0 = nonNegative(day.et0_in);
  if (et0 === null || (et0 === 0 && !day.et0_reported)) return null;
  return round(et0 * 25.4, 2);
}
