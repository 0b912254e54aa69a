import { anomaly, type Anomaly, type AnomalyEvidence, type Detector } from '../anomaly';
import { isWateringEvidence } from '../../engine/applied-water';
import { addLocalDays, localDateOf } from '../../schedule/local-date';

/**
 * A zone the engine called due on MIN_DAYS consecutive days up to today
 * without any water reaching it (no watering evidence in the ledger those
 * days). Days the owner paused do not count: that hold is deliberate.
 */

const MIN_DAYS = 3;

export const zoneDueNotWatered: Detector = {
  type: 'zone_due_not_watered',
  detect(e: AnomalyEvidence): Anomaly[] {
    const today = localDateOf(e.nowEpoch, e.timezone);
    const watered = new Set(
      e.runs.filter(isWateringEvidence).map((r) => `${r.zone}|${localDateOf(r.start_epoch, e.timezone)}`),
    );
    const lines = new Map<string, Map<string, { need: string; code: string }>>();
    for (const decision of e.decisions) {
      for (const z of decision.zones) {
        const byDate = lines.get(z.zone) ?? new Map();
        const seen = byDate.get(decision.date_local);
        // A due line that day wins over a later not-due one (after a run, the day's decision moves on).
        if (!seen || z.water_need === 'due')
          byDate.set(decision.date_local, { need: z.water_need, code: z.reason_code });
        lines.set(z.zone, byDate);
      }
    }
    const found: Anomaly[] = [];
    for (const [zone, byDate] of lines) {
      const streak: { date: string; code: string }[] = [];
      for (let date = today; ; date = addLocalDays(date, -1, e.timezone)) {
        const line = byDate.get(date);
        if (!line || line.need !== 'due' || line.code === 'paused' || watered.has(`${zone}|${date}`)) break;
        streak.push({ date, code: line.code });
        if (streak.length > 30) break;
      }
      if (streak.length < MIN_DAYS) continue;
      const codes = [...new Set(streak.map((s) => s.code))];
      found.push(
        anomaly({
          severity: 'warning',
          type: 'zone_due_not_watered',
          subject: zone,
          summary: `Zone ${zone} has been due for ${streak.length} days without being watered`,
          evidence: [`due ${streak.at(-1)?.date} to ${streak[0]?.date}`, `held by: ${codes.join(', ')}`],
          fix: "Read the zone's reasons on its page: a skip rule, missing forecast evidence, an override or a controller that does not run it.",
        }),
      );
    }
    return found;
  },
};
