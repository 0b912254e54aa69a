import type { DailyEntry } from '../forecast/types';
import type { StationDay } from './station-days';
import {
  emptyDay,
  RECORD_FIELDS,
  type DailyWeather,
  type FieldProvenance,
  type RecordField,
  type RecordValues,
} from './types';

/**
 * One day of the record from what is known of it (pure):
 * 1. a measuring station's value, the best covered station first;
 * 2. else the forecast provider's past day (`model_archive`): Open-Meteo
 *    serves its own day aggregates, NWS and MET Norway days come from their
 *    hours (forecast/aggregate.ts);
 * 3. else the value the record already held (evidence is never dropped
 *    because its source has since rolled out of view);
 * 4. else null, with the coverage the stations did have.
 */

export interface ModelDay {
  provider: string;
  entry: DailyEntry;
}

export function mergeDay(
  date: string,
  stations: readonly StationDay[],
  model: ModelDay | null,
  previous: DailyWeather | undefined,
): DailyWeather {
  const out = emptyDay(date);
  const modelValues = model ? modelValuesOf(model.entry) : null;
  for (const field of RECORD_FIELDS) {
    const station = bestStation(stations, field);
    if (station) {
      set(out, field, station.values[field] as number, {
        source: 'station',
        source_id: station.source_id,
        coverage: round(station.coverage[field] ?? 0),
      });
      continue;
    }
    const modelled = modelValues?.[field] ?? null;
    if (modelled !== null && model) {
      set(out, field, modelled, { source: 'model_archive', source_id: model.provider, coverage: 1 });
      continue;
    }
    const kept = previous?.[field] ?? null;
    if (kept !== null && previous) {
      set(out, field, kept, previous.sources[field]);
      continue;
    }
    const partial = Math.max(0, ...stations.map((s) => s.coverage[field] ?? 0));
    out.sources[field] = { source: 'none', source_id: null, coverage: round(partial) };
  }
  return out;
}

function bestStation(stations: readonly StationDay[], field: RecordField): StationDay | null {
  const withValue = stations.filter((s) => typeof s.values[field] === 'number');
  withValue.sort((a, b) => (b.coverage[field] ?? 0) - (a.coverage[field] ?? 0));
  return withValue[0] ?? null;
}

function set(day: DailyWeather, field: RecordField, value: number, provenance: FieldProvenance): void {
  day[field] = value;
  day.sources[field] = provenance;
}

/** The record's fields from a forecast day (°F, inches and mph days into °C, mm and m/s). */
export function modelValuesOf(e: DailyEntry): RecordValues {
  const fToC = (f: number | null) => (f === null || !Number.isFinite(f) ? null : ((f - 32) * 5) / 9);
  const pct = (x: number | null | undefined) =>
    x === null || x === undefined || !Number.isFinite(x) || x < 0 || x > 100 ? null : x;
  const nonNegative = (x: number | null | undefined) =>
    x === null || x === undefined || !Number.isFinite(x) || x < 0 ? null : x;
  const rainIn = nonNegative(e.precip_sum_in);
  const et0In = nonNegative(e.et0_in);
  return {
    tmax_c: fToC(e.temp_max_f),
    tmin_c: fToC(e.temp_min_f),
    rh_max_pct: pct(e.humidity_max_pct),
    rh_min_pct: pct(e.humidity_min_pct),
    rh_mean_pct: pct(e.humidity_mean_pct ?? e.humidity_pct),
    wind_2m_ms: nonNegative(e.wind_mean_2m_ms),
    rs_mj_m2: nonNegative(e.radiation_mj_m2),
    rain_mm: rainIn === null ? null : rainIn * 25.4,
    // A provider's ET0 of 0 counts only when it reported it (forecast/types.ts).
    et0_native_mm: et0In === null || (et0In === 0 && !e.et0_reported) ? null : et0In * 25.4,
  };
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
