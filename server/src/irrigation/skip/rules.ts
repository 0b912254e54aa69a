import type { RaincheckConfig } from '../../config/schema';
import { wording, type Wording } from '../../core/units/quantities';
import {
  allOf,
  describeEvidence,
  round,
  compareEvidence,
  toEvidence,
  type Evidence,
  type EvidenceLike,
  type Tri,
} from './evidence';
import { localCalendar } from './local-days';
import { weightedAmount, type RainTodaySource } from './rain-evidence';
import type { ReadingSource } from './weather-evidence';

/**
 * The skip rules (spec 2.6 `engine.skip_rules`), each a pure function: evidence
 * and thresholds in, one verdict out.
 *
 * - `skip`: the evidence proves the rule's condition.
 * - `pass`: the evidence proves it does not hold (or the rule does not apply).
 * - `unknown`: the evidence cannot decide; reason_code `<rule>_unknown`. A rule
 *   never passes on a guess, and a missing value is never read as 0.
 *
 * Reason codes: `<rule>` when it skips, `<rule>_pass` when it passes,
 * `<rule>_unknown` when it cannot decide; plus `soil_frost_no_probe` (no soil
 * temperature probe is configured, so the rule does not apply) and
 * `heat_advisory` (the advisory is active: a pass that adds water).
 *
 * Comparisons (the boundary value itself): already wet, raining now, rain next
 * 4 h, rain today, rain tomorrow and 3-day rain skip at or above their
 * threshold; wind skips strictly above; freeze and soil frost skip at or below.
 */

export type SkipRules = RaincheckConfig['engine']['skip_rules'];

/** Spec 2.6 defaults of `engine.skip_rules`. */
export const DEFAULT_SKIP_RULES: Readonly<SkipRules> = Object.freeze({
  already_wet_in: 0.05,
  rain_now_in_hr: 0.01,
  rain_next_4h_skip_in: 0.1,
  rain_3day_factor: 1.5,
  heat_advisory_temp_f: 95.0,
  heat_advisory_humidity_pct: 60.0,
  heat_advisory_dry_days: 2,
  wind_forecast_slack_mph: 5.0,
  max_wind_mph: 10.0,
  min_temp_f: 38.0,
  rain_skip_in: 0.25,
  frost_skip_soil_f: 35.0,
});

/** The heat advisory runs the planned time x this (planned + 15 %). */
export const HEAT_ADVISORY_RUN_MULTIPLIER = 1.15;

/** The heat advisory needs the 3-day weighted rain below this fraction of `rain_skip_in`. */
export const HEAT_ADVISORY_RAIN_FRACTION = 0.5;

export const RULE_IDS = [
  'paused',
  'rain_now',
  'freeze',
  'soil_frost',
  'wind_now',
  'wind_forecast',
  'already_wet',
  'rain_today_forecast',
  'rain_next_4h',
  'tomorrow_rain',
  'rain_3day',
  'heat_advisory',
] as const;

export type RuleId = (typeof RULE_IDS)[number];

export type RuleVerdict = 'skip' | 'pass' | 'unknown';

export type RuleInputValue = number | string | boolean | null;

export interface RuleResult {
  rule: RuleId;
  reason_code: string;
  /** Plain English, with the numbers the verdict rests on. */
  reason: string;
  verdict: RuleVerdict;
  /** Whether the rule can hold watering. False only for the heat advisory, which can only add water. */
  can_skip: boolean;
  /** 1, or HEAT_ADVISORY_RUN_MULTIPLIER when the heat advisory is active. */
  run_multiplier: number;
  /** The evidence and thresholds the verdict used. */
  inputs: Record<string, RuleInputValue>;
}

// ---- Pause ----

export interface PausedInput {
  /** 0 = no pause. */
  pause_until_epoch: number;
  /** The instant judged (now, or the start of a projected day). */
  at_epoch: number;
  timezone: string;
}

/** Skips while `pause_until_epoch` is after the instant judged. */
export function pausedRule(input: PausedInput): RuleResult {
  const until = input.pause_until_epoch;
  const inputs = { pause_until_epoch: until, at_epoch: input.at_epoch };
  if (Number.isFinite(until) && until > input.at_epoch) {
    const local = localCalendar(input.timezone, input.at_epoch).formatLocal(until);
    return result('paused', 'skip', 'paused', `Watering is paused until ${local}.`, inputs);
  }
  return result('paused', 'pass', 'paused_pass', 'Watering is not paused.', inputs);
}

