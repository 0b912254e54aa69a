import { parseHours } from '../../config/restriction-rule';
import type { RestrictionRule } from '../../config/schema';
import { addLocalDays, localDateOf, startOfLocalDate } from './local-date';
import { dayCaps, dayVerdict, ruleInSeason } from './restriction-calendar';

/**
 * The restrictions' word on one run about to start (the dispatcher asks it
 * for every run: smart, forced, scheduled, manual). Pure: rules, clock and
 * what the zone already ran today in, the verdict out.
 *
 * In order, first that speaks decides:
 * 1. today's date is forbidden (weekdays, day parity, a drought ban) ->
 *    refused, `restricted_day`;
 * 2. `now` lies in forbidden hours -> refused, `restricted_hours`;
 * 3. the zone has used up today's `max_minutes_per_day` -> refused,
 *    `restriction_daily_limit`;
 * 4. otherwise the run is cut to the shortest of: the session cap
 *    (`max_minutes_per_session`), the rest of the day's cap, and the time
 *    until the next forbidden hours begin; the note says which.
 *
 * "Today" is the local date the run starts on; a run's minutes count to that
 * date. Forbidden hours are placed on local wall-clock times of each date
 * (core/tz/local-time.ts, luxon's rules: on a DST change the wall times that
 * do not exist move forward, the repeated hour counts once, at its first
 * occurrence); a range that wraps midnight runs from its date into the next
 * one.
 */

export type GateVerdict =
  | { ok: true; seconds: number; note: string | null }
  | { ok: false; code: RestrictionRefusal; message: string };

export type RestrictionRefusal = 'restricted_day' | 'restricted_hours' | 'restriction_daily_limit';

export interface GateInput {
  rules: readonly RestrictionRule[];
  timezone: string;
  /** Epoch seconds. */
  now: number;
  /** The seconds asked for. */
  seconds: number;
  /** Seconds this zone already ran (or is running) on today's local date. */
  secondsToday: number;
}

export interface ForbiddenSpan {
  start: number;
  end: number;
  rule: string;
  text: string;
}

export function gateRun(input: GateInput): GateVerdict {
  const { rules, timezone, now } = input;
  if (rules.length === 0) return { ok: true, seconds: input.seconds, note: null };
  const today = localDateOf(now, timezone);
  const day = dayVerdict(rules, today);
  if (!day.allowed) return { ok: false, code: 'restricted_day', message: day.why as string };

  const spans = forbiddenSpans(rules, addLocalDays(today, -1, timezone), 3, timezone);
  const inside = spans.find((s) => now >= s.start && now < s.end);
  if (inside) {
    return {
      ok: false,
      code: 'restricted_hours',
      message: `restriction "${inside.rule}": no watering during ${inside.text}`,
    };
  }

  const caps = dayCaps(rules, today);
  const cuts: { seconds: number; why: string }[] = [];
  if (caps.max_minutes_per_day !== null) {
    const left = caps.max_minutes_per_day * 60 - input.secondsToday;
    if (left <= 0) {
      return {
        ok: false,
        code: 'restriction_daily_limit',
        message: `the zone has used today's ${caps.max_minutes_per_day} min allowed by the restrictions`,
      };
    }
    cuts.push({ seconds: left, why: `the ${caps.max_minutes_per_day} min a day the restrictions allow` });
  }
  if (caps.max_minutes_per_session !== null) {
    cuts.push({
      seconds: caps.max_minutes_per_session * 60,
      why: `the ${caps.max_minutes_per_session} min a session the restrictions allow`,
    });
  }
  const next = spans.filter((s) => s.start > now).sort((a, b) => a.start - b.start)[0];
  if (next) {
    cuts.push({
      seconds: next.start - now,
      why: `restriction "${next.rule}" forbids watering from ${next.text.split('-')[0]}`,
    });
  }
  const binding = cuts.filter((c) => c.seconds < input.seconds).sort((a, b) => a.seconds - b.seconds)[0];
  if (!binding) return { ok: true, seconds: input.seconds, note: null };
  return {
    ok: true,
    seconds: binding.seconds,
    note: `cut from ${input.seconds} s to ${binding.seconds} s by ${binding.why}`,
  };
}

/** The forbidden spans placed on `days` local dates from `fromDate` (each date's own rules in season). */
export function forbiddenSpans(
  rules: readonly RestrictionRule[],
  fromDate: string,
  days: number,
  timezone: string,
): ForbiddenSpan[] {
  const out: ForbiddenSpan[] = [];
  for (let i = 0; i < days; i += 1) {
    const date = addLocalDays(fromDate, i, timezone);
    const midnight = startOfLocalDate(date, timezone);
    for (const rule of rules) {
      if (!ruleInSeason(rule, date)) continue;
      for (const text of rule.forbidden_hours ?? []) {
        const range = parseHours(text);
        if (!range) continue;
        const endDay = range.to <= range.from ? 1 : 0;
        const startAt = midnight.set({ hour: Math.floor(range.from / 60), minute: range.from % 60 });
        const endBase = midnight.plus({ days: endDay });
        const endAt =
          range.to === 1440
            ? endBase.plus({ days: 1 })
            : endBase.set({ hour: Math.floor(range.to / 60), minute: range.to % 60 });
        out.push({
          start: Math.floor(startAt.seconds),
          end: Math.floor(endAt.seconds),
          rule: rule.name,
          text,
        });
      }
    }
  }
  return out;
}
