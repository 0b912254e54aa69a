import type { RaincheckConfig } from '../../config/schema';
import type { ZoneLedger } from '../engine/applied-water';
import type { EngineContext } from '../engine/context';
import type { ZonePlan } from '../engine/water-plan';
import { nextRun, type NextRun } from './next-run';
import { restrictionRulesOf } from './restriction-calendar';
import { runWindow, type RunWindowKind } from './run-window';
import { anchorOf, type WindowChoice } from './window-choice';

/**
 * Zones with their own run window (`[zones.<slug>.run_window]`, same keys as
 * `[deployment.run_window]`). Pure.
 *
 * The deployment's zones share one window placed for their summed seconds
 * (spec `today_window`); a zone with its own table has a window of its own,
 * placed for its seconds alone: its window-closed flag, its plan times
 * (`water_plan[].zones[].run_window`), the snapshot's next run and the
 * scheduler's dispatch follow it. Forbidden hours of the restrictions push
 * either kind out the same way (window-choice.ts).
 *
 * Day 0 windows are placed for what is still planned plus what already ran
 * today, so a window does not shrink shut while its zone is running.
 */

/** Each zone with its own `run_window` table: its anchor, with the restrictions' forbidden hours. */
export function zoneWindowChoices(
  config: Pick<RaincheckConfig, 'deployment' | 'restrictions' | 'engine' | 'zones'>,
): Map<string, WindowChoice> {
  const rules = restrictionRulesOf(config);
  const out = new Map<string, WindowChoice>();
  for (const [slug, zone] of Object.entries(config.zones ?? {})) {
    if (zone.run_window) out.set(slug, { anchor: anchorOf(zone.run_window), rules });
  }
  return out;
}

/** One window and the zones it holds: the deployment's first (possibly empty), then one per own window. */
interface WindowGroup {
  choice: WindowChoice;
  slugs: Set<string>;
  own: boolean;
}

function windowGroups(ctx: EngineContext, slugs: readonly string[]): WindowGroup[] {
  const shared: WindowGroup = { choice: ctx.run_window, slugs: new Set(), own: false };
  const groups = [shared];
  for (const slug of slugs) {
    const own = ctx.zone_windows.get(slug);
    if (own) groups.push({ choice: own, slugs: new Set([slug]), own: true });
    else shared.slugs.add(slug);
  }
  return groups;
}

function secondsOf(plans: readonly ZonePlan[], slugs: Set<string>, d: number): number {
  return plans.reduce((s, p) => s + (slugs.has(p.zone.slug) ? (p.days[d]?.planned_seconds ?? 0) : 0), 0);
}

function ranToday(ctx: EngineContext, ledgers: Map<string, ZoneLedger>, slugs: Set<string>): number {
  let ran = 0;
  for (const slug of slugs) ran += ledgers.get(slug)?.seconds_by_date.get(ctx.cal.today) ?? 0;
  return ran;
}

function placed(ctx: EngineContext, choice: WindowChoice, d: number, seconds: number) {
  const date = ctx.dates[d] as string;
  return runWindow({
    lat: ctx.lat,
    lon: ctx.lon,
    timezone: ctx.timezone,
    dateLocal: date,
    totalRunSeconds: seconds,
    minTempF: ctx.daily.get(date)?.temp_min_f ?? null,
    minTempThresholdF: ctx.rules.min_temp_f,
    choice,
  });
}

export interface TodayClosed {
  /** The deployment's window (`water_plan[0].window_closed`). */
  deployment: boolean;
  /** Each zone's own flag: its own window's, else the deployment's. */
  of(slug: string): boolean;
}

/**
 * Whether today's window is over, per window: placed for what is still planned
 * (`provisional`, before skip verdicts, so never less than the real plan) plus
 * what already ran today. A pre-dawn sunrise window always ends at sunrise.
 */
export function todayClosed(
  ctx: EngineContext,
  provisional: readonly ZonePlan[],
  ledgers: Map<string, ZoneLedger>,
): TodayClosed {
  const groups = windowGroups(
    ctx,
    provisional.map((p) => p.zone.slug),
  );
  const closed = groups.map((g) => {
    const w = placed(ctx, g.choice, 0, secondsOf(provisional, g.slugs, 0) + ranToday(ctx, ledgers, g.slugs));
    return w.state === 'ok' && ctx.now >= w.window.finish;
  });
  const bySlug = new Map<string, boolean>();
  groups.forEach((g, i) => g.slugs.forEach((slug) => bySlug.set(slug, closed[i] === true)));
  return { deployment: closed[0] === true, of: (slug) => bySlug.get(slug) ?? closed[0] === true };
}

