import type { ZoneEvidence } from '../evidence';
import { capLeftShort, pastRawLine, shortSessionLine, type CapShortfall } from '../cap-short';
import { numberBand } from '../fields';
import type { Confidence, Deriver, Derivation } from '../recommendation';
import {
  capSeconds,
  ceilToFiveMinutes,
  minutes,
  wateredSessions,
  type WateredSession,
} from '../watered-sessions';

/**
 * `max_run_minutes` (spec 2.6: whole minutes 5..360, null = 60): raise the
 * per-run ceiling when it cut most of the zone's watered sessions short.
 *
 * Each session plan keeps the seconds the zone needed before the ceiling
 * (`uncapped_seconds`). A session is bound by the cap in force NOW when it
 * needed more than it; so a cap the owner already raised is judged against
 * the same needs. With at least MIN_SESSIONS watered sessions, of which at
 * least MIN_BOUND and at least half were bound, the suggestion is the
 * largest need, rounded up to 5 minutes and kept within the band: every
 * recorded session would then have refilled what it set out to.
 *
 * Rule 6 (cap-short.ts) comes first and does not wait for that: when the
 * cap cut the zone's last sessions short in a row and the soil ledger shows
 * the zone past RAW since, the same suggestion derives at once, with the
 * ledger's days as evidence (confidence `medium`: two sessions, but the
 * ledger says the crop is already stressed).
 */

export const MIN_SESSIONS = 3;
export const MIN_BOUND = 3;
const EVIDENCE_LINES = 8;

export const maxRunMinutesDeriver: Deriver = {
  field: 'max_run_minutes',
  derive(evidence: ZoneEvidence): Derivation {
    const sessions = wateredSessions(evidence.sessions, evidence.runs);
    const days = evidence.window.days;
    const short = capLeftShort(sessions, evidence.zone.max_run_minutes, evidence.soilLedger ?? []);
    if (short?.suggested_minutes) return leftShort(short, short.suggested_minutes, evidence);
    if (sessions.length < MIN_SESSIONS) {
      return {
        outcome: 'insufficient',
        waiting_for: 'watered sessions',
        line:
          `Run cap: ${sessions.length} watered session(s) in the last ${days} days; ` +
          `at least ${MIN_SESSIONS} are needed to judge it.`,
      };
    }
    const current = evidence.zone.max_run_minutes ?? null;
    const cap = capSeconds(current);
    const bound = sessions.filter((s) => s.plan.uncapped_seconds > cap);
    const share = `${bound.length} of ${sessions.length} watered sessions in the last ${days} days`;
    const band = numberBand('max_run_minutes');
    if (bound.length < MIN_BOUND || bound.length * 2 < sessions.length) {
      return { outcome: 'ok', line: `Run cap: ${minutes(cap)} bound ${share}; no change needed.` };
    }
    const need = Math.max(...bound.map((s) => s.plan.uncapped_seconds));
    const suggested = Math.min(band.max, Math.max(band.min, ceilToFiveMinutes(need)));
    if (suggested * 60 <= cap) {
      return {
        outcome: 'ok',
        line: `Run cap: ${minutes(cap)} bound ${share}, but it is already the ${suggested}-minute maximum.`,
      };
    }
    return {
      outcome: 'suggest',
      line: `Run cap: ${minutes(cap)} cut ${share} short.`,
      suggestion: {
        field: 'max_run_minutes',
        current_value: current,
        suggested_value: suggested,
        companion_fields: [],
        headline: `Raise the run cap to ${suggested} min: the ${minutes(cap)} cap cut ${share} short.`,
        evidence: [
          `${share} needed more than the ${minutes(cap)} cap (up to ${minutes(need)}).`,
          ...bound.slice(-EVIDENCE_LINES).map(sessionLine),
        ],
        confidence: confidenceOf(bound.length, sessions.length),
      },
    };
  },
};

function leftShort(short: CapShortfall, suggested: number, evidence: ZoneEvidence): Derivation {
  const cap = `${short.cap_minutes} min`;
  const n = short.sessions.length;
  const latest = short.past_raw.at(-1)!;
  return {
    outcome: 'suggest',
    line: `Run cap: the ${cap} cap cut the last ${n} watered sessions short and the zone closed ${latest.date_local} past RAW.`,
    suggestion: {
      field: 'max_run_minutes',
      current_value: evidence.zone.max_run_minutes ?? null,
      suggested_value: suggested,
      companion_fields: [],
      headline:
        `Raise the run cap to ${suggested} min: the ${cap} cap cut the last ${n} sessions short ` +
        `and the soil ledger shows the zone past RAW.`,
      evidence: [
        `The last ${n} watered sessions in a row needed more than the ${cap} cap (up to ${minutes(short.need_seconds)}).`,
        ...short.sessions.slice(-EVIDENCE_LINES).map((s) => `${shortSessionLine(s)}.`),
        ...short.past_raw.slice(-EVIDENCE_LINES).map((d) => `${pastRawLine(d)}.`),
      ],
      confidence: 'medium',
    },
  };
}

function sessionLine(s: WateredSession): string {
  const p = s.plan;
  return (
    `${p.date_local}: planned ${minutes(p.planned_seconds)}, needed ${minutes(p.uncapped_seconds)}; ` +
    `watered ${minutes(s.delivered_seconds)} (session ${p.session_id}).`
  );
}

function confidenceOf(bound: number, total: number): Confidence {
  const ratio = bound / total;
  if (bound >= 5 && ratio >= 0.8) return 'high';
  if (ratio >= 2 / 3) return 'medium';
  return 'low';
}
