import { compareText } from '../core/compare';
import { LocalTime } from '../core/tz/local-time';
import { timeZone } from '../core/tz/time-zone';
import type { RecordField, RecordValues } from './types';

/**
 * Daily aggregates of one measuring source from its stored readings (the
 * per-source history the weather service writes at most once a minute).
 * Pure: readings in, days out.
 *
 * Coverage is the share of the local day's hours (23 or 25 on DST days)
 * holding at least one reading of the field. A value is given only when its
 * hours back it (aggregate.ts holds forecasts to the same rule):
 * - max, min and means need 20 hours;
 * - solar radiation (a sum) needs every hour: Rs = the mean of the hourly
 *   means (W/m2) x the day's seconds;
 * - rain is the day's last `rain_in_today` (the station's running total since
 *   local midnight): it needs a reading in the day's last hour and at most one
 *   hour without readings, since rain in a gap may never have been counted.
 * Wind is the station's mean wind (`wind_avg_mph`) taken as measured at 2 m,
 * the FAO-56 reference height: a station's anemometer height is not in its
 * readings.
 */

export interface StationDay {
  date_local: string;
  source_id: string;
  values: Partial<RecordValues>;
  coverage: Partial<Record<RecordField, number>>;
}

export interface StoredReading {
  epoch: number;
  source_id: string;
  field: string;
  value: number;
}

/** The reading fields the record reads. */
export const STATION_FIELDS = [
  'air_temp_f',
  'rh_pct',
  'wind_avg_mph',
  'solar_w_m2',
  'rain_in_today',
] as const;

const MIN_HOURS = 20;
const MPH_TO_MS = 0.44704;

interface Hourly {
  /** hour index -> values seen in that hour */
  hours: Map<number, number[]>;
  last: { epoch: number; value: number } | null;
}

export function stationDays(
  readings: readonly StoredReading[],
  stationIds: ReadonlySet<string>,
  timezone: string,
  dates: readonly string[],
): StationDay[] {
  const zone = timeZone(timezone);
  const wanted = new Set(dates);
  const buckets = new Map<string, Map<string, Hourly>>();
  for (const r of readings) {
    if (!stationIds.has(r.source_id) || !Number.isFinite(r.value)) continue;
    const local = LocalTime.fromSeconds(r.epoch, zone);
    const date = local.isoDate ?? '';
    if (!wanted.has(date)) continue;
    const key = `${date}|${r.source_id}`;
    const fields = buckets.get(key) ?? new Map<string, Hourly>();
    buckets.set(key, fields);
    const h = fields.get(r.field) ?? { hours: new Map(), last: null };
    fields.set(r.field, h);
    const hour = Math.floor((r.epoch - local.startOfDay().seconds) / 3600);
    h.hours.set(hour, [...(h.hours.get(hour) ?? []), r.value]);
    if (!h.last || r.epoch >= h.last.epoch) h.last = { epoch: r.epoch, value: r.value };
  }
  const out: StationDay[] = [];
  for (const [key, fields] of [...buckets.entries()].sort(([a], [b]) => compareText(a, b))) {
    const [date = '', sourceId = ''] = key.split('|');
    const start = LocalTime.fromIsoDate(date, zone).startOfDay();
    const hoursInDay = Math.round((start.plus({ days: 1 }).seconds - start.seconds) / 3600);
    out.push({ date_local: date, source_id: sourceId, ...aggregate(fields, hoursInDay) });
  }
  return out;
}

function aggregate(
  fields: Map<string, Hourly>,
  hoursInDay: number,
): Omit<StationDay, 'date_local' | 'source_id'> {
  const values: Partial<RecordValues> = {};
  const coverage: Partial<Record<RecordField, number>> = {};
  const need = Math.min(MIN_HOURS, hoursInDay);
  const share = (h: Hourly | undefined) => (h ? Math.min(1, h.hours.size / hoursInDay) : 0);
  const all = (h: Hourly) => [...h.hours.values()].flat();
  const hourlyMeans = (h: Hourly) => [...h.hours.values()].map(mean);

  const temp = fields.get('air_temp_f');
  if (temp) {
    coverage.tmax_c = coverage.tmin_c = share(temp);
    if (temp.hours.size >= need) {
      values.tmax_c = fToC(Math.max(...all(temp)));
      values.tmin_c = fToC(Math.min(...all(temp)));
    }
  }
  const rh = fields.get('rh_pct');
  if (rh) {
    coverage.rh_max_pct = coverage.rh_min_pct = coverage.rh_mean_pct = share(rh);
    if (rh.hours.size >= need) {
      values.rh_max_pct = Math.max(...all(rh));
      values.rh_min_pct = Math.min(...all(rh));
      values.rh_mean_pct = mean(hourlyMeans(rh));
    }
  }
  const wind = fields.get('wind_avg_mph');
  if (wind) {
    coverage.wind_2m_ms = share(wind);
    if (wind.hours.size >= need) values.wind_2m_ms = mean(hourlyMeans(wind)) * MPH_TO_MS;
  }
  const solar = fields.get('solar_w_m2');
  if (solar) {
    coverage.rs_mj_m2 = share(solar);
    if (solar.hours.size >= hoursInDay)
      values.rs_mj_m2 = (mean(hourlyMeans(solar)) * hoursInDay * 3600) / 1e6;
  }
  const rain = fields.get('rain_in_today');
  if (rain) {
    coverage.rain_mm = share(rain);
    const lastHourSeen = rain.hours.has(hoursInDay - 1);
    if (lastHourSeen && rain.hours.size >= hoursInDay - 1 && rain.last) {
      values.rain_mm = rain.last.value * 25.4;
    }
  }
  return { values, coverage };
}

function mean(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

function fToC(f: number): number {
  return ((f - 32) * 5) / 9;
}
