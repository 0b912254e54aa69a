import type { Et0Method } from '../../agronomy/et0';
import type { DailyWeather } from '../../store/weather-days';
import { et0OfRecord, type Et0Site, type RecordEt0 } from './et0-of-day';

/**
 * How sure a recorded day's ET0 is (pure), for the soil ledger. A day whose
 * ET0 had to be estimated from bridged inputs, or could not be computed,
 * would otherwise either pass for a measurement (an estimate's error stays
 * in the ledger for good in a dry climate, where the engine refills exactly
 * what the ledger says) or open the range to the full TAW (an establishing
 * refill then over-waters by most of it). Instead the day carries a band:
 *
 * - Bridged: an ET0 input the station measured on most of the previous
 *   RECENT_DAYS days (temperatures, humidity, wind, radiation) came from
 *   elsewhere today (the forecast model's past day, or a chapter 3
 *   estimate): the ledger keeps the estimate and a band of
 *   +-BRIDGED_ET0_SHARE around it, the spread of temperature-based estimates
 *   against Penman-Monteith in daily comparisons. An install that never
 *   measured the input has no band: its estimate is its usual method.
 * - Unknown: no ET0 at all, but the record knows some of the previous
 *   RECENT_DAYS days: the band runs from their lowest ET0 less
 *   BRIDGED_ET0_SHARE to their highest plus it, the site's plausible ET0 in
 *   that week. ET0 itself stays null.
 * - Nothing recent either: no band (the range spans [0, TAW] as before).
 *
 * The answer depends only on the record's days, so a restart that reads the
 * same record gets the same band.
 */

export const RECENT_DAYS = 7;
export const BRIDGED_ET0_SHARE = 0.25;

export type Et0Band = [number, number];

const INPUTS = ['tmax', 'tmin', 'humidity', 'wind', 'radiation'] as const;

/** The day's ET0 with its band (null when none applies); `recent` are the previous days' raw ET0s, any order. */
export function withEt0Band(day: RecordEt0, recent: readonly (RecordEt0 | undefined)[]): RecordEt0 {
  const known = recent.filter((r): r is RecordEt0 => r !== undefined && r.et0_mm !== null);
  if (day.et0_mm === null) {
    if (known.length === 0) return { ...day, band_mm: null };
    const values = known.map((r) => r.et0_mm as number);
    const band: Et0Band = [
      round(Math.min(...values) * (1 - BRIDGED_ET0_SHARE)),
      round(Math.max(...values) * (1 + BRIDGED_ET0_SHARE)),
    ];
    return {
      ...day,
      band_mm: band,
      reason: `${day.reason}; bounded by the last ${RECENT_DAYS} days' recorded ET0 (${known.length} known), widened by ${pct(BRIDGED_ET0_SHARE)}: ${band[0]}-${band[1]} mm`,
    };
  }
  const bridged = INPUTS.filter((input) => usuallyMeasured(input, known) && day.inputs[input] !== 'station');
  if (bridged.length === 0) return { ...day, band_mm: null };
  const band: Et0Band = [
    round(day.et0_mm * (1 - BRIDGED_ET0_SHARE)),
    round(day.et0_mm * (1 + BRIDGED_ET0_SHARE)),
  ];
  const from = bridged.map((input) => `${input} from ${day.inputs[input] ?? 'none'}`).join(', ');
  return {
    ...day,
    band_mm: band,
    reason: `${day.reason}; bridged (${from}), so the ledger carries ${pct(BRIDGED_ET0_SHARE)} either way: ${band[0]}-${band[1]} mm`,
  };
}

/** The station measured the input on most of the known recent days. */
function usuallyMeasured(input: (typeof INPUTS)[number], recent: readonly RecordEt0[]): boolean {
  const measured = recent.filter((r) => r.inputs[input] === 'station').length;
  return recent.length > 0 && measured * 2 > recent.length;
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

function pct(share: number): string {
  return `${Math.round(share * 100)} %`;
}

/** A record day's ET0 with its band, from the record's days (`weatherOf`) of that day and the RECENT_DAYS before it. */
export function bandedEt0OfRecord(
  date: string,
  weatherOf: (date: string) => DailyWeather | undefined,
  addDays: (date: string, days: number) => string,
  method: Et0Method,
  site: Et0Site,
): RecordEt0 {
  const raw = (d: string) => {
    const w = weatherOf(d);
    return w ? et0OfRecord(w, d, method, site) : undefined;
  };
  const recent = Array.from({ length: RECENT_DAYS }, (_, i) => raw(addDays(date, -(i + 1))));
  return withEt0Band(et0OfRecord(weatherOf(date), date, method, site), recent);
}
