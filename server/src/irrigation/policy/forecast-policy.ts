import type { Wording } from '../../core/units/quantities';
import { judgePromise, type ArchiveSkill, type LeadSkill } from '../../forecast/skill';
import type { RuleId, RuleResult, SkipRules } from '../skip/rules';

/**
 * The decision policy under uncertainty (docs/irrigation.md "Deciding under
 * uncertainty"), as small pure functions. Each returns the reason it produces.
 *
 * - MEASURED rules (rain now, already wet, wind now, freeze now) stay absolute:
 *   they are not in this file.
 * - FORWARD rules (rain today, rain in 4 h, rain tomorrow, 3-day rain,
 *   `session_rain_defer_in`, forecast credit in sizing) are bets on the
 *   forecast. A zone may take a bet only while it can afford to lose it: if
 *   the rain does not come, its depletion when the rain was expected stays
 *   within the stress allowance (`allowanceMm`).
 * - A zone that starts the day past RAW takes no bet: either yesterday's bet's
 *   rain did not come (the gauge, radar or model archive behind the ledger
 *   says so) and today's session makes it up, or it was never within reach.
 * - Without a forecast the forward rules do not apply, the credit is 0
 *   (`unavailable`) and a due zone waters on local evidence.
 */

/** Share of TAW − RAW a bet may spend past RAW: the allowance is RAW + 25 % of it (Ks stays ≥ 0.75). */
export const ALLOWANCE_SHARE = 0.25;

/** A bet on rain needs the weighted rain to put back at least this share of the depletion it finds. */
export const BET_REFILL_SHARE = 0.5;

/** Plan days a bet may look ahead for its rain (today and the two after it). */
export const BET_HORIZON_DAYS = 3;

/** Weight of a forecast amount that comes without a probability. */
export const UNKNOWN_PROBABILITY_WEIGHT = 0.5;

/** Reason code of a zone that waits for rain expected after its next session. */
export const RAIN_EXPECTED_CODE = 'forecast_rain_expected';

/** Skip rules that skip for forecast rain (forward rules of the skip check). */
export const FORECAST_RAIN_CODES: ReadonlySet<string> = new Set([
  'rain_today_forecast',
  'rain_next_4h',
  'tomorrow_rain',
  'rain_3day',
]);

export interface PolicyReason {
  code: string;
  reason: string;
}

/**
 * The stress allowance, mm of depletion: RAW + ALLOWANCE_SHARE × (TAW − RAW).
 * Null when TAW or RAW is unknown (nothing to bet against).
 */
export function allowanceMm(tawMm: number | null, rawMm: number | null): number | null {
  if (tawMm === null || rawMm === null || !Number.isFinite(tawMm) || !Number.isFinite(rawMm)) return null;
  return rawMm + ALLOWANCE_SHARE * Math.max(0, tawMm - rawMm);
}

export interface AffordInput {
  /** Start-of-day depletion, upper bound when only a range is known. */
  start_hi_mm: number;
  raw_mm: number;
  allowance_mm: number;
  /** ETc from now until the rain is expected (null: unknown, which never affords a bet). */
  etc_until_rain_mm: number | null;
}

export interface Affordability extends PolicyReason {
  affordable: boolean;
  /** Depletion when the rain was expected, if it does not come (null when ETc is unknown). */
  depletion_at_rain_mm: number | null;
}