// ---- Raining now ----

export interface RainNowInput {
  /** Current rain rate, in/hr. */
  intensity_in_hr: EvidenceLike;
  /** `station` = live gauge; `forecast` = the forecast's amount for the current hour standing in. */
  source: ReadingSource | null;
  /** False when the live value is modelled (a demo replay, a cloud model), not a sensor's. */
  measured?: boolean;
}

/** Skips when the current rain rate is at or above `rain_now_in_hr`. */
export function rainNowRule(
  input: RainNowInput,
  rules: SkipRules = DEFAULT_SKIP_RULES,
  say: Wording = wording(),
): RuleResult {
  const e = toEvidence(input.intensity_in_hr);
  const t = rules.rain_now_in_hr;
  const rate = say.rate;
  const from = sourceNote(input.source, 'station gauge', "forecast's estimate for this hour", input.measured);
  const inputs = { rain_intensity_in_hr: e.value, source: input.source, rain_now_in_hr: t };
  return decideThreshold('rain_now', compareEvidence(e, '>=', t), inputs, {
    skip: `Raining now: ${describeEvidence(e, rate)}${from} is at or above the ${rate(t)} threshold.`,
    pass: `Not raining now: ${describeEvidence(e, rate)}${from} is below the ${rate(t)} threshold.`,
    unknown: `No current rain rate from a station or the forecast; cannot confirm it is not raining (threshold ${rate(t)}).`,
  });
}

// ---- Freeze ----

/** What the minimum temperature covers: the planned run window, the next 24 hours (no window known), or a whole projected day. */
export type FreezeScope = 'run_window' | 'next_24h' | 'day';

export interface FreezeInput {
  min_temp_f: EvidenceLike;
  scope: FreezeScope;
}

/** Skips when the minimum temperature over the scope is at or below `min_temp_f`. */
export function freezeRule(
  input: FreezeInput,
  rules: SkipRules = DEFAULT_SKIP_RULES,
  say: Wording = wording(),
): RuleResult {
  const e = toEvidence(input.min_temp_f);
  const t = rules.min_temp_f;
  const where = FREEZE_SCOPE_TEXT[input.scope];
  const inputs = { ...evidenceInputs('min_temp_f', e), scope: input.scope, min_temp_threshold_f: t };
  return decideThreshold('freeze', compareEvidence(e, '<=', t), inputs, {
    skip: `Freeze risk: the low over ${where} is ${describeEvidence(e, say.temp)}, at or below the ${say.temp(t)} minimum.`,
    pass: `No freeze risk: the low over ${where} is ${describeEvidence(e, say.temp)}, above the ${say.temp(t)} minimum.`,
    unknown: `The temperature forecast for ${where} is ${describeEvidence(e, say.temp)}; cannot rule out a low at or below ${say.temp(t)}.`,
  });
}

const FREEZE_SCOPE_TEXT: Record<FreezeScope, string> = {
  run_window: 'the run window',
  next_24h: 'the next 24 hours',
  day: 'the day',
};

// ---- Soil frost ----

/** A configured soil temperature probe and its current reading (null when it reports nothing usable). */
export interface SoilTempProbe {
  temp_f: number | null;
}

/**
 * Skips when the soil temperature is at or below `frost_skip_soil_f`. With no
 * probe configured the rule does not apply (the air freeze rule still guards);
 * a configured probe without a reading is unknown, not a pass.
 */
export function soilFrostRule(
  probe: SoilTempProbe | null,
  rules: SkipRules = DEFAULT_SKIP_RULES,
  say: Wording = wording(),
): RuleResult {
  const t = rules.frost_skip_soil_f;
  if (probe === null) {
    return result(
      'soil_frost',
      'pass',
      'soil_frost_no_probe',
      'No soil temperature probe is configured; the soil frost rule does not apply.',
      { soil_temp_f: null, probe_configured: false, frost_skip_soil_f: t },
    );
  }
  const e = toEvidence(probe.temp_f);
  const inputs = { soil_temp_f: e.value, probe_configured: true, frost_skip_soil_f: t };
  return decideThreshold('soil_frost', compareEvidence(e, '<=', t), inputs, {
    skip: `Soil frost: the soil is ${describeEvidence(e, say.temp)}, at or below ${say.temp(t)}.`,
    pass: `No soil frost: the soil is ${describeEvidence(e, say.temp)}, above ${say.temp(t)}.`,
    unknown: `The soil temperature probe reports no reading; cannot rule out soil at or below ${say.temp(t)}.`,
  });
}