/** A zone's own window on plan day `d` (`water_plan[d].zones[].run_window`); null without one or without water. */
export interface OwnWindow {
  start_epoch: number;
  finish_epoch: number;
  kind: RunWindowKind;
}

export function ownWindow(
  ctx: EngineContext,
  plan: ZonePlan,
  d: number,
  ledgers: Map<string, ZoneLedger>,
): OwnWindow | null {
  const choice = ctx.zone_windows.get(plan.zone.slug);
  const seconds = plan.days[d]?.planned_seconds ?? 0;
  if (!choice || seconds <= 0) return null;
  const ran = d === 0 ? ranToday(ctx, ledgers, new Set([plan.zone.slug])) : 0;
  const w = placed(ctx, choice, d, seconds + ran);
  if (w.state !== 'ok') return null;
  return { start_epoch: w.window.start, finish_epoch: w.window.finish, kind: w.window.kind };
}

/**
 * A plan day's `start_epoch`/`finish_epoch`: from the earliest start to the
 * latest finish of the windows that water that day (the deployment's for its
 * zones' summed seconds, each own window for its zone); null when none does.
 */
export function dayWindow(
  ctx: EngineContext,
  plans: readonly ZonePlan[],
  d: number,
  ledgers: Map<string, ZoneLedger>,
): { start: number; finish: number } | null {
  let span: { start: number; finish: number } | null = null;
  for (const g of windowGroups(
    ctx,
    plans.map((p) => p.zone.slug),
  )) {
    const seconds = secondsOf(plans, g.slugs, d);
    if (seconds <= 0) continue;
    const w = g.own
      ? ownWindow(ctx, plans.find((p) => g.slugs.has(p.zone.slug)) as ZonePlan, d, ledgers)
      : windowOnly(placed(ctx, g.choice, d, seconds));
    if (!w) continue;
    span = span
      ? { start: Math.min(span.start, w.start_epoch), finish: Math.max(span.finish, w.finish_epoch) }
      : { start: w.start_epoch, finish: w.finish_epoch };
  }
  return span;
}

function windowOnly(w: ReturnType<typeof placed>): OwnWindow | null {
  return w.state === 'ok'
    ? { start_epoch: w.window.start, finish_epoch: w.window.finish, kind: w.window.kind }
    : null;
}

/**
 * The snapshot's next run over every window: the earliest one still to come
 * (its minutes are that window's). `today_window` stays the deployment's. With
 * no window to come, the deployment's state stands unless it only says "no
 * water planned" while an own window says more.
 */
export function nextRunOverWindows(
  ctx: EngineContext,
  plans: readonly ZonePlan[],
  minTempByDay: readonly (number | null)[],
): NextRun {
  const groups = windowGroups(
    ctx,
    plans.map((p) => p.zone.slug),
  );
  const results = groups.map((g) =>
    nextRun({
      now: ctx.now,
      timezone: ctx.timezone,
      location: { lat: ctx.lat, lon: ctx.lon },
      plannedSecondsByDay: ctx.dates.map((_, d) => secondsOf(plans, g.slugs, d)),
      // [] would mean "every day" to nextRun; a drought ban that allows none says so with no valid weekday.
      allowedWeekdays: ctx.allowed_days.length > 0 ? ctx.allowed_days : [-1],
      minTempFByDay: minTempByDay,
      minTempThresholdF: ctx.rules.min_temp_f,
      choice: g.choice,
    }),
  );
  const deployment = results[0] as NextRun;
  const upcoming = results
    .filter((r) => r.next_run_state === 'at')
    .sort((a, b) => a.next_run_epoch - b.next_run_epoch)[0];
  if (upcoming) return { ...upcoming, today_window: deployment.today_window };
  const said = results.find((r) => r.next_run_state !== 'no_water_planned');
  return said ? { ...said, today_window: deployment.today_window } : deployment;
}
