import type { LocalTime } from '../../core/tz/local-time';
import { parseClock } from '../../config/restriction-rule';
import type { RaincheckConfig, RestrictionRule, RunWindowConfig } from '../../config/schema';
import { addLocalDays, startOfLocalDate } from './local-date';
import { restrictionRulesOf } from './restriction-calendar';
import { forbiddenSpans } from './restriction-gate';

/**
 * Where a plan day's run sits (`[deployment.run_window]`), and the
 * forbidden hours it keeps out of. Pure.
 *
 * - `finish_by = "sunrise"` (the default): the run ends at sunrise (the frost
 *   rule may move it after sunrise, run-window.ts);
 * - `finish_by = "HH:MM"`: the run ends at that local time on its plan day D
 *   and starts as early as its length needs (possibly on D-1);
 * - `start_at = "HH:MM"`: the run starts at that local time on D.
 * Local times follow the day's own offset: on a spring-forward day a time
 * inside the skipped hour is read one hour later (02:30 -> 03:30), on a
 * fall-back day a repeated time is its first occurrence.
 *
 * Forbidden hours (`[[restrictions]]`): a window that would overlap them is
 * moved out: a finish-by window earlier, to end when they begin; a start-at
 * window later, to start when they end. Then the dispatcher's gate still has
 * the last word on each run.
 */

export type WindowAnchor =
  | { kind: 'finish_by_sunrise' }
  | { kind: 'finish_by'; minutes: number }
  | { kind: 'start_at'; minutes: number };

export interface WindowChoice {
  anchor: WindowAnchor;
  /** The restrictions whose forbidden hours the window keeps out of. */
  rules: readonly RestrictionRule[];
}

export const SUNRISE_CHOICE: WindowChoice = { anchor: { kind: 'finish_by_sunrise' }, rules: [] };

export function anchorOf(table: RunWindowConfig | null | undefined): WindowAnchor {
  const start = table?.start_at ? parseClock(table.start_at) : null;
  if (start !== null) return { kind: 'start_at', minutes: start };
  const finish = table?.finish_by && table.finish_by !== 'sunrise' ? parseClock(table.finish_by) : null;
  if (finish !== null) return { kind: 'finish_by', minutes: finish };
  return { kind: 'finish_by_sunrise' };
}

/** The deployment's choice (`[deployment.run_window]`) with the restrictions in force. */
export function windowChoiceOf(
  config: Pick<RaincheckConfig, 'deployment' | 'restrictions' | 'engine'>,
): WindowChoice {
  return { anchor: anchorOf(config.deployment.run_window), rules: restrictionRulesOf(config) };
}

/** Start and finish of a time-anchored window on `dateLocal` (epoch seconds). */
export function placeAtTime(
  anchor: Exclude<WindowAnchor, { kind: 'finish_by_sunrise' }>,
  dateLocal: string,
  timezone: string,
  seconds: number,
): { start: number; finish: number } {
  const at = wallTime(startOfLocalDate(dateLocal, timezone), anchor.minutes);
  return anchor.kind === 'start_at'
    ? { start: at, finish: at + seconds }
    : { start: at - seconds, finish: at };
}

function wallTime(midnight: LocalTime, minutes: number): number {
  return Math.floor(midnight.set({ hour: Math.floor(minutes / 60), minute: minutes % 60 }).seconds);
}

/** The window moved out of forbidden hours (see the module comment); unchanged without any. */
export function avoidForbidden(
  window: { start: number; finish: number },
  anchor: WindowAnchor,
  rules: readonly RestrictionRule[],
  dateLocal: string,
  timezone: string,
): { start: number; finish: number } {
  if (rules.length === 0) return window;
  const spans = forbiddenSpans(rules, addLocalDays(dateLocal, -2, timezone), 4, timezone);
  if (spans.length === 0) return window;
  let { start, finish } = window;
  const length = finish - start;
  // A few passes settle any chain of adjacent spans; more would mean the day has no room at all.
  for (let pass = 0; pass < 8; pass += 1) {
    const hit = spans.find((s) => start < s.end && finish > s.start);
    if (!hit) break;
    if (anchor.kind === 'start_at') {
      start = hit.end;
      finish = start + length;
    } else {
      finish = hit.start;
      start = finish - length;
    }
  }
  return { start, finish };
}
