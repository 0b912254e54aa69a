import { sessionDays, weeklyBudget, type WeeklyBudget } from '../../agronomy/soil/water-balance';
import type { ObservedRainSource } from '../snapshot-schema';
import type { RainEvidence } from './soil-model';

/**
 * The weekly budget model (spec 2.5 water budget row, spec 8 session spacing).
 *
 * - Trailing observed rain: the 7 completed local days before today, each
 *   from the gauge when it measured, else the forecast archive (`past_daily`),
 *   else unknown (excluded, never 0). Credited after the per-day cap.
 * - Applied: gross mm (valve-open union x precip rate) over the 7 local days
 *   ending today (today included, so a run already made today counts).
 * - Sessions: `remaining = sessions_per_week - watering days in that window`
 *   (floor 1 from `weeklyBudget`). The next session is due `floor(7/n)` days
 *   after the newest watering day (today when none), and the plan's session
 *   days are that day plus `sessionDays(n)`, keeping the first `remaining`
 *   that fall inside the 7-day plan.
 * - Run length: mm_per_session is GROSS depth (the budget is in gross terms),
 *   so seconds = mm / rate x 3600 (capture efficiency not applied again).
 */

export interface WeeklyPlan {
  budget: WeeklyBudget;
  observed_rain_source: ObservedRainSource;
  /** Plan day offsets (0..6) that are session days. */
  session_offsets: number[];
  next_due_offset: number;
}

export function observedRainSource(days: readonly RainEvidence[]): ObservedRainSource {
  const known = days.filter((d) => d.rain_mm !== null);
  if (known.length === 0) return 'none';
  return known.some((d) => d.source !== 'gauge') ? 'model_archive' : 'gauge';
}

/**
 * @param lastWaterOffset offset (<= 0) of the newest local day with watering
 *   evidence in the trailing window, or null when none.
 */
export function weeklyPlan(args: {
  weekly_budget_in: number;
  sessions_per_week: number;
  trailing_rain: readonly RainEvidence[];
  applied_mm: number;
  cap_mm: number | null;
  cap_inferred: boolean;
  completed_sessions: number;
  forecast_credit_mm: number;
  last_water_offset: number | null;
}): WeeklyPlan {
  const budget = weeklyBudget({
    weekly_budget_in: args.weekly_budget_in,
    sessions_per_week: args.sessions_per_week,
    observed_rain_by_day: args.trailing_rain.map((d) => d.rain_mm),
    applied_mm: args.applied_mm,
    cap_mm: args.cap_mm,
    cap_inferred: args.cap_inferred,
    completed_sessions: args.completed_sessions,
    forecast_credit_mm: args.forecast_credit_mm,
  });
  const nextDue =
    args.last_water_offset === null ? 0 : Math.max(0, args.last_water_offset + budget.session_spacing_days);
  const offsets = sessionDays(args.sessions_per_week)
    .map((o) => nextDue + o)
    .filter((o) => o <= 6)
    .slice(0, budget.remaining_sessions);
  return {
    budget,
    observed_rain_source: observedRainSource(args.trailing_rain),
    session_offsets: offsets,
    next_due_offset: nextDue,
  };
}
