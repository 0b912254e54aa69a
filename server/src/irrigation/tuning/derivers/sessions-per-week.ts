import { MM_PER_INCH } from '../../../agronomy/catalogs/units';
import { weeklyDemand } from '../et-demand';
import type { ZoneEvidence } from '../evidence';
import { numberBand } from '../fields';
import type { Confidence, Deriver, Derivation } from '../recommendation';
import { round, roundTo } from '../stats';
import { capSeconds, minutes, wateredSessions, type WateredSession } from '../watered-sessions';

/**
 * `sessions_per_week` (weekly model, spec 2.6: 1..7, sessions spaced
 * floor(7 / n) days). Two rules; the suggestion is the larger n either
 * asks for, at most 7:
 *
 * - The run cap: the budget is split over n sessions and the cap cut most
 *   of them short (at least 3 watered weekly sessions, 2 and half of them
 *   bound), so the budget is not delivered: n' = ceil(n x the largest need
 *   / the cap).
 * - The root zone: a session should not put down more than the root zone
 *   holds above its refill point (RAW); what runs past it drains. In a dry
 *   week the budget is all sprinkler water, so each session brings
 *   budget x capture efficiency / n to the roots: n' = ceil(that x n / RAW).
 *   The budget is the one the ET record supports (weekly-budget.ts) when it
 *   can be judged, else the zone's; RAW needs the zone's soil model.
 *
 * A zone already at 7 sessions is left to the run-cap suggestion.
 */

const MIN_SESSIONS = 3;
const MIN_BOUND = 2;

interface RuleResult {
  /** Sessions the rule asks for (may equal the current count). */
  wants: number;
  line: string;
  evidence: string[];
  confidence: Confidence;
}

export const sessionsPerWeekDeriver: Deriver = {
  field: 'sessions_per_week',
  derive(evidence: ZoneEvidence): Derivation {
    if (evidence.model !== 'weekly') return { outcome: 'not_applicable' };
    const current = evidence.zone.sessions_per_week ?? null;
    if (current === null || evidence.zone.weekly_budget_in == null) {
      return {
        outcome: 'insufficient',
        waiting_for: 'a weekly budget',
        line: 'Sessions per week: set weekly_budget_in and sessions_per_week for the weekly model first.',
      };
    }
    const cap = capRule(evidence, current);
    const root = rootZoneRule(evidence, current);
    const judged = [cap, root].filter((r): r is RuleResult => r !== null && typeof r !== 'string');
    if (judged.length === 0) {
      return {
        outcome: 'insufficient',
        waiting_for: 'watered sessions',
        line: `Sessions per week: ${typeof cap === 'string' ? cap : 'no rule could judge them'}.`,
      };
    }
    const max = numberBand('sessions_per_week').max;
    const wants = Math.min(max, Math.max(...judged.map((r) => r.wants)));
    const lines = judged.map((r) => r.line);
    if (wants <= current) {
      return { outcome: 'ok', line: `Sessions per week: ${lines.join('; ')}.` };
    }
    const firing = judged.filter((r) => r.wants > current);
    return {
      outcome: 'suggest',
      line: `Sessions per week: ${lines.join('; ')}.`,
      suggestion: {
        field: 'sessions_per_week',
        current_value: current,
        suggested_value: wants,
        companion_fields: [],
        headline: `Water ${wants} times a week instead of ${current}: ${firing.map((r) => r.line).join('; ')}.`,
        evidence: firing.flatMap((r) => r.evidence),
        confidence: firing.some((r) => r.confidence === 'high')
          ? 'high'
          : (firing[0] as RuleResult).confidence,
      },
    };
  },
};

