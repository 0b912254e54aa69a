import { anomaly, type Anomaly, type AnomalyEvidence, type Detector } from '../anomaly';
import { FIELD_LIMITS } from './plausibility';
import { bySourceAndField, describeTime } from './readings';

/** Readings per hour a stuck verdict needs, so a quiet source is not mistaken for a stuck one. */
const MIN_READINGS_PER_HOUR = 4;

/**
 * A source repeats one exact value for hours (a frozen sensor or a gateway
 * resending its last sample): real air never holds 71.3 F for six hours.
 * Only the trailing run counts, so a sensor that recovered is not flagged.
 */
export const sourceStuck: Detector = {
  type: 'source_stuck',
  detect(e: AnomalyEvidence): Anomaly[] {
    const found: Anomaly[] = [];
    for (const [source, fields] of bySourceAndField(e.readings)) {
      const stuck: string[] = [];
      for (const [field, rows] of fields) {
        const limits = FIELD_LIMITS[field];
        const last = rows.at(-1);
        if (!limits?.stuckHours || !last || limits.stuckExempt?.includes(last.value)) continue;
        let first = rows.length - 1;
        while (first > 0 && rows[first - 1]?.value === last.value) first -= 1;
        const since = rows[first]?.epoch ?? last.epoch;
        const hours = (last.epoch - since) / 3600;
        const count = rows.length - first;
        if (hours >= limits.stuckHours && count >= hours * MIN_READINGS_PER_HOUR) {
          stuck.push(
            `${limits.label} read exactly ${last.value} ${count} times since ${describeTime(since, e.timezone)}`,
          );
        }
      }
      if (stuck.length === 0) continue;
      found.push(
        anomaly({
          severity: 'warning',
          type: 'source_stuck',
          subject: source,
          summary: `Source ${source} keeps repeating the same value`,
          evidence: stuck,
          fix: 'Restart the station or gateway and check the sensor; until it moves again the value is not evidence.',
        }),
      );
    }
    return found;
  },
};
