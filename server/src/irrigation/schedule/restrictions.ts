import { z } from 'zod';

/**
 * Watering restrictions (spec 2.5 `restriction_allowed_days`): the weekdays
 * local rules allow, Sun=0..Sat=6. Pure.
 *
 * A minimal model of the rules water utilities publish:
 * - `allowed_weekdays`: the weekdays anyone may water;
 * - `address_parity`: the common odd/even house-number rule ("odd addresses
 *   water Wednesday and Saturday, even addresses Thursday and Sunday"): the
 *   house number picks one of the two lists.
 * Both rules apply together (intersection). No rule (absent, null, or an
 * empty `allowed_weekdays`) allows every day.
 *
 * The answer is always explicit: every day is [0, 1, 2, 3, 4, 5, 6], never [].
 * Rules that contradict each other would allow no day, which nextRun's
 * `allowedWeekdays` cannot express ([] means every day there); the schema
 * below rejects them, and restrictionAllowedDays answers [] only for rules
 * that skipped it.
 */

export const ALL_WEEKDAYS: readonly number[] = [0, 1, 2, 3, 4, 5, 6];

const weekday = z.number().int().min(0).max(6);

export const addressParitySchema = z.strictObject({
  house_number: z.number().int().min(0),
  odd_weekdays: z.array(weekday).min(1),
  even_weekdays: z.array(weekday).min(1),
});

const rulesShape = z.strictObject({
  allowed_weekdays: z.array(weekday).nullish(),
  address_parity: addressParitySchema.nullish(),
});

export type RestrictionRules = z.output<typeof rulesShape>;

/** The config shape of the rules; refuses rules that allow no weekday at all. */
export const restrictionRulesSchema = rulesShape.superRefine((rules, ctx) => {
  if (restrictionAllowedDays(rules).length === 0) {
    ctx.addIssue({ code: 'custom', message: 'the restriction rules together allow no weekday' });
  }
});

/** Sorted, distinct weekdays the rules allow. */
export function restrictionAllowedDays(rules: RestrictionRules | null | undefined): number[] {
  let days = new Set<number>(ALL_WEEKDAYS);
  const listed = rules?.allowed_weekdays;
  if (listed && listed.length > 0) days = intersect(days, listed);
  const parity = rules?.address_parity;
  if (parity)
    days = intersect(days, parity.house_number % 2 === 1 ? parity.odd_weekdays : parity.even_weekdays);
  return [...days].sort((a, b) => a - b);
}

/** Whether `weekday` (Sun=0) is allowed by an allowed-days list; [] allows every day, as in nextRun. */
export function isWeekdayAllowed(allowedDays: readonly number[], weekday: number): boolean {
  return allowedDays.length === 0 || allowedDays.includes(weekday);
}

function intersect(days: Set<number>, allowed: readonly number[]): Set<number> {
  const keep = new Set(allowed);
  return new Set([...days].filter((d) => keep.has(d)));
}
