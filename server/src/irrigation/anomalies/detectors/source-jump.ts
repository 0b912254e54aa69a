import { anomaly, type Anomaly, type AnomalyEvidence, type Detector } from '../anomaly';
import { FIELD_LIMITS, STEP_WINDOW_S } from './plausibility';
import { bySourceAndField, describeTime, round } from './readings';

/** A source's field jumped further between two readings minutes apart than weather moves (a 30 F step). */
export const sourceJump: Detector = {
  type: 'source_jump',
  detect(e: AnomalyEvidence): Anomaly[] {
    const found: Anomaly[] = [];
    for (const [source, fields] of bySourceAndField(e.readings)) {
      const jumps: string[] = [];
      for (const [field, rows] of fields) {
        const limits = FIELD_LIMITS[field];
        if (!limits?.maxStep) continue;
        for (let i = 1; i < rows.length; i += 1) {
          const a = rows[i - 1];
          const b = rows[i];
          if (!a || !b || b.epoch - a.epoch > STEP_WINDOW_S) continue;
          if (Math.abs(b.value - a.value) > limits.maxStep) {
            jumps.push(
              `${limits.label} ${round(a.value, 2)} -> ${round(b.value, 2)} within ${Math.round((b.epoch - a.epoch) / 60)} min at ${describeTime(b.epoch, e.timezone)}`,
            );
          }
        }
      }
      if (jumps.length === 0) continue;
      found.push(
        anomaly({
          severity: 'warning',
          type: 'source_jump',
          subject: source,
          summary: `Source ${source} jumped by more than weather can in minutes (${jumps.length} time(s) in 24 hours)`,
          evidence: jumps,
          fix: 'Check the sensor for a loose connection, water ingress or a reset; a gateway mixing two sensors also does this.',
        }),
      );
    }
    return found;
  },
};
