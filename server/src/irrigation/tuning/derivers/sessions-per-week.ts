import type { ZoneEvidence } from '../evidence';
import { numberBand } from '../fields';
import type { Confidence, Deriver, Derivation } from '../recommendation';
import { capSeconds, minutes, wateredSessions } from '../watered-sessions';

/**
 * `sessions_per_week` (weekly model, spec 2.6: 1..7, sessions spaced
 * floor(7 / n) days) where the run ledger proves it: the weekly budget is
 * split over n sessions, and the run cap cut most of them short, so the
 * budget is not delivered. Spreading it over more sessions makes each one
 * shorter: n' = ceil(n x the largest need / the cap), at most 7. A zone
 * already at 7 sessions is left to the run-cap suggestion.
 *
 * Judging the weekly budget itself against the ET record waits for the daily
 * weather record (see weekly-budget.ts).
 */

const MIN_SESSIONS = 3;
const MIN_BOUND = 2;

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
    const sessions = wateredSessions(evidence.sessions, evidence.runs).filter(
      (s) => s.plan.model === 'weekly',
    );
    const days = evidence.window.days;
    if (sessions.length < MIN_SESSIONS) {
      return {
        outcome: 'insufficient',
        waiting_for: 'watered sessions',
        line: `Sessions per week: ${sessions.length} watered weekly session(s) in the last ${days} days; at least ${MIN_SESSIONS} are needed.`,
      };
    }
    const cap = capSeconds(evidence.zone.max_run_minutes);
    const bound = sessions.filter((s) => s.plan.uncapped_seconds > cap);
    const share = `${bound.length} of ${sessions.length} weekly sessions in the last ${days} days`;
    if (bound.length < MIN_BOUND || bound.length * 2 < sessions.length) {
      return {
        outcome: 'ok',
        line: `Sessions per week: ${current} session(s) deliver the budget within the ${minutes(cap)} cap.`,
      };
    }
    const ratio = Math.max(...bound.map((s) => s.plan.uncapped_seconds / cap));
    const suggested = Math.min(numberBand('sessions_per_week').max, Math.ceil(current * ratio));
    if (suggested <= current) {
      return {
        outcome: 'ok',
        line: `Sessions per week: already ${current}; only a longer run cap can deliver more.`,
      };
    }
    return {
      outcome: 'suggest',
      line: `Sessions per week: the ${minutes(cap)} cap cut ${share} short of their share of the budget.`,
      suggestion: {
        field: 'sessions_per_week',
        current_value: current,
        suggested_value: suggested,
        companion_fields: [],
        headline: `Water ${suggested} times a week instead of ${current}: the ${minutes(cap)} cap cut ${share} short.`,
        evidence: [
          `The weekly budget of ${evidence.zone.weekly_budget_in} in over ${current} session(s) needed up to ` +
            `${Math.round(ratio * 100)}% of the ${minutes(cap)} cap per session.`,
          ...bound.map(
            (s) =>
              `${s.plan.date_local}: planned ${minutes(s.plan.planned_seconds)}, needed ` +
              `${minutes(s.plan.uncapped_seconds)}; watered ${minutes(s.delivered_seconds)} (session ${s.plan.session_id}).`,
          ),
        ],
        confidence: confidenceOf(bound.length, sessions.length),
      },
    };
  },
};

function confidenceOf(bound: number, total: number): Confidence {
  if (bound >= 4 && bound / total >= 0.8) return 'high';
  return bound / total >= 2 / 3 ? 'medium' : 'low';
}
