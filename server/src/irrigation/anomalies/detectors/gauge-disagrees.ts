import { anomaly, type Anomaly, type AnomalyEvidence, type Detector } from '../anomaly';
import { addLocalDays, localDateOf, startOfLocalDate } from '../../schedule/local-date';
import { round } from './readings';

/**
 * A station's rain gauge that keeps disagreeing with the model's rain for
 * the same days (the forecast archive's past days): a clogged funnel reads
 * dry through storms, a sprinkler-soaked gauge reads rain on dry days. A day
 * disagrees when one says at least WET_IN and the other less than a quarter
 * of it; flagged at MIN_DAYS such days among the last DAYS complete days
 * both measured. Only a gauge that reported into a day's last hour counts
 * for that day (a partial day proves nothing).
 */

const DAYS = 7;
const MIN_DAYS = 3;
const WET_IN = 0.2;

export const gaugeDisagrees: Detector = {
  type: 'gauge_disagrees',
  detect(e: AnomalyEvidence): Anomaly[] {
    const model = new Map((e.forecast?.past_daily ?? []).map((d) => [d.date_local, d.precip_sum_in]));
    const today = localDateOf(e.nowEpoch, e.timezone);
    const dates = Array.from({ length: DAYS }, (_, i) => addLocalDays(today, -(i + 1), e.timezone));
    const sources = new Set(
      e.rainReadings.map((r) => r.source_id).filter((id) => !e.modelledSources.has(id)),
    );
    const found: Anomaly[] = [];
    for (const source of sources) {
      const rows = e.rainReadings.filter((r) => r.source_id === source);
      const off: string[] = [];
      for (const date of dates) {
        const gauge = gaugeTotal(rows, date, e.timezone);
        const archived = model.get(date);
        if (gauge === null || archived === null || archived === undefined) continue;
        const high = Math.max(gauge, archived);
        if (high >= WET_IN && Math.min(gauge, archived) < high / 4) {
          off.push(`${date}: gauge ${round(gauge, 2)} in, model ${round(archived, 2)} in`);
        }
      }
      if (off.length < MIN_DAYS) continue;
      found.push(
        anomaly({
          severity: 'warning',
          type: 'gauge_disagrees',
          subject: source,
          summary: `The rain gauge of ${source} disagreed with the model's rain on ${off.length} of the last ${DAYS} days`,
          evidence: off,
          fix: 'Clean the gauge funnel, check it is level and out of sprinkler spray; the engine trusts the gauge over the model.',
        }),
      );
    }
    return found;
  },
};

/** The day's largest `rain_in_today`, when the gauge reported in the day's last hour; else null. */
function gaugeTotal(
  rows: readonly { epoch: number; value: number }[],
  date: string,
  timezone: string,
): number | null {
  const start = startOfLocalDate(date, timezone).seconds;
  const end = startOfLocalDate(addLocalDays(date, 1, timezone), timezone).seconds;
  const day = rows.filter((r) => r.epoch >= start && r.epoch < end);
  if (!day.some((r) => r.epoch >= end - 3600)) return null;
  return Math.max(...day.map((r) => r.value));
}
