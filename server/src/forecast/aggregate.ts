import { LocalTime } from '../core/tz/local-time';
import { timeZone } from '../core/tz/time-zone';
import type { DailyEntry, HourlyEntry } from './types';

/**
 * Local days from hourly entries, for providers that publish no daily values.
 * A daily value needs enough of its day: a max or sum over a few hours would
 * pass for the day's when it is not.
 */

/** Hours of a local day that must carry a value before the day's aggregate is given. */
export const MIN_HOURS_FOR_DAY = 20;

export function dailyFromHourly(hourly: readonly HourlyEntry[], timezone: string): DailyEntry[] {
  const zone = timeZone(timezone);
  const days = new Map<string, HourlyEntry[]>();
  for (const hour of hourly) {
    const date = LocalTime.fromSeconds(hour.time_epoch, zone).isoDate ?? '';
    days.set(date, [...(days.get(date) ?? []), hour]);
  }
  return [...days.entries()].map(([date, hours]) => {
    const start = LocalTime.fromIsoDate(date, zone);
    const length = Math.round((start.plus({ days: 1 }).seconds - start.seconds) / 3600);
    const need = Math.min(MIN_HOURS_FOR_DAY, length);
    const values = (pick: (h: HourlyEntry) => number | null) =>
      hours.map(pick).filter((v): v is number => v !== null);
    const temps = values((h) => h.temp_f);
    const precip = values((h) => h.precip_in);
    const pops = values((h) => h.precip_probability);
    const winds = values((h) => h.wind_mph);
    const humidity = values((h) => h.humidity_pct);
    const et0 = values((h) => (h.et0_reported ? h.et0_in : null));
    const whole = (list: number[]) => list.length >= need;
    return {
      date_local: date,
      time_epoch: start.seconds,
      temp_max_f: whole(temps) ? Math.max(...temps) : null,
      temp_min_f: whole(temps) ? Math.min(...temps) : null,
      // A sum needs every hour: a gap cannot prove a dry hour.
      precip_sum_in: precip.length === length ? round(sum(precip), 3) : null,
      precip_probability_max: whole(pops) ? Math.max(...pops) : null,
      wind_max_mph: whole(winds) ? Math.max(...winds) : null,
      wind_mean_2m_ms: whole(winds) ? round(mphTo2mMs(sum(winds) / winds.length), 2) : null,
      humidity_pct: whole(humidity) ? round(sum(humidity) / humidity.length, 1) : null,
      humidity_mean_pct: whole(humidity) ? round(sum(humidity) / humidity.length, 1) : null,
      humidity_max_pct: whole(humidity) ? Math.max(...humidity) : null,
      humidity_min_pct: whole(humidity) ? Math.min(...humidity) : null,
      et0_in: et0.length === length ? round(sum(et0), 3) : null,
      et0_reported: et0.length === length,
      sunrise_epoch: null,
      sunset_epoch: null,
      radiation_mj_m2: null,
    };
  });
}

/** FAO-56 eq. 47: wind at 2 m from wind at 10 m, u2 = u10 * 4.87 / ln(67.8 * 10 - 5.42). */
export function mphTo2mMs(mphAt10m: number): number {
  return mphAt10m * 0.44704 * (4.87 / Math.log(67.8 * 10 - 5.42));
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

function round(value: number, digits: number): number {
  return Number(value.toFixed(digits));
}
