import type { Format, QuantityName } from '../zones/zone-model';
import type { ForecastSnapshot, WeatherHistory } from './weather-types';

/**
 * Series for the dashboard's rain and temperature charts (pure): observed
 * hours from weather/history (when mounted), forecast hours from the forecast
 * snapshot, on one hourly axis from `pastHours` before now to `aheadHours`
 * after. An hour without evidence is null (a gap), never 0.
 */

export const HOUR = 3600;

/** displayValue bound to the display units. */
export type Convert = (quantity: QuantityName, value: number | null | undefined) => number | null;

export interface Hourly {
  /** Start of each hour, epoch seconds. */
  x: number[];
  observedRainIn: (number | null)[];
  forecastRainIn: (number | null)[];
  forecastPct: (number | null)[];
  observedTempF: (number | null)[];
  forecastTempF: (number | null)[];
}

/**
 * Rain per hour from the per-minute `rain_in_today` running total: each step
 * between two readings adds its increase to the later reading's hour; a drop
 * is the midnight reset (the new total is the rain since). An hour no step
 * lands in stays unknown.
 */
export function observedRainByHour(rows: WeatherHistory['rows']): Map<number, number> {
  const out = new Map<number, number>();
  let prev: number | null = null;
  for (const row of rows) {
    const value = row['rain_in_today'];
    if (typeof value !== 'number' || !Number.isFinite(value)) continue;
    if (prev !== null) {
      const step = value >= prev ? value - prev : value;
      const hour = Math.floor(row.epoch / HOUR) * HOUR;
      out.set(hour, (out.get(hour) ?? 0) + step);
    }
    prev = value;
  }
  return out;
}

/** Mean air temperature per hour (hours without readings are absent). */
export function observedTempByHour(rows: WeatherHistory['rows']): Map<number, number> {
  const sums = new Map<number, { sum: number; n: number }>();
  for (const row of rows) {
    const value = row['air_temp_f'];
    if (typeof value !== 'number' || !Number.isFinite(value)) continue;
    const hour = Math.floor(row.epoch / HOUR) * HOUR;
    const s = sums.get(hour) ?? { sum: 0, n: 0 };
    s.sum += value;
    s.n += 1;
    sums.set(hour, s);
  }
  return new Map([...sums].map(([hour, s]) => [hour, s.sum / s.n]));
}

export function buildHourly(
  history: WeatherHistory | null,
  forecast: ForecastSnapshot | null,
  nowEpoch: number,
  pastHours = 24,
  aheadHours = 48,
): Hourly {
  const current = Math.floor(nowEpoch / HOUR) * HOUR;
  const rain = history ? observedRainByHour(history.rows) : new Map<number, number>();
  const temp = history ? observedTempByHour(history.rows) : new Map<number, number>();
  const hours = new Map((forecast?.hourly ?? []).map((h) => [Math.floor(h.time_epoch / HOUR) * HOUR, h]));
  const out: Hourly = {
    x: [],
    observedRainIn: [],
    forecastRainIn: [],
    forecastPct: [],
    observedTempF: [],
    forecastTempF: [],
  };
  for (let t = current - pastHours * HOUR; t <= current + aheadHours * HOUR; t += HOUR) {
    const past = t <= current;
    const f = t >= current ? hours.get(t) : undefined;
    out.x.push(t);
    out.observedRainIn.push(past ? round(rain.get(t) ?? null, 3) : null);
    out.observedTempF.push(past ? round(temp.get(t) ?? null, 1) : null);
    out.forecastRainIn.push(f ? f.precip_in : null);
    out.forecastPct.push(f ? f.precip_probability : null);
    out.forecastTempF.push(f ? f.temp_f : null);
  }
  return out;
}

function round(value: number | null, digits: number): number | null {
  return value === null ? null : Number(value.toFixed(digits));
}

function hours(n: number, word: string): string {
  return n === 1 ? word : `${n} ${word}s`;
}

function sumKnown(values: readonly (number | null)[]): { sum: number; known: number } {
  let sum = 0;
  let known = 0;
  for (const v of values) {
    if (v === null) continue;
    sum += v;
    known += 1;
  }
  return { sum, known };
}

/** The rain chart for screen readers, in display units. */
export function rainSummary(h: Hourly, fmt: Format, hourLabel: (epoch: number) => string): string {
  const parts: string[] = [];
  const observed = sumKnown(h.observedRainIn);
  if (observed.known === 0) parts.push('No observed rain history is available.');
  else
    parts.push(
      `Observed: ${fmt('rain_in', observed.sum)} of rain over the ${hours(observed.known, 'past hour')} with readings.`,
    );
  const forecast = sumKnown(h.forecastRainIn);
  if (forecast.known === 0) parts.push('No forecast rain is available.');
  else {
    parts.push(`Forecast: ${fmt('rain_in', forecast.sum)} over the next ${hours(forecast.known, 'hour')}.`);
    let best = -1;
    let at = -1;
    h.forecastPct.forEach((p, i) => {
      if (p !== null && p > best) {
        best = p;
        at = i;
      }
    });
    if (best >= 0 && at >= 0)
      parts.push(`Highest chance of rain ${best}% at ${hourLabel(h.x[at] as number)}.`);
  }
  return parts.join(' ');
}

export function tempSummary(h: Hourly, fmt: Format): string {
  const range = (values: readonly (number | null)[]) => {
    const known = values.filter((v): v is number => v !== null);
    return known.length === 0 ? null : [Math.min(...known), Math.max(...known)];
  };
  const observed = range(h.observedTempF);
  const forecast = range(h.forecastTempF);
  return [
    observed
      ? `Observed temperature ${fmt('temp_f', observed[0])} to ${fmt('temp_f', observed[1])}.`
      : 'No observed temperature history is available.',
    forecast
      ? `Forecast ${fmt('temp_f', forecast[0])} to ${fmt('temp_f', forecast[1])}.`
      : 'No temperature forecast is available.',
  ].join(' ');
}
