import type { z } from 'zod';
import { lazySchema } from '../../core/zod-lazy';
import { ALL_WEEKDAYS, restrictionAllowedDays } from '../../config/restrictions';
import { restrictionsSchema } from '../../config/schema';

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

export { ALL_WEEKDAYS };

export const addressParitySchema = lazySchema((z) => {
  const weekday = z.number().int().min(0).max(6);
  return z.strictObject({
    house_number: z.number().int().min(0),
    odd_weekdays: z.array(weekday).min(1),
    even_weekdays: z.array(weekday).min(1),
  });
});

// The config's own shape (engine.restrictions), so the engine and the validator read one definition.
const rulesShape = restrictionsSchema;

export type RestrictionRules = z.output<typeof rulesShape>;

/** The config shape of the rules; refuses rules that allow no weekday at all. */
export const restrictionRulesSchema = lazySchema(() =>
  rulesShape.superRefine((rules, ctx) => {
    if (restrictionAllowedDays(rules).length === 0) {
      ctx.addIssue({ code: 'custom', message: 'the restriction rules together allow no weekday' });
    }
  }),
);

export { restrictionAllowedDays };

/** Whether `weekday` (Sun=0) is allowed by an allowed-days list; [] allows every day, as in nextRun. */
export function isWeekdayAllowed(allowedDays: readonly number[], weekday: number): boolean {
  return allowedDays.length === 0 || allowedDays.includes(weekday);
}
