import { LocalTime as WallTime } from '../../../core/tz/local-time';
import { timeZone } from '../../../core/tz/time-zone';
import { lazySchema } from '../../../core/zod-lazy';
import { epochSeconds } from '../../../core/clock';
import type { WeatherField } from '../../fields';
import type { Reading, SourceContext, SourceKindDefinition, StrikeEvent, WeatherSource } from '../../source';

/**
 * `demo_replay`: deterministic synthetic weather driven by the injected clock,
 * so the demo and tests look alive and repeat exactly. A diurnal temperature
 * and humidity cycle, daytime sun, breezy afternoons with gusts, and a
 * 16-day rhythm: a showery week (an afternoon thunderstorm, 14:00-15:30, with
 * rain and lightning on days 0, 3 and 6 of each cycle) then nine dry days.
 * The dry spell lets the engine prove a deficit, so the demo shows both rain
 * skips and planned water. Nothing here is a measurement; the snapshot
 * says so through the source's label and `measured: false` samples.
 */

const STORM_START_H = 14;
const STORM_HOURS = 1.5;
const STORM_PEAK_IN_HR = 0.6;
const STRIKE_EVERY_S = 240;
const TICK_MS = 60_000;

export const DEMO_FIELDS: readonly WeatherField[] = [
  'air_temp_f',
  'rh_pct',
  'pressure_inhg',
  'wind_lull_mph',
  'wind_avg_mph',
  'wind_gust_mph',
  'wind_dir_deg',
  'illuminance_lx',
  'uv_index',
  'solar_w_m2',
  'rain_in_last_min',
  'rain_in_today',
  'rain_intensity_in_hr',
  'precip_type',
  'lightning_count_last_min',
  'battery_v',
];

interface LocalTime {
  hour: number;
  dayOrdinal: number;
  midnightEpoch: number;
}

function localTime(epoch: number, timezone: string): LocalTime {
  const t = WallTime.fromSeconds(epoch, timeZone(timezone));
  const midnight = t.startOfDay();
  return {
    // Wall-clock hour, so the storm starts at 14:00 local on DST days too.
    hour: t.hour + t.minute / 60 + t.second / 3600,
    // The local calendar date's day number: two local days never share one across a DST change.
    dayOrdinal: Math.floor(Date.UTC(t.year, t.month - 1, t.day) / 86_400_000),
    midnightEpoch: midnight.seconds,
  };
}

/** Deterministic noise in -1..1 for a whole minute. */
function noise(epoch: number, salt: number): number {
  let x = (Math.floor(epoch / 60) * 2654435761 + salt * 40503) >>> 0;
  x ^= x >>> 13;
  x = Math.imul(x, 0x5bd1e995) >>> 0;
  x ^= x >>> 15;
  return (x / 0xffffffff) * 2 - 1;
}

const CYCLE_DAYS = 16;
const STORM_CYCLE_DAYS: ReadonlySet<number> = new Set([0, 3, 6]);

/** `day`: days since 1970-01-01 of the local calendar date. */
export function isStormDay(day: number): boolean {
  return STORM_CYCLE_DAYS.has(((day % CYCLE_DAYS) + CYCLE_DAYS) % CYCLE_DAYS);
}

/**
 * The storm's shape at an instant, whether or not the day has a storm: the
 * local day's number and the intensity (in/h) a storm would have then. The
 * demo forecast draws its calls, right or wrong, in this shape.
 */
export function stormShapeAt(epoch: number, timezone: string): { day: number; intensity_in_hr: number } {
  const { hour, dayOrdinal } = localTime(epoch, timezone);
  return { day: dayOrdinal, intensity_in_hr: stormIntensity(hour) };
}

/** The local calendar day number (days since 1970-01-01) of an instant. */
export function demoDayOf(epoch: number, timezone: string): number {
  return localTime(epoch, timezone).dayOrdinal;
}

/** Storm rain intensity (in/h) at local hour h: a half-sine over the storm. */
function stormIntensity(hour: number): number {
  const t = hour - STORM_START_H;
  return t >= 0 && t < STORM_HOURS ? STORM_PEAK_IN_HR * Math.sin((Math.PI * t) / STORM_HOURS) : 0;
}

/** Rain since local midnight: the integral of the half-sine up to h. */
function stormRainSoFar(hour: number): number {
  const t = Math.min(Math.max(hour - STORM_START_H, 0), STORM_HOURS);
  return ((STORM_PEAK_IN_HR * STORM_HOURS) / Math.PI) * (1 - Math.cos((Math.PI * t) / STORM_HOURS));
}