// ---- Wind ----

export interface WindNowInput {
  wind_mph: EvidenceLike;
  source: ReadingSource | null;
  /** False when the live value is modelled, not a sensor's. */
  measured?: boolean;
}

/** Skips when the current wind is above `max_wind_mph`. */
export function windNowRule(
  input: WindNowInput,
  rules: SkipRules = DEFAULT_SKIP_RULES,
  say: Wording = wording(),
): RuleResult {
  const e = toEvidence(input.wind_mph);
  const t = rules.max_wind_mph;
  const from = sourceNote(input.source, 'station', 'forecast for this hour', input.measured);
  const inputs = { wind_mph: e.value, source: input.source, max_wind_mph: t };
  return decideThreshold('wind_now', compareEvidence(e, '>', t), inputs, {
    skip: `Too windy now: ${describeEvidence(e, say.wind)}${from} is above the ${say.wind(t)} limit.`,
    pass: `Wind now ${describeEvidence(e, say.wind)}${from} is within the ${say.wind(t)} limit.`,
    unknown: `No current wind reading from a station or the forecast; cannot confirm it is at or below ${say.wind(t)}.`,
  });
}

/** What the forecast wind peak covers: the planned run window's hours, or the whole day (no window known). */
export type WindScope = 'run_window' | 'day';

export interface WindForecastInput {
  max_wind_mph: EvidenceLike;
  scope: WindScope;
}

/**
 * Skips when the forecast peak wind is above `max_wind_mph + wind_forecast_slack_mph`
 * (forecast peaks overshoot real maxima, hence the slack).
 */
export function windForecastRule(
  input: WindForecastInput,
  rules: SkipRules = DEFAULT_SKIP_RULES,
  say: Wording = wording(),
): RuleResult {
  const e = toEvidence(input.max_wind_mph);
  const limit = rules.max_wind_mph + rules.wind_forecast_slack_mph;
  const where = input.scope === 'run_window' ? 'the run window' : 'the day';
  const limitText = `${say.wind(limit)} (${say.wind(rules.max_wind_mph)} + ${say.wind(rules.wind_forecast_slack_mph)} slack)`;
  const inputs = {
    ...evidenceInputs('max_wind_mph', e),
    scope: input.scope,
    max_wind_limit_mph: rules.max_wind_mph,
    wind_forecast_slack_mph: rules.wind_forecast_slack_mph,
  };
  return decideThreshold('wind_forecast', compareEvidence(e, '>', limit), inputs, {
    skip: `Windy forecast: peak wind over ${where} is ${describeEvidence(e, say.wind)}, above ${limitText}.`,
    pass: `Forecast peak wind over ${where} is ${describeEvidence(e, say.wind)}, within ${limitText}.`,
    unknown: `Wind forecast for ${where} is ${describeEvidence(e, say.wind)}; cannot confirm it stays within ${limitText}.`,
  });
}

// ---- Rain already fallen today ----

export interface AlreadyWetInput {
  /** Rain fallen today so far. */
  rain_today_in: EvidenceLike;
  source: RainTodaySource | null;
  /** False when the live total is modelled (a demo replay, a cloud model), not a gauge's. */
  measured?: boolean;
}

/** Skips when rain fallen today is at or above `already_wet_in`. */
export function alreadyWetRule(
  input: AlreadyWetInput,
  rules: SkipRules = DEFAULT_SKIP_RULES,
  say: Wording = wording(),
): RuleResult {
  const e = toEvidence(input.rain_today_in);
  const t = rules.already_wet_in;
  const from = sourceNote(
    input.source,
    'measured by the gauge',
    "model estimate for today's hours so far",
    input.measured,
  );
  const inputs = { ...evidenceInputs('rain_today_in', e), source: input.source, already_wet_in: t };
  return decideThreshold('already_wet', compareEvidence(e, '>=', t), inputs, {
    skip: `Already wet: ${describeEvidence(e, say.rain)} of rain today${from}, at or above ${say.rain(t)}.`,
    pass: `${describeEvidence(e, say.rain)} of rain today${from}, below the ${say.rain(t)} already-wet threshold.`,
    unknown: `Rain so far today is ${describeEvidence(e, say.rain)} (no gauge reading and no complete model hours); cannot confirm it is below ${say.rain(t)}.`,
  });
}

