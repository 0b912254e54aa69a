import type { ZoneLedger } from '../engine/applied-water';
import type { EngineContext } from '../engine/context';
import type { EngineOutput } from '../engine/types';
import type { ZonePlan } from '../engine/water-plan';
import type { ResolvedZone } from '../engine/zone-inputs';
import type { RuleResult } from '../skip/rules';
import { evaluateSkipCheck, type SkipCheckInput } from '../skip/skip-check';
import { sunriseEpoch } from './run-window';
import { ownWindow, type TodayClosed } from './zone-windows';

/**
 * The fixed schedules' runs in the snapshot: each water plan day gets its
 * `schedule_runs` (fixed-schedule-plan.ts), sized against the smart plan just
 * made (the floor rule reads it). The scheduler dispatches today's.
 *
 * A schedule runs at its own start, so today's evidence follows its hours:
 * the skip rules over `[start, start + seconds)`, and the smart water the
 * floor counts follows each zone's own window (its closed flag and finish,
 * zone-windows.ts), never the deployment's for a zone that has its own.
 */
export interface ScheduleRunsToday {
  /** Today's skip check input (the deployment's window); each run's own window replaces it. */
  skipInput: SkipCheckInput;
  closed: TodayClosed;
  ledgers: Map<string, ZoneLedger>;
}

export function withScheduleRuns(
  output: EngineOutput,
  ctx: EngineContext,
  plans: readonly ZonePlan[],
  zones: readonly ResolvedZone[],
  today: ScheduleRunsToday,
): EngineOutput {
  if ((ctx.input.config.schedules ?? []).length === 0) return output;
  const bySlug = new Map(plans.map((p) => [p.zone.slug, p]));
  const window = output.snapshot.today_window;
  const deploymentFinish = window.finish > window.start ? window.finish : null;
  const runs = ctx.fixed.plan({
    rates: new Map(zones.map((z) => [z.slug, z.precip_rate_mm_hr])),
    todayRules: rulesOverOwnHours(ctx, today.skipInput),
    runs: ctx.input.runs,
    smartSeconds: (zone, date) => {
      const d = ctx.dates.indexOf(date);
      if (d < 0 || (d === 0 && today.closed.of(zone))) return 0;
      return bySlug.get(zone)?.days[d]?.planned_seconds ?? 0;
    },
    smartFinishToday: (zone) => {
      const plan = bySlug.get(zone);
      if (!plan || !ctx.zone_windows.has(zone)) return deploymentFinish;
      return ownWindow(ctx, plan, 0, today.ledgers)?.finish_epoch ?? null;
    },
  });
  for (const day of output.snapshot.water_plan) {
    day.schedule_runs = runs.filter((r) => r.date_local === day.date_local);
  }
  return output;
}

/** The skip check over a run's own window, once per distinct window. */
function rulesOverOwnHours(
  ctx: EngineContext,
  skipInput: SkipCheckInput,
): (start: number, finish: number) => readonly RuleResult[] {
  const sunrise = sunriseEpoch(ctx.cal.today, ctx.timezone, ctx.lat, ctx.lon);
  const memo = new Map<string, readonly RuleResult[]>();
  return (start, finish) => {
    const key = `${start}..${finish}`;
    let rules = memo.get(key);
    if (!rules) {
      const kind = sunrise !== null && finish <= sunrise ? 'pre_dawn' : 'post_sunrise';
      rules = evaluateSkipCheck({
        ...skipInput,
        run_window: { start_epoch: start, finish_epoch: Math.max(finish, start + 1), kind },
      }).rules;
      memo.set(key, rules);
    }
    return rules;
  };
}
