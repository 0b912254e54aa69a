import { anomaly, type Anomaly, type AnomalyEvidence, type Detector } from '../anomaly';
import { capLeftShort, pastRawLine, shortSessionLine, type CapShortfall } from '../../tuning/cap-short';
import { minutes, wateredSessions, type WateredSession } from '../../tuning/watered-sessions';

/**
 * The run cap (max_run_minutes) and the zone's watered sessions:
 * - `cap_binding_past_raw` (warning, rule 6 of docs/irrigation.md): the cap
 *   cut the last sessions short in a row and the soil ledger shows the zone
 *   past RAW since; told the same day, with the value to raise it to;
 * - `cap_binding_every_session` (info): it cut every one of the recent
 *   sessions short (at least MIN_SESSIONS), while the zone keeps within RAW.
 *   A zone the first reports is not reported again by the second.
 */

const MIN_SESSIONS = 3;

export const capBindingPastRaw: Detector = {
  type: 'cap_binding_past_raw',
  detect(e: AnomalyEvidence): Anomaly[] {
    return e.zoneLedgers.flatMap((z) => {
      const short = capLeftShort(zoneSessions(e, z.zone), z.max_run_minutes, z.days);
      return short ? [pastRawAnomaly(z.zone, short)] : [];
    });
  },
};

export const capBindingEverySession: Detector = {
  type: 'cap_binding_every_session',
  detect(e: AnomalyEvidence): Anomaly[] {
    const zones = new Set(e.sessions.map((s) => s.zone));
    const short = new Set(capBindingPastRaw.detect(e).map((a) => a.subject));
    const found: Anomaly[] = [];
    for (const zone of zones) {
      if (short.has(zone)) continue;
      const sessions = zoneSessions(e, zone);
      if (sessions.length < MIN_SESSIONS || !sessions.every((s) => s.plan.session_capped)) continue;
      const last = sessions.at(-1)?.plan;
      found.push(
        anomaly({
          severity: 'info',
          type: 'cap_binding_every_session',
          subject: zone,
          summary: `The run cap cut all ${sessions.length} recent watered sessions of zone ${zone} short`,
          evidence: sessions
            .slice(-3)
            .map(
              (s) =>
                `${s.plan.date_local}: ${minutes(s.plan.planned_seconds)} of ${minutes(s.plan.uncapped_seconds)} needed`,
            ),
          fix: `Raise the zone's max_run_minutes${last?.max_run_minutes ? ` above ${last.max_run_minutes}` : ''}; the tuning report suggests a value.`,
        }),
      );
    }
    return found;
  },
};

function zoneSessions(e: AnomalyEvidence, zone: string): WateredSession[] {
  return wateredSessions(
    e.sessions.filter((s) => s.zone === zone),
    e.runs.filter((r) => r.zone === zone),
  );
}

function pastRawAnomaly(zone: string, short: CapShortfall): Anomaly {
  const lost = short.sessions.map((s) => s.shortfall_mm);
  const known = lost.every((mm) => mm !== null);
  const total = known ? ` (${round1(lost.reduce((a, b) => a + (b ?? 0), 0))} mm net left out)` : '';
  return anomaly({
    severity: 'warning',
    type: 'cap_binding_past_raw',
    subject: zone,
    summary:
      `The ${short.cap_minutes} min run cap left zone ${zone} short on its last ${short.sessions.length} ` +
      `watered sessions${total}, and the zone is past RAW`,
    evidence: [
      ...short.past_raw.slice(-1).map(pastRawLine),
      ...short.sessions.slice(-2).map(shortSessionLine),
    ],
    fix:
      short.suggested_minutes === null
        ? `The cap is already the ${short.cap_minutes} min maximum: water this zone on more days (more sessions), or check its sprinkler rate.`
        : `Raise the zone's max_run_minutes to ${short.suggested_minutes} (the tuning report suggests it now; apply it from the zone page).`,
  });
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}
