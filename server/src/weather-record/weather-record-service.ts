import type { AppliedConfig } from '../config/config-types';
import type { EventBus } from '../core/bus';
import { epochSeconds, type Clock } from '../core/clock';
import type { Module } from '../core/lifecycle';
import type { Logger } from '../core/logger';
import { LocalTime } from '../core/tz/local-time';
import { timeZone } from '../core/tz/time-zone';
import type { DailyEntry, ForecastSnapshot } from '../forecast/types';
import { resolveTimezone } from '../location/timezone';
import type { Store } from '../store/store';
import { mergeDay, type ModelDay } from './merge-day';
import { STATION_FIELDS, stationDays, type StationDay } from './station-days';
import type { DailyWeather } from './types';

/**
 * The daily weather record's module: keeps one row per closed local day
 * (weather_days), built station first with the forecast provider's past days
 * as the fallback (merge-day.ts).
 *
 * - `refresh(now)` recomputes the last REVISION_DAYS closed days (late
 *   readings, a corrected model day) and writes the days that changed; older
 *   days are final. It runs when asked (the soil ledger asks before each
 *   update) and does the work only when the date rolled over, a forecast
 *   arrived, or an hour passed.
 * - Once the service listens (`backfillSoon`), when the record holds less
 *   than a week, it backfills as many past days as the forecast provider
 *   serves (Open-Meteo: 92) and the stations' stored readings allow, in the
 *   background, then announces `weather.record`.
 */

export const RECORD_REVISION_DAYS = 4;
export const BACKFILL_DAYS = 92;
export const RECORD_RETENTION_DAYS = 400;
const REFRESH_EVERY_S = 3600;
const BACKFILL_WHEN_FEWER_THAN_DAYS = 7;

export interface ModelHistory {
  provider: string;
  days: DailyEntry[];
}

export interface WeatherRecordDeps {
  bus: EventBus;
  clock: Clock;
  logger: Logger;
  config: () => AppliedConfig | null;
  store: Store;
  forecast: { snapshot(): ForecastSnapshot; history(pastDays: number): Promise<ModelHistory | null> };
  /** Source kinds that model rather than measure (their readings are never station evidence). */
  modelledKinds: ReadonlySet<string>;
  /** Station aggregates for the dates; default: the stored readings of the config's measuring sources. */
  stationDays?: (dates: readonly string[], timezone: string) => StationDay[];
}

export class WeatherRecordService implements Module {
  readonly name = 'weather-record';
  private readonly log: Logger;
  private lastKey = '';
  private lastRefreshEpoch = 0;
  private forecastSeen = false;
  private backfill: Promise<void> | null = null;
  private off: (() => void) | null = null;

  constructor(private readonly deps: WeatherRecordDeps) {
    this.log = deps.logger.child({ module: 'weather-record' });
  }

  async start(): Promise<void> {
    this.off = this.deps.bus.on('forecast.snapshot', () => (this.forecastSeen = true));
  }

  /**
   * Starts the first-start backfill (when the record is short) after `delayMs`,
   * in the background. The composition root calls it once the service
   * listens: a provider that computes its past (the demo) must not hold up
   * the first answer.
   */
  backfillSoon(delayMs: number): void {
    this.backfill ??= new Promise<void>((resolve) => setTimeout(resolve, delayMs))
      .then(() => this.backfillIfShort())
      .catch((err) =>
        this.log.warn({ err }, 'weather record backfill failed; the record starts from the days it has'),
      );
  }

  async stop(): Promise<void> {
    this.off?.();
    await this.backfill;
  }

  /** Resolves when the start-up backfill (if any) has finished. */
  settled(): Promise<void> {
    return this.backfill ?? Promise.resolve();
  }

  timezone(): string {
    const applied = this.deps.config();
    if (!applied) return 'UTC';
    const { location, timezone } = applied.config.deployment;
    return resolveTimezone(timezone ?? null, location.lat, location.lon);
  }

  /** Recomputes the revisable days when something could have changed them. */
  refresh(nowEpoch: number): void {
    const timezone = this.timezone();
    const today = localDate(nowEpoch, timezone);
    const key = `${today}|${timezone}`;
    const stale = nowEpoch - this.lastRefreshEpoch >= REFRESH_EVERY_S;
    if (key === this.lastKey && !stale && !this.forecastSeen) return;
    this.lastKey = key;
    this.lastRefreshEpoch = nowEpoch;
    this.forecastSeen = false;
    const dates = pastDates(today, RECORD_REVISION_DAYS, timezone);
    this.rebuild(dates, this.modelDays(this.deps.forecast.snapshot()), nowEpoch, timezone);
    if (today.endsWith('-01')) this.prune(today, timezone);
  }