// ---- Forecast rain ----

export interface RainTodayForecastInput {
  /** The forecast's whole-day total for today (a forecast, not a measurement). */
  rain_today_forecast_in: EvidenceLike;
}

/** Skips when today's forecast rain total is at or above `rain_skip_in`. */
export function rainTodayForecastRule(
  input: RainTodayForecastInput,
  rules: SkipRules = DEFAULT_SKIP_RULES,
  say: Wording = wording(),
): RuleResult {
  const e = toEvidence(input.rain_today_forecast_in);
  const t = rules.rain_skip_in;
  const inputs = { rain_today_forecast_in: e.value, rain_skip_in: t };
  return decideThreshold('rain_today_forecast', compareEvidence(e, '>=', t), inputs, {
    skip: `Rain forecast today: ${describeEvidence(e, say.rain)} expected (forecast, not measured), at or above ${say.rain(t)}.`,
    pass: `Today's rain forecast is ${describeEvidence(e, say.rain)}, below ${say.rain(t)}.`,
    unknown: `Today's rain forecast is unavailable; cannot confirm it is below ${say.rain(t)}.`,
  });
}

export interface RainNext4hInput {
  /** Forecast rain over the next 4 hours (unweighted). */
  rain_next_4h_in: EvidenceLike;
}

/** Skips when forecast rain over the next 4 hours is at or above `rain_next_4h_skip_in`. */
export function rainNext4hRule(
  input: RainNext4hInput,
  rules: SkipRules = DEFAULT_SKIP_RULES,
  say: Wording = wording(),
): RuleResult {
  const e = toEvidence(input.rain_next_4h_in);
  const t = rules.rain_next_4h_skip_in;
  const inputs = { ...evidenceInputs('rain_next_4h_in', e), rain_next_4h_skip_in: t };
  return decideThreshold('rain_next_4h', compareEvidence(e, '>=', t), inputs, {
    skip: `Rain expected within 4 hours: ${describeEvidence(e, say.rain)} forecast, at or above ${say.rain(t)}.`,
    pass: `Forecast rain in the next 4 hours is ${describeEvidence(e, say.rain)}, below ${say.rain(t)}.`,
    unknown: `Forecast rain for the next 4 hours is ${describeEvidence(e, say.rain)}; a gap cannot prove it stays below ${say.rain(t)}.`,
  });
}

export interface TomorrowRainInput {
  /** Tomorrow's forecast rain total (unweighted). */
  rain_tomorrow_in: EvidenceLike;
  /** Tomorrow's maximum precipitation probability, 0..100, or null. */
  rain_tomorrow_prob_pct: number | null;
}

/**
 * Skips when tomorrow's rain weighted by its probability
 * (amount x probability / 100) is at or above `rain_skip_in`. Without a
 * probability the weighted amount is only known to lie between 0 and the
 * amount: an amount already below the threshold passes, otherwise unknown.
 */
export function tomorrowRainRule(
  input: TomorrowRainInput,
  rules: SkipRules = DEFAULT_SKIP_RULES,
  say: Wording = wording(),
): RuleResult {
  const amount = toEvidence(input.rain_tomorrow_in);
  const weighted = weightedAmount(amount, input.rain_tomorrow_prob_pct);
  const t = rules.rain_skip_in;
  const prob = input.rain_tomorrow_prob_pct;
  const detail =
    amount.value === null
      ? 'no forecast amount'
      : prob === null
        ? `${say.rain(amount.value)} forecast, no probability given`
        : `${say.rain(amount.value)} x ${say.pct(prob)} chance`;
  const inputs = {
    rain_tomorrow_in: amount.value,
    rain_tomorrow_prob_pct: prob,
    rain_tomorrow_weighted_in: weighted.value,
    rain_tomorrow_weighted_at_most_in: weighted.at_most,
    rain_skip_in: t,
  };
  return decideThreshold('tomorrow_rain', compareEvidence(weighted, '>=', t), inputs, {
    skip: `Rain tomorrow: ${describeEvidence(weighted, say.rain)} weighted (${detail}), at or above ${say.rain(t)}.`,
    pass: `Tomorrow's weighted rain is ${describeEvidence(weighted, say.rain)} (${detail}), below ${say.rain(t)}.`,
    unknown: `Tomorrow's weighted rain is ${describeEvidence(weighted, say.rain)} (${detail}); cannot confirm it is below ${say.rain(t)}.`,
  });
}

