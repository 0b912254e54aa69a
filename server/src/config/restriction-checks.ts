import type { RestrictionRule } from './schema';
import type { ValidationEntry } from './validate';

/**
 * Whole-list checks of `[[restrictions]]` the per-rule schema cannot make:
 * - `restriction_name_duplicate`: two rules share a name (reasons name rules);
 * - `restrictions_no_weekday`: the year-round rules' `weekdays` lists share no day;
 * - `restrictions_no_day`: the year-round rules ask for both odd and even days.
 * Seasonal rules and drought bans (`no_watering`) may forbid every day for a
 * while: that is the law then, not a mistake.
 */
export function checkRestrictionRules(rules: readonly RestrictionRule[], errors: ValidationEntry[]): void {
  const seen = new Set<string>();
  rules.forEach((rule, i) => {
    if (seen.has(rule.name)) {
      errors.push({
        code: 'restriction_name_duplicate',
        path: `$.restrictions[${i}].name`,
        message: `restriction name "${rule.name}" is used twice; reasons name the rule, so names must differ`,
      });
    }
    seen.add(rule.name);
  });

  const yearRound = rules.filter((r) => !r.season);
  let days = [0, 1, 2, 3, 4, 5, 6];
  for (const rule of yearRound) if (rule.weekdays) days = days.filter((d) => rule.weekdays?.includes(d));
  if (days.length === 0) {
    errors.push({
      code: 'restrictions_no_weekday',
      path: '$.restrictions',
      message: 'the year-round restriction rules together allow no weekday; nothing could ever water',
    });
  }
  const parities = new Set(yearRound.map(parityOf).filter((p) => p !== null));
  if (parities.size > 1) {
    errors.push({
      code: 'restrictions_no_day',
      path: '$.restrictions',
      message: 'the year-round restriction rules ask for both odd and even days of the month; no day is left',
    });
  }
}

function parityOf(rule: RestrictionRule): 'odd' | 'even' | null {
  if (rule.day_parity === 'odd' || rule.day_parity === 'even') return rule.day_parity;
  if (rule.day_parity === 'house_number' && typeof rule.house_number === 'number') {
    return rule.house_number % 2 === 1 ? 'odd' : 'even';
  }
  return null;
}
