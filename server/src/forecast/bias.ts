import { LocalTime } from '../core/tz/local-time';
import { timeZone } from '../core/tz/time-zone';
import type { ArchiveRow } from '../store/forecast-archive';

/**
 * The learned per-month forecast rain bias (pure): how much rain fell against
 * how much the day-ahead forecast promised, over the days of one calendar
 * month. Observed rain comes from the gauge when the station measured that
 * day, else from the model's own lead-0 hours (its analysis of what fell).
 * Until enough informative days exist the multiplier is 1.0 (no correction).
 */

export const BIAS_MIN_SAMPLES = 8;
/** A day counts when its forecast promised at least this much rain (in). */
const INFORMATIVE_FORECAST_IN = 0.01;
const CLAMP: [number, number] = [0.25, 4];
/** "Day ahead": rows issued 12 to 35 hours before their target hour. */
const DAY_AHEAD_LEADS: [number, number] = [12, 35];

export interface BiasResult {
  month: number;
  multiplier: number;
  sample_count: number;
  min_samples: number;
  trained: boolean;
  observed_in: number | null;
  forecast_in: number | null;
  observed_source: 'gauge' | 'model_archive' | 'mixed' | 'none';
}

export interface BiasInput {
  month: number;
  timezone: string;
  /** Archive rows of the merged track whose targets fall in days of `month`. */
  rows: readonly ArchiveRow[];
  /** Gauge totals by local date (`YYYY-MM-DD` -> inches), only for days the gauge measured. */
  gaugeDaily: ReadonlyMap<string, number>;
}

export function forecastBias(input: BiasInput): BiasResult {
  const zone = timeZone(input.timezone);
  const dayOf = (epoch: number) => LocalTime.fromSeconds(epoch, zone).isoDate ?? '';
  const forecast = dailyMeanSums(
    input.rows.filter((r) => inRange(r.lead_h, DAY_AHEAD_LEADS)),
    dayOf,
  );
  const analysis = dailyMeanSums(
    input.rows.filter((r) => r.lead_h === 0),
    dayOf,
  );
  let observedIn = 0;
  let forecastIn = 0;
  let samples = 0;
  const sources = new Set<'gauge' | 'model_archive'>();
  for (const [day, promised] of forecast) {
    if (promised < INFORMATIVE_FORECAST_IN) continue;
    const gauge = input.gaugeDaily.get(day);
    const observed = gauge ?? analysis.get(day);
    if (observed === undefined) continue;
    sources.add(gauge === undefined ? 'model_archive' : 'gauge');
    observedIn += observed;
    forecastIn += promised;
    samples += 1;
  }
  const trained = samples >= BIAS_MIN_SAMPLES && forecastIn > 0;
  const ratio = trained ? Math.min(CLAMP[1], Math.max(CLAMP[0], observedIn / forecastIn)) : 1;
  return {
    month: input.month,
    multiplier: Number(ratio.toFixed(3)),
    sample_count: samples,
    min_samples: BIAS_MIN_SAMPLES,
    trained,
    observed_in: samples > 0 ? Number(observedIn.toFixed(3)) : null,
    forecast_in: samples > 0 ? Number(forecastIn.toFixed(3)) : null,
    observed_source: sources.size === 0 ? 'none' : sources.size === 2 ? 'mixed' : [...sources][0]!,
  };
}

/** The bias of a month nothing was learnt in yet (a replay without an archive, a test): multiplier 1, untrained. */
export function untrainedBias(month: number): BiasResult {
  return forecastBias({ month, timezone: 'UTC', rows: [], gaugeDaily: new Map() });
}

/**
 * Per local day, the sum over its target hours of the mean forecast amount
 * for that hour (several fetches forecast the same hour). A day counts only
 * when every one of its hours has an amount: a gap cannot prove a dry hour.
 */
function dailyMeanSums(rows: readonly ArchiveRow[], dayOf: (epoch: number) => string): Map<string, number> {
  const byHour = new Map<number, number[]>();
  for (const row of rows) {
    if (row.precip_in === null) continue;
    byHour.set(row.target_epoch, [...(byHour.get(row.target_epoch) ?? []), row.precip_in]);
  }
  const days = new Map<string, { sum: number; hours: number }>();
  for (const [target, amounts] of byHour) {
    const day = dayOf(target);
    const entry = days.get(day) ?? { sum: 0, hours: 0 };
    entry.sum += amounts.reduce((a, b) => a + b, 0) / amounts.length;
    entry.hours += 1;
    days.set(day, entry);
  }
  return new Map([...days].filter(([, d]) => d.hours >= 23).map(([day, d]) => [day, d.sum]));
}

function inRange(value: number, [low, high]: [number, number]): boolean {
  return value >= low && value <= high;
}
