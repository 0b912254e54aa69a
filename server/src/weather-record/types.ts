/**
 * The daily weather record: one row per local day of the deployment, each
 * field with where it came from and how much of the day backs it. Station
 * measurements first, the forecast model's past days as the fallback, and
 * null when neither has the day: never a made-up value.
 */

import {
  RECORD_FIELDS,
  type DailyWeather,
  type FieldProvenance,
  type RecordField,
  type RecordValues,
} from '../store/weather-days';

export {
  RECORD_FIELDS,
  type DailyWeather,
  type FieldOrigin,
  type FieldProvenance,
  type RecordField,
  type RecordValues,
} from '../store/weather-days';

/** Spec 2.5 `observed_rain_source` of one day's rain. */
export function rainSourceOf(day: DailyWeather | undefined): 'gauge' | 'model_archive' | 'none' {
  const origin = day?.rain_mm === null || day === undefined ? 'none' : day.sources.rain_mm.source;
  return origin === 'station' ? 'gauge' : origin;
}

export const NO_PROVENANCE: FieldProvenance = { source: 'none', source_id: null, coverage: 0 };

export function emptyDay(date: string): DailyWeather {
  const values = Object.fromEntries(RECORD_FIELDS.map((f) => [f, null])) as RecordValues;
  const sources = Object.fromEntries(RECORD_FIELDS.map((f) => [f, NO_PROVENANCE])) as Record<
    RecordField,
    FieldProvenance
  >;
  return { date_local: date, ...values, sources };
}
