import { epochSeconds, type Clock } from '../../core/clock';
import { LocalTime } from '../../core/tz/local-time';
import { timeZone } from '../../core/tz/time-zone';
import { demoDayOf, demoWeatherAt, stormShapeAt } from '../../weather/sources/demo/demo-replay';
import { dailyFromHourly } from '../aggregate';
import type { ForecastProvider, ForecastRequest, HourlyEntry, ProviderForecast } from '../types';
import { demoDayCall } from './demo-forecast-calls';

/**
 * The demo forecast: the demo replay's weather hour by hour, needing no
 * network, with a realistic forecast's rain: the day's call
 * (demo-forecast-calls.ts) sometimes misses a storm and sometimes promises
 * one that never falls, drawn in the storm's shape (14:00-15:30). Past days
 * are the replay's truth. Temperature, wind and humidity are the replay's.
 */
export class DemoForecastProvider implements ForecastProvider {
  readonly kind = 'demo_replay';
  readonly label = 'Demo forecast (synthetic)';

  constructor(
    readonly id: string,
    private readonly clock: Clock,
  ) {}

  async fetch(request: ForecastRequest): Promise<ProviderForecast> {
    const zone = timeZone(request.timezone);
    const now = epochSeconds(this.clock);
    const today = LocalTime.fromSeconds(now, zone).startOfDay();
    const from = today.plus({ days: -request.pastDays }).seconds;
    const to = today.plus({ days: request.forecastDays }).seconds;
    const hourly: HourlyEntry[] = [];
    const issueDay = demoDayOf(now, request.timezone);
    for (let t = from; t < to; t += 3600) hourly.push(demoHour(t, request.timezone, issueDay));
    return {
      provider: 'demo_replay',
      model: 'demo',
      fetched_at: now,
      hourly,
      daily: dailyFromHourly(hourly, request.timezone),
    };
  }
}

function demoHour(start: number, timezone: string, issueDay: number): HourlyEntry {
  // The hour's rain is the mean of its four quarter-hour intensities, as the day's call draws them.
  const quarters = [0, 900, 1800, 2700].map((s) => stormShapeAt(start + s, timezone));
  const call = demoDayCall(quarters[0]!.day, issueDay);
  const precip = quarters.reduce((sum, q) => sum + q.intensity_in_hr * call.scale, 0) / quarters.length;
  const inStormHours = quarters.some((q) => q.intensity_in_hr > 0);
  const middle = demoWeatherAt(start + 1800, timezone);
  return {
    time_epoch: start,
    temp_f: middle.air_temp_f ?? null,
    precip_in: Number(precip.toFixed(3)),
    // A missed storm keeps its low chance in the storm hours; a dry call says 5 %.
    precip_probability: precip > 0 || (inStormHours && call.kind === 'miss') ? call.probability_pct : 5,
    wind_mph: middle.wind_avg_mph ?? null,
    humidity_pct: middle.rh_pct ?? null,
    et0_in: null,
    et0_reported: false,
  };
}
