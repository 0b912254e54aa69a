import { MM_PER_INCH } from '../../../agronomy/catalogs/units';
import { demandLines, weeklyDemand, type WeeklyDemand } from '../et-demand';
import type { ZoneEvidence } from '../evidence';
import type { Confidence, Deriver, Derivation } from '../recommendation';
import { round, roundTo } from '../stats';

/**
 * `weekly_budget_in` (weekly model) against the ET record (et-demand.ts):
 * the budget with which the weekly model would have let through exactly
 * the water the crop used over the window. Suggested, rounded to 0.05 in,
 * when it differs from the budget in force by 15 % and at least 0.1 in.
 */

export const CHANGE_SHARE = 0.15;
export const CHANGE_MIN_IN = 0.1;

export const weeklyBudgetDeriver: Deriver = {
  field: 'weekly_budget_in',
  derive(evidence: ZoneEvidence): Derivation {
    if (evidence.model !== 'weekly') return { outcome: 'not_applicable' };
    const reading = weeklyDemand(evidence);
    if (!reading.ok) {
      return {
        outcome: 'insufficient',
        waiting_for: reading.waiting_for,
        line: `Weekly budget: waiting for ${reading.waiting_for} (${reading.detail}).`,
      };
    }
    const d = reading.demand;
    const current = evidence.zone.weekly_budget_in ?? null;
    const suggested = roundTo(d.budget_in, 0.05);
    const matches = `the crop used ${round(d.etc_week_mm / MM_PER_INCH, 2)} in a week (ET record, ${d.days} days)`;
    if (
      current !== null &&
      Math.abs(d.budget_in - current) < Math.max(CHANGE_MIN_IN, CHANGE_SHARE * current)
    ) {
      return { outcome: 'ok', line: `Weekly budget: ${matches}; the ${current} in budget delivers it.` };
    }
    const direction = current === null ? 'Set' : d.budget_in > current ? 'Raise' : 'Lower';
    return {
      outcome: 'suggest',
      line: `Weekly budget: ${matches}; a budget of ${suggested} in matches it${current === null ? '' : `, not ${current} in`}.`,
      suggestion: {
        field: 'weekly_budget_in',
        current_value: current,
        suggested_value: suggested,
        companion_fields: [],
        headline:
          `${direction} the weekly budget to ${suggested} in: ${matches}` +
          (current === null
            ? '.'
            : `, and ${current} in ${d.budget_in > current ? 'falls short' : 'is more than it needs'}.`),
        evidence: demandLines(d, evidence.zone.species as string, evidence.site.capture_efficiency),
        confidence: confidenceOf(d, evidence.window.days),
      },
    };
  },
};

function confidenceOf(d: WeeklyDemand, windowDays: number): Confidence {
  if (d.days >= 21 && d.days === windowDays) return 'high';
  return d.days >= 14 ? 'medium' : 'low';
}
