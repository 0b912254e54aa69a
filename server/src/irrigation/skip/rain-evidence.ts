import type { DailyEntry, HourlyEntry } from '../../forecast/types';
import type { WeatherSnapshot } from '../../weather/snapshot';
import {
  bounded,
  exact,
  nonNegative,
  percent,
  round,
  compareEvidence,
  toEvidence,
  type Evidence,
  type EvidenceLike,
} from './evidence';
import type { LocalCalendar } from './local-days';

/**
 * Rain totals over intervals (spec 1.5 and 9.5 2.0.0): a total needs a valid
 * amount for every hour (or day) of its interval. A gap never proves a dry
 * window: the total is null. The hours that do report still bound it from
 * below (rain is never negative), so a partial total can prove a wet window,
 * never a dry one.
 *
 * Hourly intervals are half-open `[from, to)` in epoch seconds. Each hourly
 * entry covers `[time_epoch, time_epoch + 3600)`; an interval needs every hour
 * that overlaps it, whole (an hour's amount is never prorated: the split of
 * rain inside an hour is not known). Entries off the hour grid are ignored; for
 * a repeated hour the first entry wins (as in the forecast window).
 *
 * A valid amount is a finite number >= 0; a valid probability a finite number
 * in 0..100. Anything else is no evidence.
 *
 * Totals are rounded to 0.001 in (float noise only) before they are compared.
 */

export const HOUR_S = 3600;
const DIGITS = 3;

/** Hour starts whose hour overlaps `[from, to)`. */
export function hourStarts(fromEpoch: number, toEpoch: number): number[] {
  assertInterval(fromEpoch, toEpoch);
  const hours: number[] = [];
  for (let t = Math.floor(fromEpoch / HOUR_S) * HOUR_S; t < toEpoch; t += HOUR_S) hours.push(t);
  return hours;
}

/*
 * The indexes are kept per forecast array: the forecast snapshot hands the
 * engine the same (never mutated) arrays until a fetch replaces them, and each
 * recompute asked for them dozens of times (a 1 MB-a-minute share of the idle
 * demo's garbage). Read-only maps, so no caller can change a shared index.
 */
const hourlyIndexes = new WeakMap<readonly HourlyEntry[], ReadonlyMap<number, HourlyEntry>>();
const dailyIndexes = new WeakMap<readonly DailyEntry[], ReadonlyMap<string, DailyEntry>>();

/** Hourly entries by hour start; first entry wins, off-grid entries are ignored. */
export function indexHourly(hourly: readonly HourlyEntry[]): ReadonlyMap<number, HourlyEntry> {
  let byHour = hourlyIndexes.get(hourly);
  if (!byHour) hourlyIndexes.set(hourly, (byHour = buildHourlyIndex(hourly)));
  return byHour;
}

function buildHourlyIndex(hourly: readonly HourlyEntry[]): Map<number, HourlyEntry> {
  const byHour = new Map<number, HourlyEntry>();
  for (const entry of hourly) {
    const t = entry.time_epoch;
    if (!Number.isSafeInteger(t) || t % HOUR_S !== 0 || byHour.has(t)) continue;
    byHour.set(t, entry);
  }
  return byHour;
}

/** Daily entries by `date_local`; first entry wins. */
export function indexDaily(daily: readonly DailyEntry[]): ReadonlyMap<string, DailyEntry> {
  let byDate = dailyIndexes.get(daily);
  if (!byDate) dailyIndexes.set(daily, (byDate = buildDailyIndex(daily)));
  return byDate;
}

function buildDailyIndex(daily: readonly DailyEntry[]): Map<string, DailyEntry> {
  const byDate = new Map<string, DailyEntry>();
  for (const entry of daily) if (!byDate.has(entry.date_local)) byDate.set(entry.date_local, entry);
  return byDate;
}

/**
 * Forecast rain over `[from, to)`: `value` only when every overlapping hour has
 * an amount; `at_least` is the sum of the hours that have one (null when none do).
 */
export function rainOverInterval(
  hourly: readonly HourlyEntry[],
  fromEpoch: number,
  toEpoch: number,
): Evidence {
  const byHour = indexHourly(hourly);
  const amounts = hourStarts(fromEpoch, toEpoch).map((t) => nonNegative(byHour.get(t)?.precip_in));
  return sumAmounts(amounts);
}

/** The total over `[from, to)`, or null unless EVERY overlapping hour has a valid amount. */
export function sumOverInterval(
  hourly: readonly HourlyEntry[],
  fromEpoch: number,
  toEpoch: number,
): number | null {
  return rainOverInterval(hourly, fromEpoch, toEpoch).value;
}

