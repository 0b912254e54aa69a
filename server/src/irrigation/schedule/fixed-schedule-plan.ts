import { scheduleSlug } from '../../config/schedule-config';
import type { ScheduleConfig } from '../../config/schema';
import type { LedgerRow } from '../engine/applied-water';
import type { RuleResult } from '../skip/rules';
import { floorTopUp } from './fixed-schedule-floor';
import {
  FIXED_LATE_S,
  runsOn,
  scheduleSeconds,
  scheduleSessionId,
  scheduleStartEpoch,
} from './fixed-schedule-days';
import { weekdayOf } from './local-date';

/**
 * Fixed schedules in the engine's plan (spec 2.5 `zones[].smart_suppressed`,
 * the snapshot's `schedule_runs`). Pure.
 *
 * - `override`: on its days the schedule runs as written and the smart plan
 *   of its zones stands down there (`schedule_override`); their soil
 *   projection counts the schedule's water instead.
 * - `floor`: smart watering runs as usual; the schedule tops up what it has
 *   not delivered (fixed-schedule-floor.ts).
 * - Every schedule run obeys the restrictions' date rules (`restricted_day`;
 *   hours and minutes at dispatch) and, unless `ignore_skip_rules`, the
 *   measured skip rules proven today (raining now, freeze, soil frost, wind
 *   now), freeze judged over the run's own hours from its start: days after
 *   today cannot know those yet and are planned. A pause holds every
 *   schedule run.
 * - Today's run has a window of its own, from its start for FIXED_LATE_S
 *   (the scheduler's catch-up): `window_closed` follows that, never the
 *   smart run window.
 */

/** Skip rules a fixed schedule obeys: what is measured now, not what the forecast expects. */
export const MEASURED_SKIP_RULES: ReadonlySet<string> = new Set([
  'rain_now',
  'freeze',
  'soil_frost',
  'wind_now',
]);

// Type aliases (not interfaces): the snapshot's open objects take them as they are.
export type SmartSuppressed = {
  weekdays: number[];
  schedules: string[];
  active_today: boolean;
};

export type ScheduleRun = {
  schedule: string;
  schedule_slug: string;
  mode: 'override' | 'floor';
  zone: string;
  date_local: string;
  day_offset: number;
  /** Null when a sun-relative start does not exist that day. */
  start_epoch: number | null;
  /** Seconds it will run (0 when held, met or unsizable). */
  planned_seconds: number;
  /** What the schedule asks for; null when a depth cannot be sized. */
  target_seconds: number | null;
  /** Floor schedules: what counted as delivered (fixed-schedule-floor.ts); null for override. */
  delivered_seconds: number | null;
  reason_code: string;
  reason: string;
  session_id: string;
  /** Day 0 only: its own start is more than FIXED_LATE_S past, so a run not begun will not start today. */
  window_closed?: boolean;
};

export interface FixedScheduleInput {
  schedules: readonly ScheduleConfig[];
  /** Today and the 6 plan days after it. */
  dates: readonly string[];
  now: number;
  timezone: string;
  lat: number;
  lon: number;
  allowedDates: ReadonlySet<string>;
  restrictionWhy: ReadonlyMap<string, string>;
}

export class FixedSchedules {
  constructor(private readonly input: FixedScheduleInput) {}

  /** Enabled override schedules of the zone that run on the date. */
  overridesOn(zone: string, dateLocal: string): ScheduleConfig[] {
    return this.input.schedules.filter(
      (s) => s.mode === 'override' && s.zones.includes(zone) && runsOn(s, dateLocal),
    );
  }

  /** The smart plan's reason on an override day. */
  suppressionReason(zone: string, dateLocal: string): string | null {
    const names = this.overridesOn(zone, dateLocal).map((s) => `"${s.name}"`);
    if (names.length === 0) return null;
    return `the override schedule ${names.join(' and ')} waters this zone on ${dateLocal}: smart watering stands down`;
  }

  /** Spec `smart_suppressed`: over the seven plan days; null when no enabled override schedule runs the zone in them. */
  smartSuppressed(zone: string): SmartSuppressed | null {
    const weekdays = new Set<number>();
    const names = new Set<string>();
    for (const date of this.input.dates) {
      for (const s of this.overridesOn(zone, date)) {
        weekdays.add(weekdayOf(date));
        names.add(s.name);
      }
    }
    if (names.size === 0) return null;
    const today = this.input.dates[0];
    return {
      weekdays: [...weekdays].sort((a, b) => a - b),
      schedules: [...names].sort(),
      active_today: today !== undefined && this.overridesOn(zone, today).length > 0,
    };
  }

  /**
   * Override seconds the soil projection counts on a date: allowed dates only,
   * and today only before the start (after it, a run that happened is in the ledger).
   */
  projectedSeconds(zone: string, precipRateMmHr: number | null, dateLocal: string): number {
    if (!this.input.allowedDates.has(dateLocal)) return 0;
    let total = 0;
    for (const s of this.overridesOn(zone, dateLocal)) {
      if (dateLocal === this.input.dates[0]) {
        const start = this.startOf(s, dateLocal);
        if (start === null || start <= this.input.now) continue;
      }
      total += scheduleSeconds(s, zone, precipRateMmHr) ?? 0;
    }
    return total;
  }

