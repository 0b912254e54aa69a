import type { z } from 'zod';
import type { RestrictionRule, restrictionsSchema } from './schema';

/**
 * The weekdays (Sun=0) watering restrictions allow: `allowed_weekdays` and the
 * odd/even `address_parity` rule apply together. No rule allows every day.
 * The validator refuses rules that allow none; the engine schedules by it.
 */

export type RestrictionRules = z.output<typeof restrictionsSchema>;

export const ALL_WEEKDAYS: readonly number[] = [0, 1, 2, 3, 4, 5, 6];

export function restrictionAllowedDays(rules: RestrictionRules | null | undefined): number[] {
  let days = [...ALL_WEEKDAYS];
  const listed = rules?.allowed_weekdays;
  if (listed && listed.length > 0) days = days.filter((d) => listed.includes(d));
  const parity = rules?.address_parity;
  if (parity) {
    const list = parity.house_number % 2 === 1 ? parity.odd_weekdays : parity.even_weekdays;
    days = days.filter((d) => list.includes(d));
  }
  return days;
}

/**
 * The legacy table as `[[restrictions]]` rules (the engine reads both; the
 * next save writes these in its place, migrate.ts). The house-number rule
 * becomes the weekday list its house number picks; the rule's name keeps the
 * number.
 */
export function legacyRestrictionRules(rules: RestrictionRules | null | undefined): RestrictionRule[] {
  const out: RestrictionRule[] = [];
  const listed = rules?.allowed_weekdays;
  if (listed && listed.length > 0) {
    out.push({ name: 'allowed weekdays', weekdays: [...new Set(listed)].sort((a, b) => a - b) });
  }
  const parity = rules?.address_parity;
  if (parity) {
    const odd = parity.house_number % 2 === 1;
    out.push({
      name: `house number ${parity.house_number} (${odd ? 'odd' : 'even'} addresses' weekdays)`,
      weekdays: [...(odd ? parity.odd_weekdays : parity.even_weekdays)],
    });
  }
  return out;
}