/** The run cap's rule; a string says why it cannot judge. */
function capRule(evidence: ZoneEvidence, current: number): RuleResult | string {
  const sessions = wateredSessions(evidence.sessions, evidence.runs).filter((s) => s.plan.model === 'weekly');
  const days = evidence.window.days;
  if (sessions.length < MIN_SESSIONS) {
    return `${sessions.length} watered weekly session(s) in the last ${days} days; at least ${MIN_SESSIONS} are needed`;
  }
  const cap = capSeconds(evidence.zone.max_run_minutes);
  const bound = sessions.filter((s) => s.plan.uncapped_seconds > cap);
  const share = `${bound.length} of ${sessions.length} weekly sessions in the last ${days} days`;
  if (bound.length < MIN_BOUND || bound.length * 2 < sessions.length) {
    return {
      wants: current,
      line: `${current} session(s) deliver the budget within the ${minutes(cap)} cap`,
      evidence: [],
      confidence: 'low',
    };
  }
  const ratio = Math.max(...bound.map((s) => s.plan.uncapped_seconds / cap));
  const wants = Math.ceil(current * ratio);
  if (wants <= current || current >= 7) {
    return {
      wants: current,
      line: `already ${current}; only a longer run cap can deliver more`,
      evidence: [],
      confidence: 'low',
    };
  }
  return {
    wants,
    line: `the ${minutes(cap)} cap cut ${share} short of their share of the budget`,
    evidence: [
      `The weekly budget of ${evidence.zone.weekly_budget_in} in over ${current} session(s) needed up to ` +
        `${Math.round(ratio * 100)}% of the ${minutes(cap)} cap per session.`,
      ...bound.map(boundLine),
    ],
    confidence: capConfidence(bound.length, sessions.length),
  };
}

/** The root zone's rule; null when the zone has no soil model (RAW). */
function rootZoneRule(evidence: ZoneEvidence, current: number): RuleResult | null {
  const zone = evidence.resolved;
  if (!zone.complete) return null;
  const demand = weeklyDemand(evidence);
  const budgetIn = demand.ok
    ? roundTo(demand.demand.budget_in, 0.05)
    : (evidence.zone.weekly_budget_in as number);
  const which = demand.ok ? `the ${budgetIn} in budget the ET record supports` : `the ${budgetIn} in budget`;
  const ce = evidence.site.capture_efficiency;
  const net = budgetIn * MM_PER_INCH * ce;
  const raw = zone.capacity.raw_mm;
  const wants = Math.max(1, Math.ceil(net / raw - 1e-9));
  const each = net / current;
  if (wants <= current) {
    return {
      wants: current,
      line: `${current} session(s) of ${round(each, 1)} mm fit the ${round(raw, 1)} mm the root zone holds above its refill point`,
      evidence: [],
      confidence: 'low',
    };
  }
  return {
    wants,
    line: `${which} over ${current} session(s) puts ${round(each, 1)} mm at a time in a root zone that holds ${round(raw, 1)} mm above its refill point`,
    evidence: [
      `In a dry week ${which} is all sprinkler water: ${round(net, 1)} mm reaches the roots at ` +
        `${Math.round(ce * 100)} % capture, ${round(each, 1)} mm per session over ${current}.`,
      `The root zone holds ${round(raw, 1)} mm above its refill point (RAW: ${zone.soil_texture}, ` +
        `${zone.capacity.root_depth_mm} mm roots, ${Math.round(zone.capacity.mad * 100)} % allowed depletion); ` +
        `more per session drains past the roots. ${wants} sessions bring ${round(net / wants, 1)} mm each.`,
    ],
    confidence: demand.ok ? 'medium' : 'low',
  };
}

function boundLine(s: WateredSession): string {
  return (
    `${s.plan.date_local}: planned ${minutes(s.plan.planned_seconds)}, needed ` +
    `${minutes(s.plan.uncapped_seconds)}; watered ${minutes(s.delivered_seconds)} (session ${s.plan.session_id}).`
  );
}

function capConfidence(bound: number, total: number): Confidence {
  if (bound >= 4 && bound / total >= 0.8) return 'high';
  return bound / total >= 2 / 3 ? 'medium' : 'low';
}
