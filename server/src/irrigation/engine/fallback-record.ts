import { compareText } from '../../core/compare';
import type { DailyEntry } from '../../forecast/types';
import type { DailyWeather } from '../../store/weather-days';
import { mergeDay } from '../../weather-record/merge-day';
import type { StationDay } from '../../weather-record/station-days';

/**
 * Past days as the daily weather record would hold them, from what the engine
 * input carries: the persisted record's days first; for days it lacks, the
 * forecast's past days (`model_archive`) with the station's gauge total as
 * measured rain. Pure.
 */
export function pastWeather(
  record: readonly DailyWeather[],
  pastDaily: ReadonlyMap<string, DailyEntry>,
  gaugeInches: ReadonlyMap<string, number>,
  provider: string,
  today: string,
): Map<string, DailyWeather> {
  const out = new Map<string, DailyWeather>();
  const dates = new Set([...pastDaily.keys(), ...gaugeInches.keys()]);
  for (const date of [...dates].sort()) {
    if (date >= today) continue;
    const entry = pastDaily.get(date);
    const gauge = gaugeInches.get(date);
    const stations: StationDay[] =
      gauge !== undefined && Number.isFinite(gauge) && gauge >= 0
        ? [
            {
              date_local: date,
              source_id: 'gauge',
              values: { rain_mm: gauge * 25.4 },
              coverage: { rain_mm: 1 },
            },
          ]
        : [];
    out.set(date, mergeDay(date, stations, entry ? { provider, entry } : null, undefined));
  }
  for (const day of record) if (day.date_local < today) out.set(day.date_local, day);
  return new Map([...out.entries()].sort(([a], [b]) => compareText(a, b)));
}
