import { et0, type Et0Inputs, type Et0Method } from '../../agronomy/et0';
import type { DailyEntry } from '../../forecast/types';

/**
 * Daily ET0 of the forecast's days (`forecast.daily`; past days come from the
 * weather record, soil/et0-of-day.ts), through `et0()` with `engine.et0_method`
 * (`auto` uses the provider's reported ET0 only when nothing can be
 * computed). The method and its reason are kept per day for the trace.
 */

export interface Et0Day {
  date_local: string;
  et0_mm: number | null;
  method: string | null;
  reason: string;
}

const MM_PER_INCH = 25.4;

function fToC(f: number | null): number | null {
  return f === null || !Number.isFinite(f) ? null : ((f - 32) * 5) / 9;
}

/** Day of the year (1..366) of a YYYY-MM-DD date, by arithmetic (no clock). */
export function dayOfYear(date: string): number {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const before = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334][m - 1] ?? 0;
  return before + d + (leap && m > 2 ? 1 : 0);
}

/** Calendar month 1..12 of a YYYY-MM-DD date. */
export function monthOf(date: string): number {
  return Number(date.slice(5, 7));
}

/** The provider's own ET0 in mm: a positive value, or a zero it reported; else null. */
export function nativeEt0Mm(day: DailyEntry): number | null {
  const v = day.et0_in;
  if (v === null || !Number.isFinite(v) || v < 0) return null;
  if (v === 0 && !day.et0_reported) return null;
  return v * MM_PER_INCH;
}

export function et0ForDay(
  day: DailyEntry | undefined,
  date: string,
  method: Et0Method,
  site: { lat: number; elevation_m: number | null },
): Et0Day {
  if (!day) return { date_local: date, et0_mm: null, method: null, reason: 'no forecast entry for the day' };
  const inputs: Et0Inputs = {
    tMaxC: fToC(day.temp_max_f),
    tMinC: fToC(day.temp_min_f),
    // eq. 17 when the day has both extremes; resolveDaily falls back to the mean (eq. 19).
    rhMaxPct: day.humidity_max_pct ?? null,
    rhMinPct: day.humidity_min_pct ?? null,
    rhMeanPct: day.humidity_mean_pct ?? day.humidity_pct,
    windSpeedMs: day.wind_mean_2m_ms,
    windHeightM: 2,
    solarRadiationMjM2Day: day.radiation_mj_m2,
    latitudeDeg: site.lat,
    elevationM: site.elevation_m,
    dayOfYear: dayOfYear(date),
    sourceNativeEt0Mm: nativeEt0Mm(day),
  };
  const sel = et0(inputs, method);
  const value = sel.et0_mm === null || !Number.isFinite(sel.et0_mm) ? null : Math.max(0, sel.et0_mm);
  return { date_local: date, et0_mm: value, method: sel.method, reason: sel.reason };
}