/** Whether a zone can afford to wait for forecast rain (see the file comment). */
export function canAffordToWait(input: AffordInput, say: Wording): Affordability {
  const { start_hi_mm: start, raw_mm: raw, allowance_mm: allowance } = input;
  if (start > raw) {
    return {
      affordable: false,
      depletion_at_rain_mm: null,
      code: 'forecast_bet_made_up',
      reason: `depletion ${say.depth(start)} already passed the trigger (RAW ${say.depth(raw)}): no bet on forecast rain until it is refilled`,
    };
  }
  if (input.etc_until_rain_mm === null) {
    return {
      affordable: false,
      depletion_at_rain_mm: null,
      code: 'forecast_bet_unaffordable',
      reason: 'the crop water use until the rain is unknown: no bet on forecast rain',
    };
  }
  const atRain = start + input.etc_until_rain_mm;
  if (atRain > allowance) {
    return {
      affordable: false,
      depletion_at_rain_mm: atRain,
      code: 'forecast_bet_unaffordable',
      reason: `without that rain depletion would reach ${say.depth(atRain)}, past the stress allowance ${say.depth(allowance)}`,
    };
  }
  return {
    affordable: true,
    depletion_at_rain_mm: atRain,
    code: 'forecast_bet_affordable',
    reason: `without that rain depletion would reach ${say.depth(atRain)}, within the stress allowance ${say.depth(allowance)}`,
  };
}

/** Forecast rain weighted by its probability and the learned bias (skill), capped at what the soil can take. */
export function skillWeightedRainMm(
  amountMm: number | null,
  probabilityPct: number | null,
  biasMultiplier: number,
  capMm: number,
): number | null {
  if (amountMm === null || !Number.isFinite(amountMm) || amountMm < 0) return null;
  const weight =
    probabilityPct === null || !Number.isFinite(probabilityPct)
      ? UNKNOWN_PROBABILITY_WEIGHT
      : Math.min(100, Math.max(0, probabilityPct)) / 100;
  return Math.min(capMm, amountMm * weight * biasMultiplier);
}

export type CreditSource = 'bias_forecast' | 'none' | 'unavailable';

export interface Credit extends PolicyReason {
  mm: number;
  source: CreditSource;
}

export interface CreditInput {
  /** Whether any forecast reached the service. */
  forecast_present: boolean;
  /** Next-24-hour forecast rain, mm, null when any hour lacks an amount. */
  next24h_mm: number | null;
  bias_multiplier: number;
  rain_cap_mm: number;
  /** Whether the zone can afford to lose the bet the credit is (canAffordToWait). */
  affordable: boolean;
}

/** Today's forecast credit in sizing: a forward rule, so only for a zone that can afford it. Never applied water. */
export function forecastCredit(input: CreditInput, say: Wording): Credit {
  if (!input.forecast_present || input.next24h_mm === null) {
    return {
      mm: 0,
      source: 'unavailable',
      code: 'credit_unavailable',
      reason: input.forecast_present
        ? 'the next 24 hours of forecast rain are incomplete: no rain credited'
        : 'no forecast: no rain credited',
    };
  }
  const mm = Math.min(input.rain_cap_mm, input.next24h_mm * input.bias_multiplier);
  if (mm <= 0) return { mm: 0, source: 'none', code: 'credit_none', reason: 'no forecast rain to credit' };
  if (!input.affordable) {
    return {
      mm: 0,
      source: 'none',
      code: 'credit_unaffordable',
      reason: `${say.depth(mm)} of forecast rain not credited: the zone cannot afford to wait for it`,
    };
  }
  return {
    mm,
    source: 'bias_forecast',
    code: 'credit_bias_forecast',
    reason: `${say.depth(mm)} of forecast rain credited`,
  };
}

export interface BetDay {
  date_local: string;
  /** Forecast rain of the day, mm (null when unknown). */
  rain_mm: number | null;
  probability_pct: number | null;
  /** Forecast ETc of the whole day (null when unknown). */
  etc_mm: number | null;
  /** The skill's weight on this day's rain (its lead's, withLeadSkill); absent: the input's bias_multiplier. */
  weight?: number;
}

export interface RainBet {
  date_local: string;
  credited_mm: number;
  depletion_at_rain_mm: number;
}

export interface BetInput {
  start_hi_mm: number;
  raw_mm: number;
  allowance_mm: number;
  bias_multiplier: number;
  rain_cap_mm: number;
  /** The day judged and the days after it, in order. */
  days: readonly BetDay[];
}

/**
 * The first day within BET_HORIZON_DAYS whose skill-weighted rain puts back at
 * least BET_REFILL_SHARE of the depletion it finds, while the zone, without
 * that rain, stays within its allowance until the end of that day. Null when
 * no such bet exists (or the zone is past RAW: no second bet).
 */
