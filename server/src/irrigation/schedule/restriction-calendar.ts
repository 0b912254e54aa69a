import { legacyRestrictionRules } from '../../config/restrictions';
import { parseDateRange, parseSeason } from '../../config/restriction-rule';
import type { RaincheckConfig, RestrictionRule } from '../../config/schema';
import { weekdayOf } from './local-date';

/**
 * What the `[[restrictions]]` rules say about a local calendar date. Pure.
 *
 * A rule speaks only on the dates its `season` covers (every date without
 * one). A date is allowed when every speaking rule allows it:
 * - `weekdays`: the date's weekday (Sun=0) is listed;
 * - `day_parity`: the day of the month is odd / even, or has the parity of
 *   `house_number` (the plain day number: the 31st is odd, so an odd house
 *   waters on the 31st and on the 1st after it);
 * - `no_watering`: the date lies in none of the listed ranges.
 * The legacy `[engine.restrictions]` table counts as rules too (until the
 * next save moves it, config/migrate.ts).
 */

export interface DayVerdict {
  allowed: boolean;
  /** The first rule that forbids the date, with why; null when allowed. */
  rule: string | null;
  why: string | null;
}

/** Per-zone minute caps the speaking rules set on a date (the tightest of each); null = no cap. */
export interface DayCaps {
  max_minutes_per_day: number | null;
  max_minutes_per_session: number | null;
}

/** Every rule in force: `[[restrictions]]` and the legacy table. */
export function restrictionRulesOf(
  config: Pick<RaincheckConfig, 'restrictions' | 'engine'>,
): RestrictionRule[] {
  return [...(config.restrictions ?? []), ...legacyRestrictionRules(config.engine.restrictions ?? null)];
}

/** Whether the rule speaks on `dateLocal` (its season covers it; wrapping seasons cross the new year). */
export function ruleInSeason(rule: RestrictionRule, dateLocal: string): boolean {
  return seasonCovers(rule.season, dateLocal);
}

/** Whether an `"MM-DD..MM-DD"` season (absent = all year) covers the date; a wrapping season crosses the new year. */
export function seasonCovers(text: string | null | undefined, dateLocal: string): boolean {
  if (!text) return true;
  const season = parseSeason(text);
  if (!season) return true; // the schema refuses these; an unparsable season cannot narrow the rule
  const md = Number(dateLocal.slice(5, 7)) * 100 + Number(dateLocal.slice(8, 10));
  return season.from <= season.to
    ? md >= season.from && md <= season.to
    : md >= season.from || md <= season.to;
}

export function dayVerdict(rules: readonly RestrictionRule[], dateLocal: string): DayVerdict {
  for (const rule of rules) {
    if (!ruleInSeason(rule, dateLocal)) continue;
    const why = forbiddenBy(rule, dateLocal);
    if (why !== null) return { allowed: false, rule: rule.name, why: `restriction "${rule.name}": ${why}` };
  }
  return { allowed: true, rule: null, why: null };
}

function forbiddenBy(rule: RestrictionRule, dateLocal: string): string | null {
  const weekday = weekdayOf(dateLocal);
  if (rule.weekdays && rule.weekdays.length > 0 && !rule.weekdays.includes(weekday)) {
    return `${dateLocal} is a ${WEEKDAY_NAMES[weekday]}, not one of its watering days (${rule.weekdays
      .map((d) => WEEKDAY_NAMES[d])
      .join(', ')})`;
  }
  const parity = wantedParity(rule);
  if (parity !== null) {
    const day = Number(dateLocal.slice(8, 10));
    if ((day % 2 === 1 ? 'odd' : 'even') !== parity) {
      const whose = rule.day_parity === 'house_number' ? ` (house number ${rule.house_number})` : '';
      return `${dateLocal} is an ${parity === 'odd' ? 'even' : 'odd'} day of the month; watering is on ${parity} days${whose}`;
    }
  }
  for (const text of rule.no_watering ?? []) {
    const range = parseDateRange(text);
    if (range && dateLocal >= range.from && dateLocal <= range.to) {
      return `no watering from ${range.from} to ${range.to}`;
    }
  }
  return null;
}

function wantedParity(rule: RestrictionRule): 'odd' | 'even' | null {
  if (rule.day_parity === 'odd' || rule.day_parity === 'even') return rule.day_parity;
  if (rule.day_parity === 'house_number' && typeof rule.house_number === 'number') {
    return rule.house_number % 2 === 1 ? 'odd' : 'even';
  }
  return null;
}

export function dayCaps(rules: readonly RestrictionRule[], dateLocal: string): DayCaps {
  let perDay: number | null = null;
  let perSession: number | null = null;
  for (const rule of rules) {
    if (!ruleInSeason(rule, dateLocal)) continue;
    perDay = tighter(perDay, rule.max_minutes_per_day ?? null);
    perSession = tighter(perSession, rule.max_minutes_per_session ?? null);
  }
  return { max_minutes_per_day: perDay, max_minutes_per_session: perSession };
}

function tighter(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.min(a, b);
}

/**
 * Spec 2.5 `restriction_allowed_days`: the weekdays of the allowed dates among
 * `dates` (the next seven local days, so each weekday appears once), sorted.
 * Empty when the rules allow none of them (a drought ban).
 */
export function allowedWeekdaysOf(rules: readonly RestrictionRule[], dates: readonly string[]): number[] {
  const days = new Set(dates.filter((d) => dayVerdict(rules, d).allowed).map(weekdayOf));
  return [...days].sort((a, b) => a - b);
}

const WEEKDAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