  startOf(schedule: ScheduleConfig, dateLocal: string): number | null {
    const { timezone, lat, lon } = this.input;
    return scheduleStartEpoch(schedule, dateLocal, timezone, lat, lon);
  }

  /** Every schedule run of the seven plan days, in date, start and schedule order. */
  plan(evidence: {
    rates: ReadonlyMap<string, number | null>;
    /** Today's skip rule results (the live skip check) over a run's own hours `[start, finish)`. */
    todayRules: (start: number, finish: number) => readonly RuleResult[];
    runs: readonly (LedgerRow & { session_id: string | null })[];
    /** Smart planned seconds of a zone on a plan date (0 when the day's water will not run). */
    smartSeconds: (zone: string, dateLocal: string) => number;
    /** Today's smart window finish of a zone (epoch: its own window's, else the deployment's), null when none. */
    smartFinishToday: (zone: string) => number | null;
  }): ScheduleRun[] {
    const out: ScheduleRun[] = [];
    this.input.dates.forEach((date, d) => {
      for (const s of this.input.schedules) {
        if (!runsOn(s, date)) continue;
        for (const zone of s.zones) out.push(withClosedNote(this.entry(s, zone, date, d, evidence)));
      }
    });
    return out.sort(
      (a, b) =>
        a.day_offset - b.day_offset ||
        (a.start_epoch ?? 0) - (b.start_epoch ?? 0) ||
        a.schedule.localeCompare(b.schedule) ||
        a.zone.localeCompare(b.zone),
    );
  }

  private entry(
    s: ScheduleConfig,
    zone: string,
    date: string,
    d: number,
    evidence: Parameters<FixedSchedules['plan']>[0],
  ): ScheduleRun {
    const start = this.startOf(s, date);
    const target = scheduleSeconds(s, zone, evidence.rates.get(zone) ?? null);
    const base = {
      schedule: s.name,
      schedule_slug: scheduleSlug(s.name),
      mode: s.mode,
      zone,
      date_local: date,
      day_offset: d,
      start_epoch: start,
      target_seconds: target,
      delivered_seconds: null as number | null,
      session_id: scheduleSessionId(s, date, zone),
      ...(d === 0 && start !== null ? { window_closed: this.input.now >= start + FIXED_LATE_S } : {}),
    };
    const held = (reason_code: string, reason: string): ScheduleRun => ({
      ...base,
      planned_seconds: 0,
      reason_code,
      reason,
    });
    const label = `schedule "${s.name}" (${s.mode})`;
    if (target === null) {
      return held(
        'schedule_unsized',
        `${label}: depth_mm needs the zone's precipitation rate, which is unknown`,
      );
    }
    if (start === null)
      return held('schedule_no_start', `${label}: no ${s.start.replace(/[+-].*/, '')} on ${date}`);
    if (!this.input.allowedDates.has(date)) {
      return held(
        'restricted_day',
        this.input.restrictionWhy.get(date) ?? `restrictions do not allow ${date}`,
      );
    }
    if (d === 0) {
      const rules = evidence.todayRules(start, start + target);
      const paused = rules.find((r) => r.rule === 'paused' && r.verdict === 'skip');
      if (paused) return held(paused.reason_code, paused.reason);
      const measured = s.ignore_skip_rules
        ? undefined
        : rules.find((r) => r.verdict === 'skip' && MEASURED_SKIP_RULES.has(r.rule));
      if (measured) return held(measured.reason_code, `${label} held: ${measured.reason}`);
    }
    if (s.mode === 'override') {
      return {
        ...base,
        planned_seconds: target,
        reason_code: 'schedule_run',
        reason: `${label}: ${target} s as written`,
      };
    }
    const floor = floorTopUp({
      schedule: s,
      zone,
      date,
      start,
      targetSeconds: target,
      today: this.input.dates[0] as string,
      runs: evidence.runs,
      smartSeconds: evidence.smartSeconds,
      smartFinishToday: evidence.smartFinishToday(zone),
      timezone: this.input.timezone,
    });
    return {
      ...base,
      delivered_seconds: floor.delivered_seconds,
      planned_seconds: floor.top_up_seconds,
      reason_code: floor.top_up_seconds > 0 ? 'schedule_floor_top_up' : 'schedule_floor_met',
      reason: `${label}: ${floor.why}`,
    };
  }
}

/** Today's run whose own window is over says so; what ran is in the run ledger. */
function withClosedNote(run: ScheduleRun): ScheduleRun {
  if (run.window_closed !== true) return run;
  const late = FIXED_LATE_S / 60;
  return {
    ...run,
    reason: `${run.reason}; its start is more than ${late} minutes past: today's run is over`,
  };
}