export function findRainBet(input: BetInput): RainBet | null {
  if (input.start_hi_mm > input.raw_mm) return null;
  let depletion = input.start_hi_mm;
  for (const day of input.days.slice(0, BET_HORIZON_DAYS)) {
    if (day.etc_mm === null) return null;
    depletion += day.etc_mm;
    if (depletion > input.allowance_mm) return null;
    const credited = skillWeightedRainMm(
      day.rain_mm,
      day.probability_pct,
      day.weight ?? input.bias_multiplier,
      input.rain_cap_mm,
    );
    if (credited !== null && credited > 0 && credited >= BET_REFILL_SHARE * depletion) {
      return { date_local: day.date_local, credited_mm: credited, depletion_at_rain_mm: depletion };
    }
  }
  return null;
}

/**
 * A due soil zone and the forecast: wait for the rain (the bet, under the skip
 * rule's code when one skips for rain, else `forecast_rain_expected`), or
 * water, with a note saying why a rain skip did not hold it.
 */
export function rainBetDecision(
  bet: RainBet | null,
  skipCode: string | null,
  allowance: number,
  say: Wording,
  /** Why no bet, when the zone is already past RAW (canAffordToWait's made-up reason). */
  madeUp: string | null = null,
): { wait: true; code: string; reason: string } | { wait: false; note: string } {
  if (bet) {
    const code = skipCode !== null && FORECAST_RAIN_CODES.has(skipCode) ? skipCode : RAIN_EXPECTED_CODE;
    return {
      wait: true,
      code,
      reason: `waiting for rain: ${say.depth(bet.credited_mm)} expected on ${bet.date_local} (weighted by its probability, the forecast's bias and its record of kept promises); without it depletion would reach ${say.depth(bet.depletion_at_rain_mm)}, within the stress allowance ${say.depth(allowance)}`,
    };
  }
  if (skipCode !== null && FORECAST_RAIN_CODES.has(skipCode)) {
    return {
      wait: false,
      note: `; ${skipCode} would skip, but ${madeUp ?? `the zone cannot afford to wait for that rain within its stress allowance (${say.depth(allowance)})`}`,
    };
  }
  return { wait: false, note: '' };
}

/**
 * `forecast_unavailable`: an incomplete forecast (rain could be on its way)
 * defers a due zone only while it can afford to wait; with no forecast at all
 * the zone waters on local evidence.
 */
export function forecastUnavailableDefers(forecastPresent: boolean, affordable: boolean): boolean {
  return forecastPresent && affordable;
}

/** Note on a zone watered without any forecast. */
export const NO_FORECAST_NOTE = 'no forecast: watered on local evidence, no rain credited';

// ---- no forecast ----

/** Without a forecast, freeze safety needs the live temperature and the recorded lows this far above `min_temp_f`. */
export const NO_FORECAST_FREEZE_MARGIN_F = 5;

/** Recorded days whose lows stand in for the missing forecast low. */
export const NO_FORECAST_LOW_DAYS = 3;

/** Skip rules that read only the forecast: not applicable without one. */
export const FORWARD_RULES: ReadonlySet<RuleId> = new Set([
  'wind_forecast',
  'rain_today_forecast',
  'rain_next_4h',
  'tomorrow_rain',
  'rain_3day',
]);

/** A forward skip rule without any forecast: not applicable (a pass that says so), never a hold. */
export function forwardRuleWithoutForecast(rule: RuleId): RuleResult {
  return {
    rule,
    reason_code: `${rule}_no_forecast`,
    reason:
      'No forecast reached the service: this forward rule does not apply; zones water on local evidence.',
    verdict: 'pass',
    can_skip: true,
    run_multiplier: 1,
    inputs: { forecast_present: false },
  };
}