export interface Rain3DayInput {
  /** Probability-weighted forecast rain over the 3 days after the day judged. */
  rain_3day_weighted_in: EvidenceLike;
}

/**
 * Skips when the weighted 3-day rain is at or above
 * `rain_3day_factor x rain_skip_in`: a wider window is a weaker signal, so it
 * needs more rain than the 1-day rule.
 */
export function rain3DayRule(
  input: Rain3DayInput,
  rules: SkipRules = DEFAULT_SKIP_RULES,
  say: Wording = wording(),
): RuleResult {
  const e = toEvidence(input.rain_3day_weighted_in);
  const t = round(rules.rain_3day_factor * rules.rain_skip_in, 6);
  const thresholdText = `${say.rain(t)} (${rules.rain_3day_factor} x ${say.rain(rules.rain_skip_in)})`;
  const inputs = {
    ...evidenceInputs('rain_3day_weighted_in', e),
    rain_3day_factor: rules.rain_3day_factor,
    rain_skip_in: rules.rain_skip_in,
  };
  return decideThreshold('rain_3day', compareEvidence(e, '>=', t), inputs, {
    skip: `Heavy rain in the next 3 days: ${describeEvidence(e, say.rain, 'days')} weighted, at or above ${thresholdText}.`,
    pass: `Weighted rain over the next 3 days is ${describeEvidence(e, say.rain, 'days')}, below ${thresholdText}.`,
    unknown: `Weighted rain over the next 3 days is ${describeEvidence(e, say.rain, 'days')}; cannot confirm it is below ${thresholdText}.`,
  });
}

// ---- Heat advisory ----

export interface HeatAdvisoryInput {
  /** Highest daily maximum over the day judged and the 2 after it. */
  temp_max_3day_f: EvidenceLike;
  /** Relative humidity: now for today, the day's mean for a projected day. */
  humidity_pct: EvidenceLike;
  /** Days since a day with at least the significant-rain amount. */
  days_since_significant_rain: EvidenceLike;
  /** Probability-weighted forecast rain over the 3 days after the day judged. */
  rain_3day_weighted_in: EvidenceLike;
}

/**
 * The one rule that adds water: active when a heat wave meets a dry spell the
 * forecast will not break. All four must be proven:
 * - the 3-day high is at or above `heat_advisory_temp_f`;
 * - humidity is at or above `heat_advisory_humidity_pct`;
 * - at least `heat_advisory_dry_days` days since significant rain;
 * - the weighted 3-day rain is below half of `rain_skip_in`.
 * Active: verdict `pass`, reason_code `heat_advisory`, run_multiplier 1.15
 * (planned + 15 %). It never skips (`can_skip` false), so an unknown heat
 * advisory never holds watering; it only withholds the extra water: missing
 * evidence never earns an extension.
 */
