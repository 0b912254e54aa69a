import { DateTime } from 'luxon';
import { zoneFor } from '../core/tz/zone';
import type { DailyEntry, ForecastSnapshot, HourlyEntry } from '../forecast/types';
import type { StationDay } from '../weather-record/station-days';
import type { IssuedDay, IssuedForecasts } from './forecast-file';
import { FIELD_SPECS, type WeatherField } from '../weather/fields';
import { buildWeatherSnapshot, type WeatherSnapshot } from '../weather/snapshot';
import type { WthDay } from './wth';

/**
 * The season file as the service's inputs (pure):
 * - the yard's station: each closed day's measured values (a null stays null);
 * - the forecast (`perfect`): the file's next days, and hours shaped from them
 *   (temperature and humidity on a diurnal curve between the day's extremes,
 *   the day's mean wind lower at night and higher in the afternoon, the day's
 *   rain spread over 14:00-18:00 local), or none at all (`none`), or issued
 *   forecasts (`IssuedForecasts`, forecast-file.ts): the day's latest issue
 *   gives rain, its probability and (when given) the temperatures, the
 *   weather file the rest, shaped into hours the same way. A day with nothing
 *   issued is a provider outage: as ForecastService does, the last good
 *   forecast is served (unreachable, with its age) and its days drop out as
 *   they pass, so it is "too old" once its last target day is behind;
 * - the provider's past days for the start-up backfill (`model_archive`);
 * - the live weather at any moment, from the same hours.
 * Day shapes are a modelling choice (documented in docs/irrigation.md,
 * "Season replay"); every daily total and extreme is the file's, or the
 * issued line's.
 */

export type ForecastMode = 'perfect' | 'none' | IssuedForecasts;

/** ForecastService's refresh cadence: an issue day's last good fetch is taken half an hour before its end. */
const REFRESH_EVERY_S = 30 * 60;

/** A forecast day: the weather file's row (or nulls) with the forecast's rain, probability and temperatures. */
interface ForecastDay extends WthDay {
  precip_probability: number | null;
}

const RAIN_HOURS = [14, 15, 16, 17];
/** Past days the replay's provider serves with each forecast (the record's model bridge). */
const MODEL_PAST_DAYS = 3;
/** u10 / u2 from FAO-56 eq. 47 at z = 10 m. */
const U10_OVER_U2 = Math.log(67.8 * 10 - 5.42) / 4.87;
const MS_TO_MPH = 1 / 0.44704;

export class SeasonWeather {
  private readonly byDate: Map<string, WthDay>;

  constructor(
    days: readonly WthDay[],
    private readonly timezone: string,
    private readonly mode: ForecastMode,
  ) {
    this.byDate = new Map(days.map((d) => [d.date, d]));
  }

  day(date: string): WthDay | undefined {
    return this.byDate.get(date);
  }

