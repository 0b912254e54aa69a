import { clearSkyRadiation, extraterrestrialRadiationDaily } from '../../../agronomy/et0/radiation';
import { hargreavesSamani } from '../../../agronomy/et0/hargreaves';
import { anomaly, type Anomaly, type AnomalyEvidence, type Detector } from '../anomaly';
import { CLIMATE_FACTOR, climateBound } from '../record-climate';
import { addLocalDays, localDateOf } from '../../schedule/local-date';
import { round } from './readings';

/**
 * ET0 far outside what the site's climate allows for the date, judged over
 * the engine's ET0 of the last seven days (the decision trace's `et0_days`):
 * - above the physical envelope of the latitude and the day of year: 1.6 x
 *   the clear-sky radiation's evaporation equivalent (0.408 Rso) is more
 *   energy than the sky gave; once the site's own weather record holds a
 *   month around the date (record-climate.ts: at least 20 days within 30 of
 *   its day of the year, before the judged week), the bound narrows to
 *   twice the highest ET0 recorded there, when that is lower;
 * - below a fifth of what the day's own temperatures give by Hargreaves
 *   (when that is at least 3 mm): a dead radiation sensor or a unit slip.
 */

const DAYS = 7;
const HIGH_FACTOR = 1.6;
const LOW_FACTOR = 0.2;
const LOW_MIN_MM = 3;

export const et0OutOfClimate: Detector = {
  type: 'et0_out_of_climate',
  detect(e: AnomalyEvidence): Anomaly[] {
    const trace = (e.irrigation?.decision_trace ?? {}) as { et0_days?: unknown };
    const days = Array.isArray(trace.et0_days) ? (trace.et0_days as Et0Day[]) : [];
    const today = localDateOf(e.nowEpoch, e.timezone);
    const first = addLocalDays(today, -DAYS, e.timezone);
    const temps = new Map(
      [...(e.forecast?.past_daily ?? []), ...(e.forecast?.daily ?? [])].map((d) => [d.date_local, d]),
    );
    const off: string[] = [];
    for (const day of days) {
      if (day.et0_mm === null || day.date_local < first || day.date_local > today) continue;
      const ra = extraterrestrialRadiationDaily((e.lat * Math.PI) / 180, dayOfYear(day.date_local));
      const sky = 0.408 * clearSkyRadiation(ra, e.elevationM) * HIGH_FACTOR;
      const climate = climateBound(day.date_local, e.recordEt0, first);
      const high = climate && climate.high_mm < sky ? climate.high_mm : sky;
      const t = temps.get(day.date_local);
      const hs =
        t && t.temp_max_f !== null && t.temp_min_f !== null
          ? hargreavesSamani(c(t.temp_max_f), c(t.temp_min_f), (c(t.temp_max_f) + c(t.temp_min_f)) / 2, ra)
          : null;
      if (day.et0_mm > high) {
        const why =
          high === sky
            ? 'the sky allows'
            : `the site's record allows (${CLIMATE_FACTOR} x its highest, ${round(climate?.highest_mm ?? 0)} mm, ` +
              `in ${climate?.days} days around the date)`;
        off.push(`${day.date_local}: ET0 ${round(day.et0_mm)} mm above the ${round(high)} mm ${why}`);
      } else if (hs !== null && hs >= LOW_MIN_MM && day.et0_mm < hs * LOW_FACTOR) {
        off.push(
          `${day.date_local}: ET0 ${round(day.et0_mm)} mm where that day's temperatures give ${round(hs)} mm`,
        );
      }
    }
    if (off.length === 0) return [];
    return [
      anomaly({
        severity: 'warning',
        type: 'et0_out_of_climate',
        subject: 'site',
        summary: `ET0 on ${off.length} recent day(s) is far outside the site's climate for the date`,
        evidence: off,
        fix: "Check the station's solar radiation, humidity and wind sensors and their units, or set engine.et0_method to hargreaves_samani until they are fixed.",
      }),
    ];
  },
};

interface Et0Day {
  date_local: string;
  et0_mm: number | null;
}

function c(f: number): number {
  return ((f - 32) * 5) / 9;
}

function dayOfYear(date: string): number {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return Math.round((Date.UTC(y, m - 1, d) - Date.UTC(y, 0, 0)) / 86_400_000);
}
