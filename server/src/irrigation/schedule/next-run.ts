import { addLocalDays, localDateOf, weekdayOf } from './local-date';
import type { NEXT_RUN_STATES } from '../snapshot-schema';
import { hasLocation, runWindow, type RunWindow } from './run-window';
import type { WindowChoice } from './window-choice';

/**
 * The snapshot's next run (spec 2.5: next_run_epoch, next_run_state,
 * next_run_day_offset, next_run_total_minutes, today_window). Pure: `now` and
 * the plan in, the answer out.
 *
 * Days are local calendar days: offset 0 is `now`'s local date, offset d is d
 * calendar days later (DST-safe). A day is a candidate when it has planned
 * water (> 0 s) and its weekday is allowed. The next run is the earliest
 * candidate whose window can be placed and has not begun:
 *
 * - a day's window counts as passed once its start is reached (now >= start):
 *   that run is dispatched (or missed) and no longer "next", so the answer
 *   moves on to a later day. In practice this is today's window (or, for a
 *   run long enough to start the evening before, tomorrow's); a passed day
 *   counts as having no planned water;
 * - a candidate day without a sunrise (polar day/night) is passed over; the
 *   first later candidate with a sunrise is the next run.
 *
 * States, first match wins:
 * 1. `no_location`: lat or lon missing (no window can be placed at all);
 * 2. `no_water_planned`: no day in the 7 whose window has not begun has
 *    planned water;
 * 3. `no_legal_day`: water is planned, but on no allowed weekday;
 * 4. `no_sunrise`: water is planned on allowed days, but none of them has a sunrise;
 * 5. `at`: otherwise.
 *
 * When the state is not `at`: next_run_epoch = 0 (the spec's "no time" value,
 * as pause_until_epoch 0 = no pause), next_run_day_offset = 0 and
 * next_run_total_minutes = 0; none of them names a run.
 *
 * next_run_total_minutes is the day's planned seconds rounded up to whole
 * minutes, so any planned water reads at least 1 minute.
 * today_window is today's window for today's planned seconds (a zero-length
 * window at sunrise when nothing is planned today), shown even when it has
 * passed. The snapshot field is a required object (snapshot-schema.ts), so
 * when today has no sunrise or there is no location it is the empty window
 * `{start: 0, finish: 0, kind: 'pre_dawn', min_temp_f}` (epoch 0 = no time,
 * as for next_run_epoch).
 */

export const NEXT_RUN_DAYS = 7;

/** Spec 2.5 / 3 `next_run_state`. */
export type NextRunState = (typeof NEXT_RUN_STATES)[number];

export interface NextRunInput {
  /** Epoch seconds. */
  now: number;
  /** IANA name. */
  timezone: string;
  location: { lat: number | null | undefined; lon: number | null | undefined } | null | undefined;
  /** Planned seconds per local day, index 0 = today; missing entries are 0, entries past 7 are ignored. */
  plannedSecondsByDay: readonly number[];
  /** Allowed weekdays, Sun=0..Sat=6; empty = every day. Values outside 0..6 allow nothing. */
  allowedWeekdays: readonly number[];
  /** The forecast minimum (F) for each day's window, index 0 = today; missing entries are null (unknown). */
  minTempFByDay?: readonly (number | null)[];
  /** The engine's `min_temp_f` threshold. */
  minTempThresholdF: number;
  /** Where each day's window sits (window-choice.ts); absent = finish by sunrise. */
  choice?: WindowChoice;
}

export interface NextRun {
  next_run_epoch: number;
  next_run_state: NextRunState;
  next_run_day_offset: number;
  next_run_total_minutes: number;
  today_window: RunWindow;
}

export function nextRun(input: NextRunInput): NextRun {
  const planned = plannedSeconds(input.plannedSecondsByDay);
  const lat = input.location?.lat;
  const lon = input.location?.lon;
  const todayMinTempF = input.minTempFByDay?.[0] ?? null;
  if (!hasLocation(lat, lon)) return notAt('no_location', emptyWindow(todayMinTempF));

  const today = localDateOf(input.now, input.timezone);
  const windowFor = (offset: number) =>
    runWindow({
      lat,
      lon,
      timezone: input.timezone,
      dateLocal: addLocalDays(today, offset, input.timezone),
      totalRunSeconds: planned[offset] ?? 0,
      minTempF: input.minTempFByDay?.[offset] ?? null,
      minTempThresholdF: input.minTempThresholdF,
      ...(input.choice ? { choice: input.choice } : {}),
    });

  const todayResult = windowFor(0);
  const todayWindow = todayResult.state === 'ok' ? todayResult.window : emptyWindow(todayMinTempF);

  const allowed = allowedSet(input.allowedWeekdays);
  let anyPlanned = false;
  let anyLegal = false;
  for (let offset = 0; offset < NEXT_RUN_DAYS; offset += 1) {
    const seconds = planned[offset] ?? 0;
    if (seconds <= 0) continue;
    const result = offset === 0 ? todayResult : windowFor(offset);
    if (result.state === 'ok' && input.now >= result.window.start) continue;
    anyPlanned = true;
    if (allowed !== null && !allowed.has(weekdayOf(addLocalDays(today, offset, input.timezone)))) continue;
    anyLegal = true;
    if (result.state !== 'ok') continue;
    return {
      next_run_epoch: result.window.start,
      next_run_state: 'at',
      next_run_day_offset: offset,
      next_run_total_minutes: Math.ceil(seconds / 60),
      today_window: todayWindow,
    };
  }
  if (!anyPlanned) return notAt('no_water_planned', todayWindow);
  return notAt(anyLegal ? 'no_sunrise' : 'no_legal_day', todayWindow);
}

/** today_window when today has no window: epoch 0 = no time. */
export function emptyWindow(minTempF: number | null): RunWindow {
  return { start: 0, finish: 0, kind: 'pre_dawn', min_temp_f: minTempF };
}

function notAt(state: Exclude<NextRunState, 'at'>, todayWindow: RunWindow): NextRun {
  return {
    next_run_epoch: 0,
    next_run_state: state,
    next_run_day_offset: 0,
    next_run_total_minutes: 0,
    today_window: todayWindow,
  };
}

function plannedSeconds(byDay: readonly number[]): number[] {
  const out: number[] = [];
  for (let offset = 0; offset < NEXT_RUN_DAYS; offset += 1) {
    const seconds = byDay[offset] ?? 0;
    if (!Number.isFinite(seconds) || seconds < 0) {
      throw new RangeError(`plannedSecondsByDay[${offset}] must be a finite number >= 0, got ${seconds}`);
    }
    out.push(seconds);
  }
  return out;
}

/** null = every day allowed. */
function allowedSet(weekdays: readonly number[]): Set<number> | null {
  return weekdays.length === 0 ? null : new Set(weekdays);
}