/**
 * Probability-weighted forecast rain over `[from, to)`: each hour counts
 * `precip_in x precip_probability / 100`. Exact only when every hour has both
 * (an hour forecasting exactly 0 in is 0 whatever its probability). An hour
 * with an amount but no probability counts between 0 and its amount; an hour
 * without an amount is unbounded.
 */
export function weightedRainOverInterval(
  hourly: readonly HourlyEntry[],
  fromEpoch: number,
  toEpoch: number,
): Evidence {
  const byHour = indexHourly(hourly);
  const terms = hourStarts(fromEpoch, toEpoch).map((t) => {
    const entry = byHour.get(t);
    return weightedTerm(nonNegative(entry?.precip_in), percent(entry?.precip_probability), 1);
  });
  return sumTerms(terms);
}

/** Forecast rain (unweighted) over the next 4 hours, `[now, now + 4 h)`. */
export function rainNext4h(hourly: readonly HourlyEntry[], nowEpoch: number): Evidence {
  return rainOverInterval(hourly, nowEpoch, nowEpoch + 4 * HOUR_S);
}

/** The forecast's total for one local day (`precip_sum_in`), or null when the day or its amount is missing. */
export function rainOnDay(daily: readonly DailyEntry[], date: string): number | null {
  return nonNegative(indexDaily(daily).get(date)?.precip_sum_in);
}

/** The forecast's maximum precipitation probability for one local day, or null. */
export function rainProbOnDay(daily: readonly DailyEntry[], date: string): number | null {
  return percent(indexDaily(daily).get(date)?.precip_probability_max);
}

/** Today's whole-day forecast rain (the model's total, not measured). */
export function rainToday(daily: readonly DailyEntry[], cal: LocalCalendar): number | null {
  return rainOnDay(daily, cal.today);
}

/** Tomorrow's forecast rain total (unweighted). */
export function rainTomorrow(daily: readonly DailyEntry[], cal: LocalCalendar): number | null {
  return rainOnDay(daily, cal.addDays(cal.today, 1));
}

/** Tomorrow's maximum precipitation probability, 0..100, or null when the provider gave none. */
export function rainTomorrowProb(daily: readonly DailyEntry[], cal: LocalCalendar): number | null {
  return rainProbOnDay(daily, cal.addDays(cal.today, 1));
}

/** `count` consecutive local dates starting at `first`. */
export function consecutiveDates(cal: LocalCalendar, first: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => cal.addDays(first, i));
}

/** Unweighted forecast rain over the given local days: exact only when every day has an amount. */
export function rainOverDays(daily: readonly DailyEntry[], dates: readonly string[]): Evidence {
  const byDate = indexDaily(daily);
  return sumAmounts(dates.map((d) => nonNegative(byDate.get(d)?.precip_sum_in)));
}

/**
 * Probability-weighted forecast rain over the given local days:
 * sum of `precip_sum_in x precip_probability_max / 100 x weight`.
 *
 * Weights: every day counts 1.0 unless `dayWeights` says otherwise (one finite
 * weight >= 0 per date). The skip check uses the plain 1.0 weights for
 * `rain_3day_weighted_in` (the 3 days after today) and `rain_7day_weighted_in`
 * (the 7 days after today): the probability is the only discount.
 *
 * Exact only when every day has both an amount and a probability (a day
 * forecasting exactly 0 in is 0 whatever its probability); otherwise null,
 * with the bounds the present days prove.
 */
export function weightedRain(
  daily: readonly DailyEntry[],
  dates: readonly string[],
  dayWeights?: readonly number[],
): Evidence {
  if (dayWeights !== undefined) {
    if (dayWeights.length !== dates.length) {
      throw new RangeError(`expected ${dates.length} day weights, got ${dayWeights.length}`);
    }
    if (dayWeights.some((w) => !Number.isFinite(w) || w < 0)) {
      throw new RangeError('day weights must be finite numbers >= 0');
    }
  }
  const byDate = indexDaily(daily);
  const terms = dates.map((date, i) => {
    const entry = byDate.get(date);
    return weightedTerm(
      nonNegative(entry?.precip_sum_in),
      percent(entry?.precip_probability_max),
      dayWeights?.[i] ?? 1,
    );
  });
  return sumTerms(terms);
}

/** One amount weighted by its probability (tomorrow's rain x tomorrow's probability). */
export function weightedAmount(amount: EvidenceLike, probabilityPct: number | null): Evidence {
  const a = toEvidence(amount);
  const p = percent(probabilityPct);
  if (a.value !== null) return sumTerms([weightedTerm(nonNegative(a.value), p, 1)]);
  const factor = p === null ? null : p / 100;
  const atLeast = a.at_least === null ? null : factor === null ? 0 : round(a.at_least * factor, DIGITS);
  const atMost = a.at_most === null ? null : round(a.at_most * (factor ?? 1), DIGITS);
  return bounded(atLeast, atMost, 0, 1);
}