export function heatAdvisoryRule(
  input: HeatAdvisoryInput,
  rules: SkipRules = DEFAULT_SKIP_RULES,
  say: Wording = wording(),
): RuleResult {
  const temp = toEvidence(input.temp_max_3day_f);
  const humidity = toEvidence(input.humidity_pct);
  const dry = toEvidence(input.days_since_significant_rain);
  const rain = toEvidence(input.rain_3day_weighted_in);
  const rainLimit = round(HEAT_ADVISORY_RAIN_FRACTION * rules.rain_skip_in, 6);
  const days = (v: number) => `${round(v, 0)} ${v === 1 ? 'day' : 'days'}`;
  const dryText =
    dry.value !== null
      ? days(dry.value)
      : dry.at_least !== null
        ? `at least ${days(dry.at_least)} (earlier rain unknown)`
        : 'unknown';

  const parts: { tri: Tri; yes: string; no: string; unknown: string }[] = [
    {
      tri: compareEvidence(temp, '>=', rules.heat_advisory_temp_f),
      yes: `3-day high ${describeEvidence(temp, say.temp, 'days')} at or above ${say.temp(rules.heat_advisory_temp_f)}`,
      no: `3-day high ${describeEvidence(temp, say.temp, 'days')} is below ${say.temp(rules.heat_advisory_temp_f)}`,
      unknown: `3-day high is ${describeEvidence(temp, say.temp, 'days')}`,
    },
    {
      tri: compareEvidence(humidity, '>=', rules.heat_advisory_humidity_pct),
      yes: `humidity ${describeEvidence(humidity, say.pct)} at or above ${say.pct(rules.heat_advisory_humidity_pct)}`,
      no: `humidity ${describeEvidence(humidity, say.pct)} is below ${say.pct(rules.heat_advisory_humidity_pct)}`,
      unknown: 'humidity is unknown',
    },
    {
      tri: compareEvidence(dry, '>=', rules.heat_advisory_dry_days),
      yes: `${dryText} since significant rain (needs ${days(rules.heat_advisory_dry_days)})`,
      no: `only ${dryText} since significant rain (needs ${days(rules.heat_advisory_dry_days)})`,
      unknown: `days since significant rain are ${dryText} (needs ${days(rules.heat_advisory_dry_days)})`,
    },
    {
      tri: compareEvidence(rain, '<', rainLimit),
      yes: `weighted 3-day rain ${describeEvidence(rain, say.rain, 'days')} below ${say.rain(rainLimit)}`,
      no: `weighted 3-day rain ${describeEvidence(rain, say.rain, 'days')} is not below ${say.rain(rainLimit)}`,
      unknown: `weighted 3-day rain is ${describeEvidence(rain, say.rain, 'days')}`,
    },
  ];
  const inputs = {
    temp_max_3day_f: temp.value,
    temp_max_3day_at_least_f: temp.at_least,
    humidity_pct: humidity.value,
    days_since_significant_rain: dry.value,
    days_since_significant_rain_at_least: dry.at_least,
    rain_3day_weighted_in: rain.value,
    heat_advisory_temp_f: rules.heat_advisory_temp_f,
    heat_advisory_humidity_pct: rules.heat_advisory_humidity_pct,
    heat_advisory_dry_days: rules.heat_advisory_dry_days,
    rain_limit_in: rainLimit,
  };
  const all = allOf(parts.map((p) => p.tri));
  if (all === 'yes') {
    const base = result(
      'heat_advisory',
      'pass',
      'heat_advisory',
      `Heat advisory: ${parts.map((p) => p.yes).join(', ')}; run at ${round(HEAT_ADVISORY_RUN_MULTIPLIER * 100, 0)}% of the planned time.`,
      inputs,
      false,
    );
    return { ...base, run_multiplier: HEAT_ADVISORY_RUN_MULTIPLIER };
  }
  if (all === 'no') {
    const failed = parts.filter((p) => p.tri === 'no').map((p) => p.no);
    return result(
      'heat_advisory',
      'pass',
      'heat_advisory_pass',
      `No heat advisory: ${failed.join(', ')}.`,
      inputs,
      false,
    );
  }
  const missing = parts.filter((p) => p.tri === 'unknown').map((p) => p.unknown);
  return result(
    'heat_advisory',
    'unknown',
    'heat_advisory_unknown',
    `Heat advisory not evaluated: ${missing.join(', ')}; no extra water without the evidence.`,
    inputs,
    false,
  );
}

// ---- internals ----

function result(
  rule: RuleId,
  verdict: RuleVerdict,
  reasonCode: string,
  reason: string,
  inputs: Record<string, RuleInputValue>,
  canSkip = true,
): RuleResult {
  return { rule, reason_code: reasonCode, reason, verdict, can_skip: canSkip, run_multiplier: 1, inputs };
}

function decideThreshold(
  rule: RuleId,
  tri: Tri,
  inputs: Record<string, RuleInputValue>,
  reasons: { skip: string; pass: string; unknown: string },
): RuleResult {
  if (tri === 'yes') return result(rule, 'skip', rule, reasons.skip, inputs);
  if (tri === 'no') return result(rule, 'pass', `${rule}_pass`, reasons.pass, inputs);
  return result(rule, 'unknown', `${rule}_unknown`, reasons.unknown, inputs);
}

/** An aggregate's value plus, when it is partial, its proven bounds and coverage. */
function evidenceInputs(key: string, e: Evidence): Record<string, RuleInputValue> {
  return {
    [key]: e.value,
    [`${key}_at_least`]: e.at_least,
    [`${key}_at_most`]: e.at_most,
    [`${key}_reported`]: e.have,
    [`${key}_expected`]: e.need,
  };
}

/** Where a live value came from, in words that follow the evidence: a modelled live value is never "measured". */
function sourceNote<S extends string>(
  source: S | null,
  first: string,
  second: string,
  measured = true,
): string {
  if (source === null) return '';
  if (source !== 'station' && source !== 'gauge') return ` (${second})`;
  return ` (${measured ? first : 'reported live by a modelled source, not measured'})`;
}
