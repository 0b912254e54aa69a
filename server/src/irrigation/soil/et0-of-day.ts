import { et0, type Et0Inputs, type Et0Method } from '../../agronomy/et0';
import type { DailyWeather } from '../../store/weather-days';
import { dayOfYear } from '../engine/et0-days';

/**
 * A recorded day's reference ET0 (FAO-56 through `et0()` and the configured
 * method), with the method, why, and where each weather input came from.
 * Humidity goes in as RHmax and RHmin when the record has both (eq. 17),
 * else RHmean (eq. 19); `et0()` estimates what is missing the way chapter 3
 * prescribes and says so. Wind is the record's 2 m mean.
 */

export interface RecordEt0 {
  et0_mm: number | null;
  method: string | null;
  reason: string;
  /** Input -> origin (`station`, `model_archive`, `none`). */
  inputs: Record<string, string>;
  /** Bounds of the day's ET0 for the ledger when it is bridged or unknown (et0-bridge.ts); absent or null otherwise. */
  band_mm?: [number, number] | null;
}

export interface Et0Site {
  lat: number;
  elevation_m: number | null;
}

/** A record day's ET0 per method and site, kept while the day object lives (the ledger view reuses it). */
const cache = new WeakMap<DailyWeather, Map<string, RecordEt0>>();

export function et0OfRecord(
  day: DailyWeather | undefined,
  date: string,
  method: Et0Method,
  site: Et0Site,
): RecordEt0 {
  if (!day) return { et0_mm: null, method: null, reason: 'no weather record for the day', inputs: {} };
  const key = `${date}|${method}|${site.lat}|${site.elevation_m}`;
  let byKey = cache.get(day);
  if (!byKey) cache.set(day, (byKey = new Map()));
  let result = byKey.get(key);
  if (!result) byKey.set(key, (result = computeEt0(day, date, method, site)));
  return result;
}

function computeEt0(day: DailyWeather, date: string, method: Et0Method, site: Et0Site): RecordEt0 {
  const eq17 = day.rh_max_pct !== null && day.rh_min_pct !== null;
  const inputs: Et0Inputs = {
    tMaxC: day.tmax_c,
    tMinC: day.tmin_c,
    rhMaxPct: eq17 ? day.rh_max_pct : null,
    rhMinPct: eq17 ? day.rh_min_pct : null,
    rhMeanPct: eq17 ? null : day.rh_mean_pct,
    windSpeedMs: day.wind_2m_ms,
    windHeightM: 2,
    solarRadiationMjM2Day: day.rs_mj_m2,
    latitudeDeg: site.lat,
    elevationM: site.elevation_m,
    dayOfYear: dayOfYear(date),
    sourceNativeEt0Mm: day.et0_native_mm,
  };
  const sel = et0(inputs, method);
  const value = sel.et0_mm === null || !Number.isFinite(sel.et0_mm) ? null : Math.max(0, sel.et0_mm);
  const origin = (f: keyof DailyWeather['sources']) => day.sources[f].source;
  return {
    et0_mm: value,
    method: sel.method,
    reason: sel.reason,
    inputs: {
      tmax: origin('tmax_c'),
      tmin: origin('tmin_c'),
      humidity: eq17 ? origin('rh_min_pct') : origin('rh_mean_pct'),
      humidity_equation: eq17 ? 'eq17_rh_max_min' : day.rh_mean_pct !== null ? 'eq19_rh_mean' : 'estimated',
      wind: origin('wind_2m_ms'),
      radiation: origin('rs_mj_m2'),
    },
  };
}
