import { anomaly, type Anomaly, type AnomalyEvidence, type Detector } from '../anomaly';
import { bySourceAndField, describeTime, median, round } from './readings';

/**
 * A source that keeps disagreeing with everything else: per hour, its mean
 * against the median of the other sources' means and the forecast model's
 * value for that hour. Flagged when it is off by more than the tolerance in
 * at least MIN_HOURS of the last HOURS hours and in three quarters of those
 * that could be compared; a lone station is still judged against the model.
 */

const HOURS = 6;
const MIN_HOURS = 3;
const COMPARED: Record<string, { label: string; tolerance: number; model: 'temp_f' | 'humidity_pct' }> = {
  air_temp_f: { label: 'air temperature', tolerance: 10, model: 'temp_f' },
  rh_pct: { label: 'humidity', tolerance: 25, model: 'humidity_pct' },
};

export const sourceDisagrees: Detector = {
  type: 'source_disagrees',
  detect(e: AnomalyEvidence): Anomaly[] {
    const grouped = bySourceAndField(e.readings.filter((r) => r.epoch > e.nowEpoch - HOURS * 3600));
    const found: Anomaly[] = [];
    for (const [source, fields] of grouped) {
      const lines: string[] = [];
      for (const [field, spec] of Object.entries(COMPARED)) {
        const mine = hourlyMeans(fields.get(field) ?? []);
        let compared = 0;
        const off: string[] = [];
        for (const [hour, value] of mine) {
          const others = [...grouped]
            .filter(([id]) => id !== source)
            .flatMap(([, f]) => {
              const mean = hourlyMeans(f.get(field) ?? []).get(hour);
              return mean === undefined ? [] : [mean];
            });
          const model = modelValue(e, hour, spec.model);
          const consensus = median(model === null ? others : [...others, model]);
          if (consensus === null) continue;
          compared += 1;
          if (Math.abs(value - consensus) > spec.tolerance) {
            off.push(`${describeTime(hour, e.timezone)}: ${round(value)} vs ${round(consensus)}`);
          }
        }
        if (off.length >= MIN_HOURS && off.length >= compared * 0.75) {
          lines.push(
            `${spec.label} off by more than ${spec.tolerance} in ${off.length} of ${compared} hours (${off.slice(-2).join(', ')})`,
          );
        }
      }
      if (lines.length === 0) continue;
      found.push(
        anomaly({
          severity: 'warning',
          type: 'source_disagrees',
          subject: source,
          summary: `Source ${source} disagrees with the other sources and the forecast model`,
          evidence: lines,
          fix: 'Check where the sensor sits (sun, a wall, a vent) and its calibration; pin the field to a source you trust meanwhile.',
        }),
      );
    }
    return found;
  },
};

/** Mean per hour start (epoch of the hour), from readings. */
function hourlyMeans(rows: readonly { epoch: number; value: number }[]): Map<number, number> {
  const sums = new Map<number, { sum: number; n: number }>();
  for (const r of rows) {
    const hour = Math.floor(r.epoch / 3600) * 3600;
    const s = sums.get(hour) ?? { sum: 0, n: 0 };
    s.sum += r.value;
    s.n += 1;
    sums.set(hour, s);
  }
  return new Map([...sums].map(([hour, s]) => [hour, s.sum / s.n]));
}

function modelValue(e: AnomalyEvidence, hour: number, field: 'temp_f' | 'humidity_pct'): number | null {
  const entry = e.forecast?.hourly.find((h) => h.time_epoch === hour);
  const value = entry?.[field];
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}