  /** The station's aggregates of closed days (dates before `today` only: no peeking). */
  stationDays(dates: readonly string[], today: string): StationDay[] {
    const out: StationDay[] = [];
    for (const date of dates) {
      const d = this.byDate.get(date);
      if (!d || date >= today) continue;
      const values = {
        tmax_c: d.tmax_c,
        tmin_c: d.tmin_c,
        rh_max_pct: d.rh_max_pct,
        rh_min_pct: d.rh_min_pct,
        wind_2m_ms: d.wind_2m_ms,
        rs_mj_m2: d.srad_mj_m2,
        rain_mm: d.rain_mm,
      };
      const present = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== null));
      const coverage = Object.fromEntries(Object.keys(present).map((k) => [k, 1]));
      out.push({ date_local: date, source_id: 'season_station', values: present, coverage });
    }
    return out;
  }

  /** The forecast snapshot at `now`: today and 9 days ahead when perfect, nothing when none, the last issue of a file. */
  forecastAt(now: number): ForecastSnapshot {
    const today = this.localDay(now);
    if (this.mode === 'perfect' || this.mode === 'none') {
      const days: ForecastDay[] = [];
      for (let i = 0; this.mode === 'perfect' && i < 10; i++) {
        const day = this.perfectDay(today.plus({ days: i }).toISODate() ?? '');
        if (!day) break;
        days.push(day);
      }
      const perfect = this.mode === 'perfect';
      return this.snapshot(today, days, perfect ? now : null, perfect, 'Season file (perfect forecast)');
    }
    const todayIso = today.toISODate() ?? '';
    const issue = this.mode.lastIssueOnOrBefore(todayIso);
    const reached = issue === todayIso;
    const fetched =
      issue === null
        ? null
        : reached
          ? now
          : DateTime.fromISO(issue, { zone: zoneFor(this.timezone) })
              .plus({ days: 1 })
              .toSeconds() - REFRESH_EVERY_S;
    const days = (issue === null ? [] : this.mode.issuedOn(issue))
      .filter((line) => line.target >= todayIso)
      .map((line) => this.issuedDay(line));
    const past = issue === null ? [] : this.modelPastDays(this.mode, today, fetched);
    return this.snapshot(today, days, fetched, reached, 'Season file (issued forecasts)', past);
  }

  /**
   * The provider's past days as the service sees them (Open-Meteo's
   * `past_days`): the model's own view of each of the last MODEL_PAST_DAYS
   * days up to the last fetch, represented by the lead-0 line issued that day
   * (its rain and, when given, its temperatures; nothing else, so the record
   * bridges only what the model has). A day with no issue has no model day.
   */
  private modelPastDays(mode: IssuedForecasts, today: DateTime, fetched: number | null): ForecastDay[] {
    const out: ForecastDay[] = [];
    for (let i = MODEL_PAST_DAYS; i >= 1; i--) {
      const date = today.minus({ days: i }).toISODate() ?? '';
      const line = mode.sameDay(date);
      if (!line || fetched === null) continue;
      out.push({
        ...emptyDay(date),
        tmax_c: line.tmax_c ?? null,
        tmin_c: line.tmin_c ?? null,
        rain_mm: line.precip_mm,
        precip_probability: line.precip_probability,
      });
    }
    return out;
  }

  private snapshot(
    today: DateTime,
    days: readonly ForecastDay[],
    fetched: number | null,
    reachable: boolean,
    label: string,
    past: readonly ForecastDay[] = [],
  ): ForecastSnapshot {
    const zone = zoneFor(this.timezone);
    const at = (d: ForecastDay) => DateTime.fromISO(d.date, { zone });
    return {
      last_refresh_epoch: fetched,
      source_reachable: reachable,
      source_label: label,
      source_is_backup: false,
      timezone: this.timezone,
      daily: days.map((d) => dailyEntry(at(d), d)),
      past_daily: past.map((d) => dailyEntry(at(d), d)),
      hourly: days.flatMap((d) => hours(at(d), d)).filter((h) => h.time_epoch >= today.toSeconds()),
    };
  }

  /** The file's own day as its perfect forecast (rain certain when it fell). */
  private perfectDay(date: string): ForecastDay | null {
    const d = this.byDate.get(date);
    if (!d) return null;
    return { ...d, precip_probability: d.rain_mm === null ? null : d.rain_mm > 0 ? 100 : 0 };
  }

  /** An issued line over the file's day (or nulls past its end); temperatures only when the line has them. */
  private issuedDay(line: IssuedDay): ForecastDay {
    const base = this.byDate.get(line.target) ?? emptyDay(line.target);
    return {
      ...base,
      tmax_c: line.tmax_c !== undefined ? line.tmax_c : base.tmax_c,
      tmin_c: line.tmin_c !== undefined ? line.tmin_c : base.tmin_c,
      rain_mm: line.precip_mm,
      precip_probability: line.precip_probability,
    };
  }

  /** The provider's past days before `now` (the backfill), as model days. */
  history(now: number, pastDays: number): DailyEntry[] {
    const today = this.localDay(now);
    const out: DailyEntry[] = [];
    for (let i = pastDays; i >= 1; i--) {
      const date = today.minus({ days: i });
      const day = this.perfectDay(date.toISODate() ?? '');
      if (day) out.push(dailyEntry(date, day));
    }
    return out;
  }

  /** The live weather at `now`, observed a minute before. */
  snapshotAt(now: number): WeatherSnapshot {
    const observed = now - 60;
    const local = DateTime.fromSeconds(now, { zone: zoneFor(this.timezone) });
    const date = local.startOf('day');
    const d = this.byDate.get(date.toISODate() ?? '');
    const hour = local.hour + local.minute / 60;
    const values: Partial<Record<WeatherField, number | null>> = {};
    if (d) {
      values.air_temp_f = cToF(tempAt(d, hour));
      values.rh_pct = rhAt(d, hour);
      values.wind_avg_mph = windAt(d, hour);
      const rainSoFar = rainUntil(d, hour);
      values.rain_in_today = rainSoFar === null ? null : rainSoFar / 25.4;
      const rainNow = RAIN_HOURS.includes(Math.floor(hour)) && (d.rain_mm ?? 0) > 0;
      values.rain_intensity_in_hr =
        d.rain_mm === null ? null : rainNow ? (d.rain_mm as number) / 4 / 25.4 : 0;
    }
    const selections = new Map();
    for (const [field, value] of Object.entries(values) as [WeatherField, number | null][]) {
      if (value === null || value === undefined) continue;
      selections.set(field, {
        field,
        value,
        sourceId: 'season_station',
        observedEpoch: observed,
        maxAgeS: FIELD_SPECS[field].maxAgeS,
        reason: 'priority',
      });
    }
    return buildWeatherSnapshot({
      selections,
      lastPacketEpoch: observed,
      pressureTrend: [],
      lightningRecent: [],
      lastStrike: null,
      stationSerial: null,
      hubSerial: null,
      labels: new Map([['season_station', 'Season file station']]),
      stations: new Set(['season_station']),
    });
  }

  private localDay(now: number): DateTime {
    return DateTime.fromSeconds(now, { zone: zoneFor(this.timezone) }).startOf('day');
  }
}

