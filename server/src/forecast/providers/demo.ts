import { DateTime } from 'luxon';
import { epochSeconds, type Clock } from '../../core/clock';
import { zoneFor } from '../../core/tz/zone';
import { demoWeatherAt } from '../../weather/sources/demo/demo-replay';
import { dailyFromHourly } from '../aggregate';
import type { ForecastProvider, ForecastRequest, HourlyEntry, ProviderForecast } from '../types';

/**
 * The demo forecast: the same deterministic weather the demo replay source
 * reports, hour by hour, so plans, verdicts and charts agree with the live
 * snapshot and need no network. Rain probability is high in the storm hours
 * of storm days and low otherwise.
 */
export class DemoForecastProvider implements ForecastProvider {
  readonly kind = 'demo_replay';
  readonly label = 'Demo forecast (synthetic)';

  constructor(
    readonly id: string,
    private readonly clock: Clock,
  ) {}

  async fetch(request: ForecastRequest): Promise<ProviderForecast> {
    const zone = zoneFor(request.timezone);
    const now = epochSeconds(this.clock);
    const today = DateTime.fromSeconds(now, { zone }).startOf('day');
    const from = today.minus({ days: request.pastDays }).toSeconds();
    const to = today.plus({ days: request.forecastDays }).toSeconds();
    const hourly: HourlyEntry[] = [];
    for (let t = from; t < to; t += 3600) hourly.push(demoHour(t, request.timezone));
    return {
      provider: 'demo_replay',
      model: 'demo',
      fetched_at: now,
      hourly,
      daily: dailyFromHourly(hourly, request.timezone),
    };
  }
}

function demoHour(start: number, timezone: string): HourlyEntry {
  // The hour's rain is the mean of its four quarter-hour intensities.
  const intensities = [0, 900, 1800, 2700].map(
    (s) => demoWeatherAt(start + s, timezone).rain_intensity_in_hr ?? 0,
  );
  const precip = intensities.reduce((a, b) => a + b, 0) / intensities.length;
  const middle = demoWeatherAt(start + 1800, timezone);
  return {
    time_epoch: start,
    temp_f: middle.air_temp_f ?? null,
    precip_in: Number(precip.toFixed(3)),
    precip_probability: precip > 0 ? 80 : 5,
    wind_mph: middle.wind_avg_mph ?? null,
    humidity_pct: middle.rh_pct ?? null,
    et0_in: null,
    et0_reported: false,
  };
}