export interface FreezeWithoutForecastInput {
  /** The live air temperature, °F (null when no sensor reports it). */
  live_temp_f: number | null;
  /** Lows of the last NO_FORECAST_LOW_DAYS recorded days, °F (null for a day without one). */
  recent_lows_f: readonly (number | null)[];
}

/**
 * Freeze safety without a forecast (the run is judged where it stands: the
 * live temperature near the run window, and the nights just recorded):
 * - skip when the live temperature is within the margin of `min_temp_f`
 *   (at or below min + margin: the night may still cool to it);
 * - skip when a recorded low of the last days is at or below `min_temp_f`
 *   (a night like it would freeze the run);
 * - pass when both clear those, or when only one is known and clears min + margin;
 * - unknown when neither is known.
 */
export function freezeWithoutForecast(
  input: FreezeWithoutForecastInput,
  rules: SkipRules,
  say: Wording,
): RuleResult {
  const t = rules.min_temp_f;
  const guard = t + NO_FORECAST_FREEZE_MARGIN_F;
  const lows = input.recent_lows_f.filter((v): v is number => v !== null && Number.isFinite(v));
  const lowest = lows.length > 0 ? Math.min(...lows) : null;
  const live = input.live_temp_f !== null && Number.isFinite(input.live_temp_f) ? input.live_temp_f : null;
  const inputs = {
    live_temp_f: live,
    recent_low_f: lowest,
    recent_low_days: NO_FORECAST_LOW_DAYS,
    min_temp_threshold_f: t,
    margin_f: NO_FORECAST_FREEZE_MARGIN_F,
    forecast_present: false,
  };
  const base = { rule: 'freeze' as const, can_skip: true, run_multiplier: 1, inputs };
  const margin = `${say.temp(guard)} (the ${say.temp(t)} minimum + ${NO_FORECAST_FREEZE_MARGIN_F} °F margin)`;
  const skip = (reason: string): RuleResult => ({ ...base, verdict: 'skip', reason_code: 'freeze', reason });
  if (live !== null && live <= guard) {
    return skip(`Freeze risk (no forecast): it is ${say.temp(live)} now, at or below ${margin}.`);
  }
  if (lowest !== null && lowest <= t) {
    return skip(
      `Freeze risk (no forecast): a recorded low of the last ${NO_FORECAST_LOW_DAYS} days was ${say.temp(lowest)}, at or below the ${say.temp(t)} minimum.`,
    );
  }
  if (live === null && (lowest === null || lowest <= guard)) {
    return {
      ...base,
      verdict: 'unknown',
      reason_code: 'freeze_unknown',
      reason: `No forecast and no live temperature${lowest === null ? ' or recorded low' : `; the recorded low ${say.temp(lowest)} is not clear of ${margin}`}: cannot rule out a freeze.`,
    };
  }
  const parts = [
    live === null ? null : `${say.temp(live)} now`,
    lowest === null
      ? null
      : `recorded lows of at least ${say.temp(lowest)} over the last ${NO_FORECAST_LOW_DAYS} days`,
  ].filter((x): x is string => x !== null);
  return {
    ...base,
    verdict: 'pass',
    reason_code: 'freeze_pass',
    reason: `No freeze risk (no forecast): ${parts.join(' and ')}, clear of the freeze limits.`,
  };
}

// ---- forecast skill ----

/** Days of recorded promises the skill looks back over. */
export const SKILL_LOOKBACK_DAYS = 30;

/** Below this hit rate the forecast's rain is not counted at all: its bets lose more often than they win. */
export const MIN_TRUSTED_HIT_RATE = 0.5;

/** What the forecast promised for a date the day before (recorded with that day's decision). */
export interface Promise {
  date_local: string;
  precip_mm: number | null;
  probability_pct: number | null;
}

export interface ForecastSkill {
  /**
   * Weight on forecast rain in credit and bets: the hit rate (kept + 1) / (promised + 1),
   * 1 with no informative promise yet, 0 below MIN_TRUSTED_HIT_RATE.
   */
  factor: number;
  hit_rate: number;
  promised_days: number;
  kept_days: number;
  reason: string;
  /**
   * Per lead day from the forecast archive for this month (lead 0 today, 1
   * tomorrow, ...): the weight on that day's forecast rain. Absent days (and
   * a lead whose archive band is under-trained) take the rolling figure.
   */
  by_lead?: LeadWeight[];
}