export type RainTodaySource = 'gauge' | 'model';

/**
 * Rain that has fallen today so far. The station gauge's `rain_in_today` when
 * it was observed today (a reading stamped before local midnight is yesterday's
 * total); otherwise the forecast model's hours of today up to and including the
 * current hour (a model estimate, named as such).
 */
export function observedRainToday(
  weather: WeatherSnapshot | null,
  hourly: readonly HourlyEntry[],
  cal: LocalCalendar,
  nowEpoch: number,
): { evidence: Evidence; source: RainTodaySource | null } {
  const start = cal.dayStart(cal.today);
  const gauge = nonNegative(weather?.rain_in_today);
  const observedAt = weather?.rain_live_epoch ?? null;
  if (gauge !== null && observedAt !== null && observedAt >= start) {
    return { evidence: exact(gauge), source: 'gauge' };
  }
  const model = rainOverInterval(hourly, start, Math.max(start, nowEpoch));
  const informative = model.value !== null || model.at_least !== null;
  return { evidence: model, source: informative ? 'model' : null };
}

export interface PastRain {
  /** YYYY-MM-DD, a local day before today. */
  date_local: string;
  /** That day's rain (gauge total, else the model archive); null when unknown. */
  rain_in: number | null;
}

/**
 * Past daily rain, newest first, for the `count` days before `date`. A day the
 * input does not list is null (unknown), never dry.
 */
export function pastRainNewestFirst(
  past: readonly PastRain[],
  cal: LocalCalendar,
  date: string,
  count: number,
): (number | null)[] {
  const byDate = new Map<string, number | null>();
  for (const p of past) if (!byDate.has(p.date_local)) byDate.set(p.date_local, nonNegative(p.rain_in));
  return Array.from({ length: count }, (_, i) => byDate.get(cal.addDays(date, -(i + 1))) ?? null);
}

/**
 * Days since significant rain (a day with at least `wetIn`), from daily rain
 * newest first: index 0 is the day itself. 0 when the day itself is wet, 1
 * when the day before was, and so on. An unknown day ends the evidence: the
 * count is then only a lower bound (absence of data is not a drought).
 */
export function daysSinceSignificantRain(newestFirst: readonly EvidenceLike[], wetIn: number): Evidence {
  for (let i = 0; i < newestFirst.length; i += 1) {
    const wet = compareEvidence(newestFirst[i] ?? null, '>=', wetIn);
    if (wet === 'yes') return { ...exact(i), have: i + 1, need: i + 1 };
    if (wet === 'unknown') return bounded(i, null, i, i + 1);
  }
  return bounded(newestFirst.length, null, newestFirst.length, newestFirst.length + 1);
}

// ---- internals ----

/** One unit's weighted contribution: exact, or bounded [0, upper], or unbounded (upper null). */
interface Term {
  exact: number | null;
  upper: number | null;
  /** The unit had an amount (so it bounds the total from below). */
  informative: boolean;
}

function weightedTerm(amount: number | null, probabilityPct: number | null, weight: number): Term {
  if (amount === null) return { exact: null, upper: null, informative: false };
  if (amount === 0 || weight === 0) return { exact: 0, upper: 0, informative: true };
  if (probabilityPct === null) return { exact: null, upper: amount * weight, informative: true };
  const value = ((amount * probabilityPct) / 100) * weight;
  return { exact: value, upper: value, informative: true };
}

function sumAmounts(amounts: readonly (number | null)[]): Evidence {
  return sumTerms(amounts.map((a) => ({ exact: a, upper: a, informative: a !== null })));
}

function sumTerms(terms: readonly Term[]): Evidence {
  const need = terms.length;
  const have = terms.filter((t) => t.exact !== null).length;
  if (have === need)
    return exact(
      round(
        terms.reduce((s, t) => s + (t.exact ?? 0), 0),
        DIGITS,
      ),
      need,
    );
  const informative = terms.some((t) => t.informative);
  const atLeast = informative
    ? round(
        terms.reduce((s, t) => s + (t.exact ?? 0), 0),
        DIGITS,
      )
    : null;
  const atMost = terms.every((t) => t.upper !== null)
    ? round(
        terms.reduce((s, t) => s + (t.upper ?? 0), 0),
        DIGITS,
      )
    : null;
  return bounded(atLeast, atMost, have, need);
}

function assertInterval(fromEpoch: number, toEpoch: number): void {
  if (!Number.isFinite(fromEpoch) || !Number.isFinite(toEpoch)) {
    throw new RangeError(`interval bounds must be finite epochs, got ${fromEpoch}..${toEpoch}`);
  }
  if (fromEpoch > toEpoch) throw new RangeError(`interval from ${fromEpoch} is after to ${toEpoch}`);
}
