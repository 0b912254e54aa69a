/**
 * Scoring one local day of GET /irrigation/accuracy (pure). A day pairs the
 * verdict in force at that morning's run with the rain the station gauge
 * measured that local day, and is scored only when both are known:
 *
 * | morning verdict                         | rain >= threshold | rain < threshold |
 * |-----------------------------------------|-------------------|------------------|
 * | `skip` for forecast rain                | matched           | unneeded_skip    |
 * | `water`                                 | missed            | matched          |
 *
 * Everything else is `unscored`, with the reason:
 * - `day_in_progress`: today; its rain is not in yet;
 * - `no_verdict`: the engine recorded no decision that day (service down, no config);
 * - `reactive_skip`: a skip because it was already raining or wet (`rain_now`,
 *   `already_wet`): the rain was observed, not predicted, so it proves nothing;
 * - `not_a_rain_decision`: paused, hold, none, or a skip for wind, frost or controls;
 * - `rain_unknown`: no gauge total for the day, or a partial one below the
 *   threshold (the gauge went quiet before the day ended, so it cannot prove
 *   a dry day). Missing rain is never read as 0.
 */

export const FORECAST_RAIN_SKIP_CODES: ReadonlySet<string> = new Set([
  'rain_today_forecast',
  'rain_next_4h',
  'tomorrow_rain',
  'rain_3day',
]);
export const REACTIVE_RAIN_SKIP_CODES: ReadonlySet<string> = new Set(['rain_now', 'already_wet']);

export type Outcome = 'matched' | 'missed' | 'unneeded_skip' | 'unscored';
export type UnscoredReason =
  'day_in_progress' | 'no_verdict' | 'reactive_skip' | 'not_a_rain_decision' | 'rain_unknown';
/** `gauge`: the day's total, readings into its last hour; `gauge_partial`: the gauge stopped earlier. */
export type RainEvidence = 'gauge' | 'gauge_partial' | 'none';

export interface DayEvidence {
  date_local: string;
  /** The local day has ended. */
  complete: boolean;
  /** The instant whose verdict is judged (that morning's run, see accuracy-report.ts). */
  morning_epoch: number;
  verdict: string | null;
  reason_code: string | null;
  rain_observed_in: number | null;
  rain_evidence: RainEvidence;
}

export interface AccuracyRow extends DayEvidence {
  skipped_for_rain: boolean;
  outcome: Outcome;
  unscored_reason: UnscoredReason | null;
}

export interface AccuracyTally {
  days: number;
  scored_days: number;
  matched_days: number;
  missed_days: number;
  unneeded_skip_days: number;
  unscored_days: number;
  /** matched / scored x 100, one decimal; null when nothing was scored. */
  matched_pct: number | null;
}

function isRainSkip(day: DayEvidence): boolean {
  const code = day.reason_code ?? '';
  return day.verdict === 'skip' && (FORECAST_RAIN_SKIP_CODES.has(code) || REACTIVE_RAIN_SKIP_CODES.has(code));
}

/** true = rain reached the threshold, false = proven below it, null = unknown. */
function rained(day: DayEvidence, thresholdIn: number): boolean | null {
  if (day.rain_observed_in === null || day.rain_evidence === 'none') return null;
  if (day.rain_observed_in >= thresholdIn) return true;
  return day.rain_evidence === 'gauge' ? false : null;
}

function unscoredReason(day: DayEvidence): UnscoredReason | null {
  if (!day.complete) return 'day_in_progress';
  if (day.verdict === null) return 'no_verdict';
  if (day.verdict === 'skip' && REACTIVE_RAIN_SKIP_CODES.has(day.reason_code ?? '')) return 'reactive_skip';
  if (day.verdict === 'water' || isRainSkip(day)) return null;
  return 'not_a_rain_decision';
}

function outcomeOf(skippedForRain: boolean, wet: boolean): Outcome {
  if (skippedForRain) return wet ? 'matched' : 'unneeded_skip';
  return wet ? 'missed' : 'matched';
}

export function scoreDay(day: DayEvidence, thresholdIn: number): AccuracyRow {
  const skippedForRain = isRainSkip(day);
  const wet = rained(day, thresholdIn);
  const reason = unscoredReason(day) ?? (wet === null ? 'rain_unknown' : null);
  const outcome = reason === null && wet !== null ? outcomeOf(skippedForRain, wet) : 'unscored';
  return { ...day, skipped_for_rain: skippedForRain, outcome, unscored_reason: reason };
}

export function tally(rows: readonly AccuracyRow[]): AccuracyTally {
  const count = (outcome: Outcome) => rows.filter((r) => r.outcome === outcome).length;
  const matched = count('matched');
  const scored = rows.length - count('unscored');
  return {
    days: rows.length,
    scored_days: scored,
    matched_days: matched,
    missed_days: count('missed'),
    unneeded_skip_days: count('unneeded_skip'),
    unscored_days: rows.length - scored,
    matched_pct: scored === 0 ? null : Math.round((matched / scored) * 1000) / 10,
  };
}
