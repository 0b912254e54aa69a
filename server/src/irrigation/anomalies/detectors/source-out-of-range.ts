import { anomaly, type Anomaly, type AnomalyEvidence, type Detector } from '../anomaly';
import { FIELD_LIMITS } from './plausibility';
import { bySourceAndField, describeTime } from './readings';

/** A source reported values no weather produces (a 190 F air temperature, 130 % humidity). */
export const sourceOutOfRange: Detector = {
  type: 'source_out_of_range',
  detect(e: AnomalyEvidence): Anomaly[] {
    const found: Anomaly[] = [];
    for (const [source, fields] of bySourceAndField(e.readings)) {
      const bad: string[] = [];
      for (const [field, rows] of fields) {
        const limits = FIELD_LIMITS[field];
        if (!limits) continue;
        const out = rows.filter((r) => r.value < limits.min || r.value > limits.max);
        const last = out.at(-1);
        if (last) {
          bad.push(
            `${out.length} ${limits.label} reading(s) outside ${limits.min}..${limits.max}, last ${last.value} at ${describeTime(last.epoch, e.timezone)}`,
          );
        }
      }
      if (bad.length === 0) continue;
      found.push(
        anomaly({
          severity: 'warning',
          type: 'source_out_of_range',
          subject: source,
          summary: `Source ${source} reported impossible values in the last 24 hours`,
          evidence: bad,
          fix: "Check the sensor and the source's unit mapping; until then pin the field to another source (config overrides).",
        }),
      );
    }
    return found;
  },
};