  days(from: string, to: string): DailyWeather[] {
    return this.deps.store.weatherDays.range(from, to);
  }

  firstDate(): string | null {
    return this.deps.store.weatherDays.firstDate();
  }

  private async backfillIfShort(): Promise<void> {
    if (!this.deps.config()) return;
    const now = epochSeconds(this.deps.clock);
    const timezone = this.timezone();
    const today = localDate(now, timezone);
    const first = this.firstDate();
    const weekAgo = shift(today, -BACKFILL_WHEN_FEWER_THAN_DAYS, timezone);
    if (first !== null && first <= weekAgo) return;
    const history = await this.deps.forecast.history(BACKFILL_DAYS);
    const models = new Map<string, ModelDay>();
    for (const entry of history?.days ?? []) {
      if (entry.date_local < today)
        models.set(entry.date_local, { provider: history?.provider ?? '', entry });
    }
    const dates = pastDates(today, BACKFILL_DAYS, timezone);
    const written = this.rebuild(dates, models, epochSeconds(this.deps.clock), timezone);
    this.log.info(
      { days: written.length, provider: history?.provider ?? null },
      'weather record backfilled from the forecast provider and stored readings',
    );
    // Listeners (the irrigation service) replay the soil ledger over the new days right here.
    if (written.length > 0) this.deps.bus.emit('weather.record', { dates: written });
    this.deps.store.releaseMemory();
  }

  /** Recomputes `dates` and writes those that changed; answers the dates written. */
  private rebuild(
    dates: readonly string[],
    models: Map<string, ModelDay>,
    nowEpoch: number,
    timezone: string,
  ): string[] {
    if (dates.length === 0) return [];
    const store = this.deps.store.weatherDays;
    const previous = new Map(
      store.range(dates[0] as string, dates.at(-1) as string).map((d) => [d.date_local, d]),
    );
    const stations = this.stationDays(dates, timezone);
    const changed: DailyWeather[] = [];
    for (const date of dates) {
      const day = mergeDay(
        date,
        stations.filter((s) => s.date_local === date),
        models.get(date) ?? null,
        previous.get(date),
      );
      if (hasEvidence(day) && JSON.stringify(day) !== JSON.stringify(previous.get(date))) changed.push(day);
    }
    try {
      store.upsert(changed, nowEpoch);
    } catch (err) {
      this.log.warn({ err }, 'could not store the daily weather record');
      return [];
    }
    return changed.map((d) => d.date_local);
  }

  private stationDays(dates: readonly string[], timezone: string): StationDay[] {
    if (this.deps.stationDays) return this.deps.stationDays(dates, timezone);
    const applied = this.deps.config();
    if (!applied || dates.length === 0) return [];
    const stationIds = new Set(
      applied.config.sources
        .filter((s) => s.enabled !== false && !this.deps.modelledKinds.has(s.kind))
        .map((s) => s.id),
    );
    if (stationIds.size === 0) return [];
    const zone = timeZone(timezone);
    const from = LocalTime.fromIsoDate(dates[0] as string, zone).startOfDay().seconds;
    const to = LocalTime.fromIsoDate(dates.at(-1) as string, zone)
      .plus({ days: 1 })
      .startOfDay().seconds;
    const hours = Math.ceil((to - from) / 3600);
    const readings = STATION_FIELDS.flatMap((field) =>
      this.deps.store.readings.listRecent(to, hours, field).filter((r) => r.epoch < to),
    );
    return stationDays(readings, stationIds, timezone, dates);
  }

  private modelDays(snapshot: ForecastSnapshot): Map<string, ModelDay> {
    const provider = snapshot.source_label;
    return new Map(snapshot.past_daily.map((entry) => [entry.date_local, { provider, entry }]));
  }

  private prune(today: string, timezone: string): void {
    try {
      const cutoff = shift(today, -RECORD_RETENTION_DAYS, timezone);
      this.deps.store.weatherDays.pruneBefore(cutoff);
      this.deps.store.soilLedger.pruneBefore(cutoff);
    } catch (err) {
      this.log.warn({ err }, 'could not prune the daily weather record');
    }
  }
}

function hasEvidence(day: DailyWeather): boolean {
  return Object.values(day.sources).some((p) => p.source !== 'none');
}

export function localDate(epoch: number, timezone: string): string {
  return LocalTime.fromSeconds(epoch, timeZone(timezone)).isoDate ?? '';
}

function shift(date: string, days: number, timezone: string): string {
  return LocalTime.fromIsoDate(date, timeZone(timezone)).plus({ days }).isoDate ?? '';
}

/** The `count` closed days before `today`, oldest first. */
function pastDates(today: string, count: number, timezone: string): string[] {
  return Array.from({ length: count }, (_, i) => shift(today, i - count, timezone));
}
