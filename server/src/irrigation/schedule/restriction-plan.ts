import type { CycleSoakPlan } from '../../agronomy/soil/water-balance';
import type { RaincheckConfig } from '../../config/schema';
import type { EngineContext } from '../engine/context';
import type { ResolvedZone } from '../engine/zone-inputs';
import {
  allowedWeekdaysOf,
  dayCaps,
  dayVerdict,
  restrictionRulesOf,
  type DayCaps,
} from './restriction-calendar';

/**
 * The restrictions as the engine's plan reads them (engine/context.ts): which
 * plan dates are allowed and why the others are not, and today's minute caps.
 */
export function restrictionContext(
  config: Pick<RaincheckConfig, 'restrictions' | 'engine'>,
  dates: readonly string[],
): {
  allowed_dates: Set<string>;
  allowed_days: number[];
  restriction_why: Map<string, string>;
  restriction_caps_today: DayCaps;
} {
  const rules = restrictionRulesOf(config);
  const allowed = new Set<string>();
  const why = new Map<string, string>();
  for (const date of dates) {
    const verdict = dayVerdict(rules, date);
    if (verdict.allowed) allowed.add(date);
    else why.set(date, verdict.why as string);
  }
  const today = dates[0];
  return {
    allowed_dates: allowed,
    allowed_days: allowedWeekdaysOf(rules, dates),
    restriction_why: why,
    restriction_caps_today:
      today === undefined
        ? { max_minutes_per_day: null, max_minutes_per_session: null }
        : dayCaps(rules, today),
  };
}

/**
 * The plan never asks for more than dispatch will give: a zone's run ceiling
 * (`max_run_minutes`, 60 when unset) is lowered to today's tightest
 * restriction cap (per day or per session, whichever is less), so the rest of
 * a deficit carries into the next session like any capped run.
 */
export function withRestrictionCaps(zones: ResolvedZone[], caps: DayCaps): ResolvedZone[] {
  const caps_ = [caps.max_minutes_per_day, caps.max_minutes_per_session].filter(
    (c): c is number => c !== null,
  );
  if (caps_.length === 0) return zones;
  const cap = Math.min(...caps_);
  return zones.map((z) => ((z.max_run_minutes ?? 60) <= cap ? z : { ...z, max_run_minutes: cap }));
}

/**
 * Sessions a watering-ahead day may hold, each within the zone's run ceiling
 * (`max_run_minutes`): a root zone deeper than one session refills to field
 * capacity before the restricted stretch instead of carrying the rest past it.
 */
export const AHEAD_SESSIONS = 2;

/**
 * The day's run ceiling, minutes, on a soil zone's watering-ahead day (the
 * next plan day is restricted): AHEAD_SESSIONS sessions of `sessionMinutes`,
 * never past the date's `max_minutes_per_day` nor 360 min; null on any other
 * day (one session). The sessions are split by `splitIntoSessions`.
 */
export function aheadCeilingMinutes(
  ctx: Pick<EngineContext, 'dates' | 'allowed_dates' | 'run_window'>,
  d: number,
  sessionMinutes: number,
): number | null {
  const next = ctx.dates[d + 1];
  const date = ctx.dates[d];
  if (date === undefined || next === undefined || ctx.allowed_dates.has(next)) return null;
  const perDay = dayCaps(ctx.run_window.rules, date).max_minutes_per_day;
  const ceiling = Math.min(AHEAD_SESSIONS * sessionMinutes, MAX_DAY_MINUTES, perDay ?? Infinity);
  return Math.max(sessionMinutes, Math.floor(ceiling));
}

const MAX_DAY_MINUTES = 360;

/**
 * A day's cycles with none longer than one session (`sessionS`): a longer
 * cycle becomes near-equal sessions with the soak between, so each run the
 * scheduler dispatches stays within the zone's ceiling and the restrictions'
 * per-session cap.
 */
export function splitIntoSessions(plan: CycleSoakPlan, sessionS: number): CycleSoakPlan {
  if (sessionS <= 0 || plan.cycles.every((c) => c.run_s <= sessionS)) return plan;
  const cycles = plan.cycles.flatMap((c) => {
    const parts = Math.ceil(c.run_s / sessionS);
    const base = Math.floor(c.run_s / parts);
    return Array.from({ length: parts }, (_, i) => ({ run_s: base + (i < c.run_s - base * parts ? 1 : 0) }));
  });
  const runS = cycles.reduce((s, c) => s + c.run_s, 0);
  return {
    ...plan,
    cycles,
    cycle_count: cycles.length,
    total_elapsed_s: runS + plan.soak_s * (cycles.length - 1),
  };
}

/**
 * Said on a soil zone's watering day when the restrictions forbid the next
 * day: the due check already looked across the whole stretch to the next
 * allowed day (water-plan.ts `horizonEtc`), so this refill to field capacity
 * is watering ahead of it, within AHEAD_SESSIONS sessions of the run ceiling.
 */
export function wateringAheadNote(ctx: Pick<EngineContext, 'dates' | 'allowed_dates'>, d: number): string {
  const next = ctx.dates[d + 1];
  if (next === undefined || ctx.allowed_dates.has(next)) return '';
  const later = ctx.dates.slice(d + 1).find((date) => ctx.allowed_dates.has(date));
  const within = `within ${AHEAD_SESSIONS} sessions of the run ceiling`;
  return later
    ? `; the restrictions allow no watering until ${later}: watering ahead to field capacity for the ${ctx.dates.indexOf(later) - d - 1} day(s) between, ${within}`
    : `; the restrictions allow no other watering day in the plan's ${ctx.dates.length} days: watering ahead to field capacity, ${within}`;
}
