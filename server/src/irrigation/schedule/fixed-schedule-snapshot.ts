import type { EngineContext } from '../engine/context';
import type { EngineOutput } from '../engine/types';
import type { ZonePlan } from '../engine/water-plan';
import type { ResolvedZone } from '../engine/zone-inputs';
import type { RuleResult } from '../skip/rules';

/**
 * The fixed schedules' runs in the snapshot: each water plan day gets its
 * `schedule_runs` (fixed-schedule-plan.ts), sized against the smart plan just
 * made (the floor rule reads it). The scheduler dispatches today's.
 */
export function withScheduleRuns(
  output: EngineOutput,
  ctx: EngineContext,
  plans: readonly ZonePlan[],
  zones: readonly ResolvedZone[],
  todayRules: readonly RuleResult[],
  todayWindowClosed: boolean,
): EngineOutput {
  if ((ctx.input.config.schedules ?? []).length === 0) return output;
  const bySlug = new Map(plans.map((p) => [p.zone.slug, p]));
  const window = output.snapshot.today_window;
  const runs = ctx.fixed.plan({
    rates: new Map(zones.map((z) => [z.slug, z.precip_rate_mm_hr])),
    todayRules,
    runs: ctx.input.runs,
    smartSeconds: (zone, date) => {
      const d = ctx.dates.indexOf(date);
      if (d < 0 || (d === 0 && todayWindowClosed)) return 0;
      return bySlug.get(zone)?.days[d]?.planned_seconds ?? 0;
    },
    smartFinishToday: window.finish > window.start ? window.finish : null,
  });
  for (const day of output.snapshot.water_plan) {
    day.schedule_runs = runs.filter((r) => r.date_local === day.date_local);
  }
  return output;
}