function emptyDay(date: string): WthDay {
  return {
    date,
    srad_mj_m2: null,
    tmax_c: null,
    tmin_c: null,
    vapr_kpa: null,
    tdew_c: null,
    rh_max_pct: null,
    rh_min_pct: null,
    wind_2m_ms: null,
    rain_mm: null,
    etref_mm: null,
    measured: null,
  };
}

function dailyEntry(date: DateTime, d: ForecastDay): DailyEntry {
  const winds = Array.from({ length: 24 }, (_, h) => windAt(d, h + 0.5)).filter(
    (w): w is number => w !== null,
  );
  const rhMean = d.rh_max_pct !== null && d.rh_min_pct !== null ? (d.rh_max_pct + d.rh_min_pct) / 2 : null;
  return {
    date_local: date.toISODate() ?? '',
    time_epoch: date.toSeconds(),
    temp_max_f: d.tmax_c === null ? null : cToF(d.tmax_c),
    temp_min_f: d.tmin_c === null ? null : cToF(d.tmin_c),
    precip_sum_in: d.rain_mm === null ? null : d.rain_mm / 25.4,
    precip_probability_max: d.precip_probability,
    wind_max_mph: winds.length === 24 ? Math.max(...winds) : null,
    wind_mean_2m_ms: d.wind_2m_ms,
    humidity_pct: rhMean,
    humidity_mean_pct: rhMean,
    humidity_max_pct: d.rh_max_pct,
    humidity_min_pct: d.rh_min_pct,
    et0_in: null,
    et0_reported: false,
    sunrise_epoch: null,
    sunset_epoch: null,
    radiation_mj_m2: d.srad_mj_m2,
  };
}

/** The day's hours: its rain over RAIN_HOURS (with the day's probability there, 0 elsewhere). */
function hours(date: DateTime, d: ForecastDay): HourlyEntry[] {
  const out: HourlyEntry[] = [];
  const end = date.plus({ days: 1 }).toSeconds();
  for (let t = date.toSeconds(), h = 0; t < end; t += 3600, h += 1) {
    const inRainHours = RAIN_HOURS.includes(h);
    const rainy = d.rain_mm !== null && d.rain_mm > 0 && inRainHours;
    const rainIn = d.rain_mm === null ? null : rainy ? d.rain_mm / RAIN_HOURS.length / 25.4 : 0;
    out.push({
      time_epoch: t,
      temp_f: nullableCToF(tempAt(d, h + 0.5)),
      precip_in: rainIn,
      precip_probability: d.precip_probability === null ? null : inRainHours ? d.precip_probability : 0,
      wind_mph: windAt(d, h + 0.5),
      humidity_pct: rhAt(d, h + 0.5),
      et0_in: null,
      et0_reported: false,
    });
  }
  return out;
}

/** 0 at 06:00, 1 at 15:00, back to 0 by 06:00 the next day (cosine segments). */
function diurnal(hour: number): number {
  const h = ((hour % 24) + 24) % 24;
  if (h >= 6 && h <= 15) return (1 - Math.cos((Math.PI * (h - 6)) / 9)) / 2;
  const since = h > 15 ? h - 15 : h + 9;
  return (1 + Math.cos((Math.PI * since) / 15)) / 2;
}

function tempAt(d: WthDay, hour: number): number | null {
  if (d.tmax_c === null || d.tmin_c === null) return null;
  return d.tmin_c + (d.tmax_c - d.tmin_c) * diurnal(hour);
}

function rhAt(d: WthDay, hour: number): number | null {
  if (d.rh_max_pct === null || d.rh_min_pct === null) return null;
  return d.rh_max_pct - (d.rh_max_pct - d.rh_min_pct) * diurnal(hour);
}

/** 10 m wind (what forecasts and skip rules read), mph: the day's mean, lowest before dawn. */
function windAt(d: WthDay, hour: number): number | null {
  if (d.wind_2m_ms === null) return null;
  const shape = 1 + 0.4 * Math.sin((Math.PI * (hour - 9)) / 12);
  return d.wind_2m_ms * U10_OVER_U2 * shape * MS_TO_MPH;
}

/** Rain that has fallen by `hour` of the day, mm (spread evenly over RAIN_HOURS). */
function rainUntil(d: WthDay, hour: number): number | null {
  if (d.rain_mm === null) return null;
  const done = RAIN_HOURS.reduce((s, h) => s + Math.max(0, Math.min(1, hour - h)), 0);
  return (d.rain_mm * done) / RAIN_HOURS.length;
}

function cToF(c: number): number;
function cToF(c: number | null): number | null;
function cToF(c: number | null): number | null {
  return c === null ? null : (c * 9) / 5 + 32;
}

function nullableCToF(c: number | null): number | null {
  return cToF(c);
}
