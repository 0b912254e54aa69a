import { anomaly, type Anomaly, type AnomalyEvidence, type Detector } from '../anomaly';
import { minutes, wateredSessions } from '../../tuning/watered-sessions';

/** The run cap (max_run_minutes) cut every one of a zone's recent watered sessions short (at least MIN_SESSIONS). */

const MIN_SESSIONS = 3;

export const capBindingEverySession: Detector = {
  type: 'cap_binding_every_session',
  detect(e: AnomalyEvidence): Anomaly[] {
    const zones = new Set(e.sessions.map((s) => s.zone));
    const found: Anomaly[] = [];
    for (const zone of zones) {
      const sessions = wateredSessions(
        e.sessions.filter((s) => s.zone === zone),
        e.runs.filter((r) => r.zone === zone),
      );
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