export function demoWeatherAt(epoch: number, timezone: string): Record<string, number> {
  const { hour, dayOrdinal } = localTime(epoch, timezone);
  const storm = isStormDay(dayOrdinal);
  const diurnal = Math.sin((2 * Math.PI * (hour - 9)) / 24);
  const intensity = storm ? stormIntensity(hour) : 0;
  const raining = intensity > 0;
  const sun = hour > 6.5 && hour < 19.5 ? Math.sin((Math.PI * (hour - 6.5)) / 13) : 0;
  const solar = Math.max(0, 950 * sun * (raining ? 0.15 : 1) + 30 * noise(epoch, 7) * sun);
  const avg = Math.max(0, 4 + 5 * Math.max(0, diurnal) + 1.5 * noise(epoch, 3) + (raining ? 6 : 0));
  const air = 76 + 4 * Math.sin(dayOrdinal * 0.7) + 10 * diurnal - (raining ? 8 : 0) + 0.4 * noise(epoch, 1);
  return {
    air_temp_f: round(air, 1),
    rh_pct: round(raining ? 96 : Math.min(98, Math.max(25, 62 - 28 * diurnal + 3 * noise(epoch, 2))), 0),
    pressure_inhg: round(29.95 + 0.12 * Math.sin(dayOrdinal * 0.5 + hour / 8) - (raining ? 0.06 : 0), 3),
    wind_lull_mph: round(avg * 0.45, 1),
    wind_avg_mph: round(avg, 1),
    wind_gust_mph: round(avg * 1.6 + Math.abs(noise(epoch, 4)) * 3, 1),
    wind_dir_deg: Math.round((135 + 40 * Math.sin(hour / 4) + 15 * noise(epoch, 5) + 360) % 360),
    illuminance_lx: Math.round(solar * 120),
    uv_index: round(solar / 90, 1),
    solar_w_m2: Math.round(solar),
    rain_in_last_min: round(intensity / 60, 4),
    rain_in_today: round(storm ? stormRainSoFar(hour) : 0, 3),
    rain_intensity_in_hr: round(intensity, 3),
    precip_type: raining ? 1 : 0,
    lightning_count_last_min: strikesBetween(epoch - 60, epoch, timezone).length,
    battery_v: 2.65,
  };
}

/** Strikes in (from, to]: every 4 minutes during the first 45 storm minutes, closing from 12 to 3 miles. */
export function strikesBetween(from: number, to: number, timezone: string): StrikeEvent[] {
  const strikes: StrikeEvent[] = [];
  const first = Math.floor(from / STRIKE_EVERY_S) * STRIKE_EVERY_S + STRIKE_EVERY_S;
  for (let epoch = first; epoch <= to; epoch += STRIKE_EVERY_S) {
    const { hour, dayOrdinal } = localTime(epoch, timezone);
    const t = hour - STORM_START_H;
    if (!isStormDay(dayOrdinal) || t < 0 || t >= 0.75) continue;
    strikes.push({
      epoch,
      distanceMi: round(12 - 12 * t, 1),
      energy: 1000 + Math.round(500 * Math.abs(noise(epoch, 9))),
    });
  }
  return strikes;
}

function round(value: number, digits: number): number {
  return Number(value.toFixed(digits));
}

class DemoReplaySource implements WeatherSource {
  readonly kind = 'demo_replay';
  private timer: NodeJS.Timeout | null = null;
  private lastTick: number;

  constructor(private readonly ctx: SourceContext) {
    this.id = ctx.id;
    this.lastTick = epochSeconds(ctx.clock);
  }

  readonly id: string;

  async start(): Promise<void> {
    this.tick();
    this.timer = setInterval(() => this.tick(), TICK_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  readingsAt(nowEpoch: number): Reading[] {
    const values = demoWeatherAt(nowEpoch, this.ctx.location.timezone);
    return DEMO_FIELDS.map((field) => ({ field, value: values[field] ?? null, observedEpoch: nowEpoch }));
  }

  /** Publishes the strikes that happened since the last tick. */
  tick(): void {
    const now = epochSeconds(this.ctx.clock);
    const strikes = strikesBetween(this.lastTick, now, this.ctx.location.timezone);
    this.lastTick = now;
    this.ctx.sink.contact(true);
    this.ctx.sink.publish({ strikes, stationSerial: 'ST-DEMO0001', hubSerial: 'HB-DEMO0001' });
  }
}

export const demoReplayKind: SourceKindDefinition = {
  kind: 'demo_replay',
  label: 'Demo replay (synthetic weather)',
  provides: DEMO_FIELDS,
  configSchema: lazySchema((z) => z.looseObject({})),
  create: (ctx) => new DemoReplaySource(ctx),
};
