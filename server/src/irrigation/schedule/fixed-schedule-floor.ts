import type { ScheduleConfig } from '../../config/schema';
import { isWateringEvidence, type LedgerRow } from '../engine/applied-water';
import { previousRunDay, schedulePrefix } from './fixed-schedule-days';
import { localDateOf } from './local-date';

/**
 * The floor rule: a `floor` schedule tops a zone up to its own amount,
 * counting what other watering already gave it since the schedule's
 * previous day. Pure.
 *
 * For the schedule's run on date D at time T (target: its seconds for the zone):
 * - the span is the local dates after P, the schedule's previous calendar
 *   day before D (a year back at most; D alone when there is none), through D;
 * - delivered = the seconds of the zone's watering rows (the run ledger's
 *   watering evidence, any source, the schedule's own sessions left out)
 *   started on a date of the span, on D only before T;
 *   plus the smart plan's seconds still planned on span dates from today
 *   until before D, and on D itself when D is today and today's smart window
 *   ends by T (a later day's smart run is not counted ahead: the plan may
 *   show a top-up that the day's own decision then finds met);
 * - top-up = max(0, target - delivered), in whole seconds.
 * Seconds, not depths: the same zone, the same sprinklers.
 */

export interface FloorInput {
  schedule: ScheduleConfig;
  zone: string;
  date: string;
  /** The schedule's start on `date` (epoch seconds). */
  start: number;
  targetSeconds: number;
  today: string;
  runs: readonly (LedgerRow & { session_id: string | null })[];
  smartSeconds: (zone: string, dateLocal: string) => number;
  /** Today's smart window finish (epoch seconds); null when none. */
  smartFinishToday: number | null;
  timezone: string;
}

export interface FloorOutcome {
  delivered_seconds: number;
  top_up_seconds: number;
  why: string;
}

export function floorTopUp(input: FloorInput): FloorOutcome {
  const { schedule, zone, date, start, targetSeconds } = input;
  const previous = previousRunDay(schedule, date);
  const inSpan = (d: string) => (previous === null ? d === date : d > previous && d <= date);
  const own = schedulePrefix(schedule);

  let recorded = 0;
  for (const row of input.runs) {
    if (row.zone !== zone || !isWateringEvidence(row)) continue;
    if (row.session_id?.startsWith(own)) continue;
    const day = localDateOf(row.start_epoch, input.timezone);
    if (!inSpan(day) || (day === date && row.start_epoch >= start)) continue;
    recorded += row.duration_s;
  }

  let planned = 0;
  for (let d = input.today; d <= date; d = nextDate(d)) {
    if (!inSpan(d)) continue;
    const seconds = input.smartSeconds(zone, d);
    if (d < date) planned += seconds;
    else if (d === input.today && input.smartFinishToday !== null && input.smartFinishToday <= start)
      planned += seconds;
  }

  const delivered = Math.round(recorded + planned);
  const topUp = Math.max(0, Math.round(targetSeconds - delivered));
  const since = previous === null ? `on ${date}` : `since ${previous}`;
  const parts = [`${recorded} s recorded`, ...(planned > 0 ? [`${Math.round(planned)} s planned`] : [])];
  const why =
    topUp > 0
      ? `target ${targetSeconds} s, smart watering gave ${delivered} s ${since} (${parts.join(', ')}): ${topUp} s top-up`
      : `target ${targetSeconds} s already met: smart watering gave ${delivered} s ${since} (${parts.join(', ')})`;
  return { delivered_seconds: delivered, top_up_seconds: topUp, why };
}

function nextDate(date: string): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
}