export interface LeadWeight {
  lead_days: number;
  /** Multiplies the forecast rain (with the probability): hit-rate factor x amount bias. */
  weight: number;
  hit_rate: number;
  amount_bias: number | null;
  promised_days: number;
  source: 'archive' | 'rolling';
  reason: string;
}

/**
 * The forecast's day-ahead hit rate over the recorded promises: a day counts
 * when the weighted promise was informative and its rain was measured (gauge,
 * radar or model archive; an unknown day is left out, never read as dry).
 * One prior kept promise keeps a new install trusting until evidence comes.
 */
export function forecastSkill(
  promises: readonly Promise[],
  measuredMm: (date: string) => number | null,
): ForecastSkill {
  let promised = 0;
  let kept = 0;
  for (const p of promises) {
    const weighted = skillWeightedRainMm(p.precip_mm, p.probability_pct, 1, Infinity);
    const measured = measuredMm(p.date_local);
    if (weighted === null || measured === null) continue;
    const verdict = judgePromise(weighted, measured);
    if (verdict === 'uninformative') continue;
    promised += 1;
    if (verdict === 'kept') kept += 1;
  }
  const hitRate = (kept + 1) / (promised + 1);
  const factor = hitRate < MIN_TRUSTED_HIT_RATE ? 0 : hitRate;
  const kept_text = `the forecast kept ${kept} of its last ${promised} day-ahead rain promises`;
  return {
    factor,
    hit_rate: hitRate,
    promised_days: promised,
    kept_days: kept,
    reason:
      promised === 0
        ? 'no recorded day-ahead rain promise to judge the forecast by yet: full weight'
        : factor === 0
          ? `${kept_text}: below ${MIN_TRUSTED_HIT_RATE * 100} %, its rain is not counted`
          : `${kept_text}: its rain counts at ${Math.round(factor * 100)} %`,
  };
}

/**
 * The skill by lead time and month: a lead whose archive band for this month
 * is trained (forecast/skill.ts) weighs its forecast rain by that band's hit
 * rate (0 below MIN_TRUSTED_HIT_RATE) times its amount bias, in place of the
 * rolling day-ahead factor and the month's day-ahead bias. Leads past the
 * archive's (47 h) take the lowest trained weight of the archive and the
 * rolling figure: skill only falls with lead time. An under-trained band
 * keeps the rolling figure and says so. The archive is persisted, so a
 * restart reads the same weights.
 */
export function withLeadSkill(
  rolling: ForecastSkill,
  archive: ArchiveSkill | null,
  monthBias: number,
  leads: number,
): ForecastSkill {
  const rollingWeight = rolling.factor * monthBias;
  const bands = new Map((archive?.by_lead ?? []).map((b) => [b.lead_days, b]));
  const trained = [...bands.values()].filter((b) => b.trained).map((b) => archiveWeight(b));
  const by_lead = Array.from({ length: leads }, (_, lead): LeadWeight => {
    const band = bands.get(lead);
    if (band?.trained)
      return {
        ...leadFigures(band),
        weight: archiveWeight(band),
        source: 'archive',
        reason: bandReason(band),
      };
    if (!band && trained.length > 0) {
      const weight = Math.min(rollingWeight, ...trained);
      return {
        lead_days: lead,
        weight,
        hit_rate: rolling.hit_rate,
        amount_bias: null,
        promised_days: rolling.promised_days,
        source: 'rolling',
        reason: `past the archive's leads: the lowest of its trained weights and the rolling figure (${pct(weight)})`,
      };
    }
    const short = band
      ? `the archive's ${band.lead_hours[0]}-${band.lead_hours[1]} h band is under-trained this month (${band.promised_days} of ${archive?.min_days ?? 0} days)`
      : 'no archive figures';
    return {
      lead_days: lead,
      weight: rollingWeight,
      hit_rate: rolling.hit_rate,
      amount_bias: null,
      promised_days: rolling.promised_days,
      source: 'rolling',
      reason: `${short}: the rolling day-ahead figure (${rolling.reason})`,
    };
  });
  return { ...rolling, by_lead };
}

