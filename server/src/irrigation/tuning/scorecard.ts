import { FORECAST_RAIN_SKIP_CODES, REACTIVE_RAIN_SKIP_CODES, type AccuracyRow } from '../history/accuracy';

/**
 * The tuning report's scorecard (spec 2.5): how often a skip for forecast
 * rain was followed by the rain. A day is judged when the accuracy score
 * could pair its forecast-rain skip with the rain that fell (outcome
 * `matched` or `unneeded_skip`). `scored_days` and `confirmed_days` stay null
 * until MIN_SCORED_DAYS days could be judged: two days prove nothing about a
 * forecast. Reactive skips (rain already falling or on the ground) are
 * counted apart and never scored. Pure.
 */

export const MIN_SCORED_DAYS = 3;
/** The scorecard reads a longer window than the zones: forecast-rain skips are rare. */
export const SCORECARD_WINDOW_DAYS = 30;

export interface Scorecard {
  window_days: number;
  scored_days: number | null;
  confirmed_days: number | null;
  min_scored_days: number;
  line: string;
  reactive_days: number;
  reactive_line: string | null;
}

export function scorecardOf(rows: readonly AccuracyRow[], windowDays: number): Scorecard {
  const forecastSkips = rows.filter(
    (r) => r.verdict === 'skip' && FORECAST_RAIN_SKIP_CODES.has(r.reason_code ?? ''),
  );
  const judged = forecastSkips.filter((r) => r.outcome === 'matched' || r.outcome === 'unneeded_skip');
  const confirmed = judged.filter((r) => r.outcome === 'matched').length;
  const reactive = rows.filter(
    (r) => r.verdict === 'skip' && REACTIVE_RAIN_SKIP_CODES.has(r.reason_code ?? ''),
  ).length;
  const scored = judged.length >= MIN_SCORED_DAYS;
  return {
    window_days: windowDays,
    scored_days: scored ? judged.length : null,
    confirmed_days: scored ? confirmed : null,
    min_scored_days: MIN_SCORED_DAYS,
    line: scored
      ? `Skipped ${judged.length} day(s) for forecast rain in the last ${windowDays} that could be judged; the rain came on ${confirmed} of them.`
      : `${judged.length} forecast-rain skip(s) in the last ${windowDays} days could be judged against the rain that fell; ` +
        `the score needs ${MIN_SCORED_DAYS}.`,
    reactive_days: reactive,
    reactive_line:
      reactive === 0
        ? null
        : `Skipped ${reactive} day(s) for rain already falling or on the ground in the last ${windowDays}; these are never scored.`,
  };
}
