import type { Store } from '../../store/store';
import { addLocalDays, localDateOf, startOfLocalDate } from '../schedule/local-date';
import { scoreDay, tally, type AccuracyRow, type AccuracyTally, type DayEvidence } from './accuracy';
import { reasonCode } from './decision-record';
import { GaugeDailyRain } from './gauge-rain';

/**
 * GET /irrigation/accuracy: the last `days` local days (today included, never
 * scored while it runs), each scored by accuracy.ts.
 *
 * "That morning's verdict" is the verdict in force (the latest verdict change
 * at or before) at the day's first scheduled run row (`smart_morning` skip
 * marker or `ha_refresher` run) before local noon, or at 06:00 local when the
 * day has none. It counts only on a day for which the engine recorded a daily
 * decision: a verdict carried over a day the service was down is not that
 * day's verdict.
 */

/** Local hour judged on a day without a scheduled run row. */
export const DEFAULT_MORNING_HOUR = 6;
/** A scheduled row at or after local noon is not the morning run. */
const MORNING_ENDS_HOUR = 12;

export interface AccuracyReport {
  from_epoch: number;
  to_epoch: number;
  timezone: string;
  rain_threshold_in: number;
  rows: AccuracyRow[];
  tally: AccuracyTally;
}

export interface AccuracyQuery {
  nowEpoch: number;
  days: number;
  timezone: string;
  /** A day is wet when its gauge total reaches this (the effective `rain_skip_in`). */
  rainThresholdIn: number;
}

interface LocalDay {
  date: string;
  start: number;
  end: number;
  noon: number;
  defaultMorning: number;
}

function localDay(date: string, timezone: string): LocalDay {
  const start = startOfLocalDate(date, timezone);
  return {
    date,
    start: start.seconds,
    end: startOfLocalDate(addLocalDays(date, 1, timezone), timezone).seconds,
    noon: start.set({ hour: MORNING_ENDS_HOUR }).seconds,
    defaultMorning: start.set({ hour: DEFAULT_MORNING_HOUR }).seconds,
  };
}

/** Oldest first, ending with today. */
function localDays(nowEpoch: number, days: number, timezone: string): LocalDay[] {
  const today = localDateOf(nowEpoch, timezone);
  const list: LocalDay[] = [];
  for (let back = days - 1; back >= 0; back -= 1)
    list.push(localDay(addLocalDays(today, -back, timezone), timezone));
  return list;
}

/** The first scheduled start in [start, noon) of the day, else its default morning hour. */
function morningOf(day: LocalDay, scheduledStarts: readonly number[]): number {
  const first = scheduledStarts.find((s) => s >= day.start && s < day.noon);
  return first ?? day.defaultMorning;
}

export function buildAccuracyReport(store: Store, query: AccuracyQuery): AccuracyReport {
  const { nowEpoch, timezone } = query;
  const days = localDays(nowEpoch, query.days, timezone);
  const first = days[0] as LocalDay;
  const scheduled = store.runs.scheduledStarts(first.start, nowEpoch);
  const decided = new Set(store.decisions.decidedDates(first.date, (days.at(-1) as LocalDay).date));
  const gauge = new GaugeDailyRain(store.db);

  const rows = days.map((day) => {
    const morning = Math.min(morningOf(day, scheduled), nowEpoch);
    const transition = decided.has(day.date) ? store.decisions.transitionAt(morning) : null;
    const evidence: DayEvidence = {
      date_local: day.date,
      complete: day.end <= nowEpoch,
      morning_epoch: morning,
      verdict: transition?.verdict ?? null,
      reason_code: transition ? reasonCode(transition.reason) : null,
      ...gauge.day(day.start, day.end),
    };
    return scoreDay(evidence, query.rainThresholdIn);
  });
  return {
    from_epoch: first.start,
    to_epoch: nowEpoch,
    timezone,
    rain_threshold_in: query.rainThresholdIn,
    rows,
    tally: tally(rows),
  };
}