/** The weight on a plan day's forecast rain `lead` days ahead: its lead's, else the rolling factor x the month's bias. */
export function rainWeightAt(skill: ForecastSkill, lead: number, monthBias: number): number {
  return skill.by_lead?.find((l) => l.lead_days === lead)?.weight ?? skill.factor * monthBias;
}

/** The factor on rain already scaled by the month's bias: the rolling factor, or an archive lead's weight over that bias. */
export function rainFactorAt(skill: ForecastSkill, lead: number, monthBias: number): number {
  const l = skill.by_lead?.find((x) => x.lead_days === lead);
  // The rolling figure itself is returned as is (no round trip through the division).
  if (!l || l.weight === skill.factor * monthBias) return skill.factor;
  return monthBias > 0 ? l.weight / monthBias : 0;
}

function archiveWeight(band: LeadSkill): number {
  return (band.hit_rate < MIN_TRUSTED_HIT_RATE ? 0 : band.hit_rate) * band.amount_bias;
}

function leadFigures(band: LeadSkill) {
  return {
    lead_days: band.lead_days,
    hit_rate: band.hit_rate,
    amount_bias: band.amount_bias,
    promised_days: band.promised_days,
  };
}

function bandReason(band: LeadSkill): string {
  const kept = `the archive's ${band.lead_hours[0]}-${band.lead_hours[1]} h forecasts kept ${band.kept_days} of ${band.promised_days} rain promises this month, with ${pct(band.amount_bias)} of the promised amount`;
  return band.hit_rate < MIN_TRUSTED_HIT_RATE
    ? `${kept}: below ${MIN_TRUSTED_HIT_RATE * 100} %, its rain is not counted`
    : `${kept}: its rain counts at ${pct(archiveWeight(band))}`;
}

function pct(x: number): string {
  return `${Math.round(x * 100)} %`;
}

// ---- missing measured evidence ----

/**
 * A depletion range opened by missing evidence (rain, ET0 or irrigation
 * unknown since a known state) whose upper end could pass the allowance
 * before the next session is decided, not left to wait: the zone is due (an
 * establishing refill to the upper end, which makes the state known again).
 * A range that only says nothing has ever proven the root zone full
 * (`start_unknown`, a fresh install) keeps the no-guess rule: the owner can
 * declare the state.
 */
export function rangeDueWithinAllowance(
  rangeReason: string | null,
  projectedHiMm: number,
  allowance: number,
): boolean {
  return rangeReason !== null && rangeReason !== 'start_unknown' && projectedHiMm > allowance;
}

/** Reason of a zone a range rule waters. */
export function rangeDueReason(projectedHiMm: number, allowance: number, say: Wording): string {
  return `the evidence behind the range is missing, and its upper end could reach ${say.depth(projectedHiMm)} by the next session, past the stress allowance ${say.depth(allowance)}: not left to wait`;
}

/**
 * Unknown rules whose hold waits on the allowance: the forward rules, and the
 * measured rules whose worst case is wasted water (rain now, already wet,
 * wind now). Freeze and soil frost, whose worst case is damage, always hold.
 */
const WAITABLE_UNKNOWN: ReadonlySet<string> = new Set([
  ...FORWARD_RULES,
  'rain_now',
  'already_wet',
  'wind_now',
]);

/**
 * A skip-check hold (`unknown`) on missing evidence holds a due soil zone only
 * while the zone can afford to wait, unless a rule whose worst case is damage
 * (freeze, soil frost) is among the unknown ones.
 */
export function holdWaitsOnAllowance(unknownRules: readonly string[]): boolean {
  return unknownRules.length > 0 && unknownRules.every((r) => WAITABLE_UNKNOWN.has(r));
}
