import type { AppliedConfig } from '../config/config-types';
import type { SourceEntry } from '../config/schema';
import type { EventBus } from '../core/bus';
import { epochSeconds, type Clock } from '../core/clock';
import type { Module } from '../core/lifecycle';
import type { Logger } from '../core/logger';
import { Mutex } from '../core/mutex';
import { LocalTime } from '../core/tz/local-time';
import { timeZone } from '../core/tz/time-zone';
import { resolveTimezone } from '../location/timezone';
import { ARCHIVE_LEAD_MAX_H, type ArchiveRow } from '../store/forecast-archive';
import type { Store } from '../store/store';
import { MERGED_SOURCE_ID } from '../weather/weather-service';
import { forecastBias, type BiasResult } from './bias';
import { archiveSkill, type ArchiveSkill } from './skill';
import { loadForecastCache, saveForecastCache, type CachedTrack } from './cache';
import type {
  DailyEntry,
  ForecastProvider,
  ForecastRequest,
  ForecastSnapshot,
  HourlyEntry,
  ProviderForecast,
} from './types';

/**
 * The forecast domain's module: refreshes the merged forecast from the
 * primary provider (Open-Meteo, or the pinned one), falls back to a backup
 * while it fails (NWS in the US, MET Norway elsewhere), keeps and serves the
 * last good forecast with its age, fetches the extra model tracks, archives
 * every fetched hour for accuracy and bias, and announces changes.
 */

export const MERGED_TRACK = 'merged';
const REFRESH_EVERY_S = 30 * 60;
const RETRY_FIRST_S = 60;
// Ten days: the seven-day verdict strip looks up to three days past its last day.
export const FORECAST_DAYS = 10;
const ARCHIVE_RETENTION_DAYS = 400;
const HARD_OFFLINE_S = 1800;
/** Provider kinds that serve past days (`past_days` up to 92 at Open-Meteo). */
const HISTORY_KINDS: ReadonlySet<string> = new Set(['open_meteo', 'demo_replay']);

export interface PlannedProvider {
  provider: ForecastProvider;
  /** Open-Meteo model ids fetched beside it as extra tracks (primary only). */
  extraModels: string[];
}

export interface ForecastPlan {
  providers: PlannedProvider[];
  request: ForecastRequest;
}

/** Builds providers from the config: the seam the tests and the composition root fill. */
export interface ForecastProviderFactory {
  plan(config: AppliedConfig['config'], request: ForecastRequest, demo: boolean): ForecastPlan['providers'];
  /** Fetches extra model tracks beside the merged one; absent when the kind has none. */
  fetchModels?(request: ForecastRequest, models: string[]): Promise<Map<string, ProviderForecast>>;
}

export interface ForecastServiceDeps {
  bus: EventBus;
  clock: Clock;
  logger: Logger;
  config: () => AppliedConfig | null;
  store: Store | null;
  cachePath: string;
  demo: boolean;
  factory: ForecastProviderFactory;
  /** Random source for the refresh jitter (tests pin it). */
  random?: () => number;
}

interface TrackState {
  track: string;
  label: string;
  forecast: ProviderForecast | null;
  isBackup: boolean;
  lastError: string | null;
  lastAttemptEpoch: number | null;
  lastOkEpoch: number | null;
}

export interface TrackInfo {
  track: string;
  provider: string | null;
  model: string | null;
  label: string;
  fetched_at: number | null;
  age_s: number | null;
  serving: 'serving' | 'stale' | 'unavailable';
  is_backup: boolean;
  last_error: string | null;
  hours: number;
  drives_irrigation: boolean;
}

export class ForecastService implements Module {
  readonly name = 'forecast';
  private readonly log: Logger;
  private readonly lock = new Mutex();
  private merged: TrackState = emptyTrack(MERGED_TRACK, 'no forecast yet');
  private snapshotMemo: { key: unknown[]; snapshot: ForecastSnapshot } | null = null;
  private tracks = new Map<string, TrackState>();
  private timer: NodeJS.Timeout | null = null;
  private failures = 0;
  private unsubscribe: (() => void) | null = null;
  private stopped = false;
  private lastPlanKey = '';
  private readonly startedEpoch: number;

  constructor(private readonly deps: ForecastServiceDeps) {
    this.log = deps.logger.child({ module: 'forecast' });
    this.startedEpoch = epochSeconds(deps.clock);
  }

  /** Serves the cached forecast at once; the first refresh runs in the background so boot never waits on the network. */
  async start(): Promise<void> {
    this.restoreCache();
    // The config as this service reads it (with Home Assistant's site fallbacks, location/site.ts);
    // new HA facts can change the request's time zone or elevation.
    const replan = () => {
      const applied = this.deps.config();
      if (applied && this.planKey(applied) !== this.lastPlanKey) void this.refresh();
    };
    const offConfig = this.deps.bus.on('config.changed', replan);
    const offFacts = this.deps.bus.on('ha.facts', replan);
    this.unsubscribe = () => {
      offConfig();
      offFacts();
    };
    void this.refresh();
  }

  /** What a refresh depends on: the request and the forecast-capable sources. */
  private planKey(applied: AppliedConfig): string {
    const { config } = applied;
    const sources = config.sources.filter((s) => ['open_meteo', 'nws', 'met_norway'].includes(s.kind));
    return JSON.stringify([
      requestFor(applied),
      sources,
      config.engine.forecast_provider,
      config.features.demo_mode,
    ]);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    if (this.timer) clearTimeout(this.timer);
    await this.lock.run(() => undefined);
  }

  /** Fetches now (serialised with any refresh in flight) and schedules the next one. */
  refresh(): Promise<void> {
    return this.lock.run(async () => {
      if (this.stopped) return;
      const applied = this.deps.config();
      if (!applied) return;
      const request = requestFor(applied);
      this.lastPlanKey = this.planKey(applied);
      const planned = this.deps.factory.plan(
        applied.config,
        request,
        this.deps.demo || applied.config.features.demo_mode,
      );
      this.syncTracks(planned[0]?.extraModels ?? []);
      const servedBy = await this.refreshMerged(planned, request);
      const ok = servedBy !== null;
      // Extra tracks come from the primary: while a backup serves, the primary is down.
      if (servedBy === 0) await this.refreshTracks(planned[0], request);
      else
        this.markTracksNotRefreshed(ok ? 'the primary provider is failing' : 'the forecast refresh failed');
      this.persist();
      this.schedule(ok);
      this.deps.bus.emit('forecast.snapshot', this.snapshot());
    });
  }

  /**
   * The merged forecast split at the local midnight. The same object comes back
   * until something it shows changes (a fetch, an error, the date, the zone), so
   * the routes and the stream serve it from bytes serialised once.
   */
  snapshot(): ForecastSnapshot {
    const applied = this.deps.config();
    const timezone = applied ? requestFor(applied).timezone : 'UTC';
    const forecast = this.merged.forecast;
    const todayStart = LocalTime.fromSeconds(epochSeconds(this.deps.clock), timeZone(timezone)).startOfDay()
      .seconds;
    const key = [
      forecast,
      this.merged.lastError,
      this.merged.label,
      this.merged.isBackup,
      timezone,
      todayStart,
    ];
    const memo = this.snapshotMemo;
    if (memo && memo.key.every((part, i) => part === key[i])) return memo.snapshot;
    const snapshot = this.buildSnapshot(forecast, timezone, todayStart);
    this.snapshotMemo = { key, snapshot };
    return snapshot;
  }

  private buildSnapshot(
    forecast: ProviderForecast | null,
    timezone: string,
    todayStart: number,
  ): ForecastSnapshot {
    const days = forecast?.daily ?? [];
    return {
      last_refresh_epoch: forecast?.fetched_at ?? null,
      source_reachable: this.merged.lastError === null && forecast !== null,
      source_label: this.merged.label,
      source_is_backup: this.merged.isBackup,
      timezone,
      daily: days.filter((d) => d.time_epoch >= todayStart),
      past_daily: days.filter((d) => d.time_epoch < todayStart),
      hourly: (forecast?.hourly ?? []).filter((h) => h.time_epoch >= todayStart),
    };
  }

  /**
   * Past days from the primary provider, for the daily weather record's
   * backfill: as many as asked up to what it serves (Open-Meteo 92; the demo
   * forecast replays its own weather). Null when no planned provider keeps
   * past days (NWS and MET Norway serve none) or the fetch fails. Nothing is
   * archived or served from it: the merged forecast is untouched.
   */
  async history(pastDays: number): Promise<{ provider: string; days: DailyEntry[] } | null> {
    const applied = this.deps.config();
    if (!applied) return null;
    const request = {
      ...requestFor(applied),
      pastDays: Math.max(1, Math.min(92, pastDays)),
      forecastDays: 1,
    };
    const planned = this.deps.factory.plan(
      applied.config,
      request,
      this.deps.demo || applied.config.features.demo_mode,
    );
    const provider = planned.find((p) => HISTORY_KINDS.has(p.provider.kind))?.provider;
    if (!provider) return null;
    try {
      const forecast = await provider.fetch(request);
      const today = LocalTime.fromSeconds(
        epochSeconds(this.deps.clock),
        timeZone(request.timezone),
      ).startOfDay().seconds;
      return { provider: provider.label, days: forecast.daily.filter((d) => d.time_epoch < today) };
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'past days for the weather record could not be fetched');
      return null;
    }
  }

  /** The hourly series of a track (`merged` or an extra model id); undefined for an unknown track. */
  trackHourly(
    track: string,
  ): { hourly: HourlyEntry[]; forecast: ProviderForecast | null; label: string } | undefined {
    const state = track === MERGED_TRACK ? this.merged : this.tracks.get(track);
    if (!state) return undefined;
    return { hourly: state.forecast?.hourly ?? [], forecast: state.forecast, label: state.label };
  }

  trackNames(): string[] {
    return [MERGED_TRACK, ...this.tracks.keys()];
  }

  tracksInfo(): TrackInfo[] {
    const now = epochSeconds(this.deps.clock);
    return [this.merged, ...this.tracks.values()].map((state) => ({
      track: state.track,
      provider: state.forecast?.provider ?? null,
      model: state.forecast?.model ?? null,
      label: state.label,
      fetched_at: state.forecast?.fetched_at ?? null,
      age_s: state.forecast ? now - state.forecast.fetched_at : null,
      serving: state.forecast === null ? 'unavailable' : state.lastError === null ? 'serving' : 'stale',
      is_backup: state.isBackup,
      last_error: state.lastError,
      hours: state.forecast?.hourly.length ?? 0,
      drives_irrigation: state.track === MERGED_TRACK,
    }));
  }

  /**
   * Health, judged like a weather source: failing refreshes degrade the
   * instance only once no forecast has been fetched for the hard-offline
   * window (30 minutes), counted from boot when none ever was.
   */
  health(): { status: 'ok' | 'starting' | 'degraded' | 'disabled'; note: string | null } {
    if (!this.deps.config()) return { status: 'disabled', note: 'no config yet' };
    const now = epochSeconds(this.deps.clock);
    const lastOk = this.merged.lastOkEpoch ?? null;
    if (this.merged.lastError === null && this.merged.forecast) return { status: 'ok', note: null };
    if (now - (lastOk ?? this.startedEpoch) <= HARD_OFFLINE_S) {
      return { status: lastOk === null ? 'starting' : 'ok', note: this.merged.lastError };
    }
    return { status: 'degraded', note: this.merged.lastError ?? 'no forecast fetched yet' };
  }

  /** The bias multiplier for the current local month (or `month`, 1..12). */
  bias(month?: number): BiasResult {
    const { wanted, timezone, rows, gaugeDaily } = this.monthEvidence(month, DAY_AHEAD_MAX_LEAD_H);
    return forecastBias({ month: wanted, timezone, rows, gaugeDaily });
  }

  /** The rain skill by lead time for the current local month (or `month`), from the archive (skill.ts). */
  skill(month?: number): ArchiveSkill {
    const { wanted, timezone, rows, gaugeDaily } = this.monthEvidence(month, ARCHIVE_LEAD_MAX_H);
    return archiveSkill({ month: wanted, timezone, rows, gaugeDaily });
  }

  /** The archive rows (leads up to `maxLead`) and gauge totals of a month's days, this year's and last year's. */
  private monthEvidence(month: number | undefined, maxLead: number) {
    const applied = this.deps.config();
    const timezone = applied ? requestFor(applied).timezone : 'UTC';
    const now = LocalTime.fromSeconds(epochSeconds(this.deps.clock), timeZone(timezone));
    const wanted = month ?? now.month;
    const store = this.deps.store;
    const rows: ArchiveRow[] = [];
    const gaugeDaily = new Map<string, number>();
    if (!store) return { wanted, timezone, rows, gaugeDaily };
    // The month's days within the archive's retention: this year's and last year's.
    for (const year of [now.year - 1, now.year]) {
      const start = LocalTime.fromFields({ year, month: wanted, day: 1 }, timeZone(timezone));
      if (start.seconds > now.seconds) continue;
      const from = start.seconds;
      const to = Math.min(start.plus({ months: 1 }).seconds - 3600, now.seconds);
      rows.push(...archiveRows(store, from, to, maxLead));
      for (const [day, inches] of gaugeTotals(store, from, to, timezone)) gaugeDaily.set(day, inches);
    }
    return { wanted, timezone, rows, gaugeDaily };
  }

  /** Returns the index of the provider that served, or null when none did. */
  private async refreshMerged(planned: PlannedProvider[], request: ForecastRequest): Promise<number | null> {
    const now = epochSeconds(this.deps.clock);
    const errors: string[] = [];
    for (const [index, { provider }] of planned.entries()) {
      try {
        const forecast = await provider.fetch(request);
        this.merged = {
          track: MERGED_TRACK,
          label: provider.label,
          forecast,
          isBackup: index > 0,
          lastError: null,
          lastAttemptEpoch: now,
          lastOkEpoch: now,
        };
        this.archive(MERGED_TRACK, forecast);
        if (index > 0)
          this.log.warn({ provider: provider.id, errors }, 'forecast served by the backup provider');
        return index;
      } catch (err) {
        errors.push((err as Error).message);
      }
    }
    this.merged = {
      ...this.merged,
      lastError: errors.join('; ') || 'no forecast provider',
      lastAttemptEpoch: now,
    };
    this.log.warn({ errors }, 'forecast refresh failed; serving the last good forecast');
    return null;
  }

  private markTracksNotRefreshed(reason: string): void {
    const now = epochSeconds(this.deps.clock);
    for (const [name, state] of this.tracks) {
      this.tracks.set(name, { ...state, lastError: `not refreshed: ${reason}`, lastAttemptEpoch: now });
    }
  }

  /**
   * The tracks are the configured extra models, whether or not a fetch has
   * served them yet: a configured model is a known track (unavailable until
   * fetched) even while the primary fails, and a model no longer configured
   * (or one only the cache remembers) is gone at once.
   */
  private syncTracks(models: string[]): void {
    for (const name of [...this.tracks.keys()]) if (!models.includes(name)) this.tracks.delete(name);
    for (const model of models) {
      if (!this.tracks.has(model)) this.tracks.set(model, emptyTrack(model, `Open-Meteo ${model}`));
    }
  }

  private async refreshTracks(primary: PlannedProvider | undefined, request: ForecastRequest): Promise<void> {
    const models = primary?.extraModels ?? [];
    if (models.length === 0 || !this.deps.factory.fetchModels) return;
    const now = epochSeconds(this.deps.clock);
    try {
      const fetched = await this.deps.factory.fetchModels(request, models);
      for (const model of models) {
        const forecast = fetched.get(model) ?? null;
        const previous = this.tracks.get(model) ?? emptyTrack(model, `Open-Meteo ${model}`);
        this.tracks.set(model, {
          ...previous,
          forecast: forecast ?? previous.forecast,
          lastError: forecast ? null : 'the provider returned no data for this model',
          lastAttemptEpoch: now,
          lastOkEpoch: forecast ? now : previous.lastOkEpoch,
        });
        if (forecast) this.archive(model, forecast);
      }
    } catch (err) {
      for (const model of models) {
        const previous = this.tracks.get(model) ?? emptyTrack(model, `Open-Meteo ${model}`);
        this.tracks.set(model, { ...previous, lastError: (err as Error).message, lastAttemptEpoch: now });
      }
    }
  }

  /** Every fetched hour within 48 hours of the fetch, for accuracy and bias. */
  private archive(track: string, forecast: ProviderForecast): void {
    const store = this.deps.store;
    if (!store) return;
    const fetchHour = Math.floor(forecast.fetched_at / 3600) * 3600;
    const rows = forecast.hourly
      .map((h) => ({ hour: h, lead: (h.time_epoch - fetchHour) / 3600 }))
      .filter(({ lead }) => Number.isInteger(lead) && lead >= 0 && lead <= ARCHIVE_LEAD_MAX_H)
      .map(({ hour, lead }) => ({
        track,
        provider: forecast.provider,
        model: forecast.model,
        target_epoch: hour.time_epoch,
        lead_h: lead,
        pop_pct: hour.precip_probability === null ? null : Math.round(hour.precip_probability),
        precip_in: hour.precip_in,
        fetched_at: forecast.fetched_at,
      }));
    try {
      store.forecastArchive.insertMany(rows);
      store.forecastArchive.deleteTargetsBefore(forecast.fetched_at - ARCHIVE_RETENTION_DAYS * 86400);
    } catch (err) {
      this.log.warn({ err }, 'could not archive the forecast');
    }
  }

  private schedule(ok: boolean): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.failures = ok ? 0 : this.failures + 1;
    const base = ok ? REFRESH_EVERY_S : Math.min(REFRESH_EVERY_S, RETRY_FIRST_S * 2 ** (this.failures - 1));
    const jitter = 1 + ((this.deps.random ?? Math.random)() - 0.5) * 0.4;
    this.timer = setTimeout(() => void this.refresh(), base * jitter * 1000);
    this.timer.unref();
  }

  private persist(): void {
    const toCached = (state: TrackState): CachedTrack | null =>
      state.forecast ? { forecast: state.forecast, label: state.label, isBackup: state.isBackup } : null;
    const tracks: Record<string, CachedTrack> = {};
    for (const [name, state] of this.tracks) {
      const cached = toCached(state);
      if (cached) tracks[name] = cached;
    }
    try {
      saveForecastCache(this.deps.cachePath, { merged: toCached(this.merged), tracks });
    } catch (err) {
      this.log.warn({ err }, 'could not write the forecast cache');
    }
  }

  private restoreCache(): void {
    const cache = loadForecastCache(this.deps.cachePath, this.log);
    if (!cache) return;
    const fromCache = (track: string, cached: CachedTrack): TrackState => ({
      track,
      label: cached.label,
      forecast: cached.forecast,
      isBackup: cached.isBackup,
      // Served from the cache: stale until a refresh after this start reaches the provider.
      lastError: 'not refreshed since the service started',
      lastAttemptEpoch: null,
      lastOkEpoch: cached.forecast.fetched_at,
    });
    if (cache.merged) this.merged = fromCache(MERGED_TRACK, cache.merged);
    for (const [name, cached] of Object.entries(cache.tracks)) this.tracks.set(name, fromCache(name, cached));
  }
}

function emptyTrack(track: string, label: string): TrackState {
  return {
    track,
    label,
    forecast: null,
    isBackup: false,
    lastError: null,
    lastAttemptEpoch: null,
    lastOkEpoch: null,
  };
}

export function requestFor(applied: AppliedConfig): ForecastRequest {
  const { location, timezone } = applied.config.deployment;
  const openMeteo = applied.config.sources.find((s: SourceEntry) => s.kind === 'open_meteo');
  // The demo has no history; a week of replayed past days lets the engine's water balance settle.
  const fallbackPastDays = applied.config.features.demo_mode ? 7 : 3;
  const pastDays =
    typeof openMeteo?.config.past_days === 'number' ? openMeteo.config.past_days : fallbackPastDays;
  return {
    lat: location.lat,
    lon: location.lon,
    elevationM: location.elevation_m ?? null,
    timezone: resolveTimezone(timezone ?? null, location.lat, location.lon),
    pastDays: Math.min(7, Math.max(1, Math.round(pastDays))),
    forecastDays: FORECAST_DAYS,
  };
}

/** The bias reads day-ahead rows (12-35 h, bias.ts). */
const DAY_AHEAD_MAX_LEAD_H = 35;

function archiveRows(store: Store, from: number, to: number, maxLead: number): ArchiveRow[] {
  const rows: ArchiveRow[] = [];
  let cursor: string | undefined;
  do {
    const page = store.forecastArchive.page({ track: MERGED_TRACK, from, to, limit: 5000, cursor });
    rows.push(...page.rows.filter((r) => r.lead_h <= maxLead));
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return rows;
}

/** The gauge's daily totals: the largest `rain_in_today` of each local day the merged history holds. */
function gaugeTotals(store: Store, from: number, to: number, timezone: string): Map<string, number> {
  const zone = timeZone(timezone);
  const totals = new Map<string, number>();
  const hours = Math.ceil((to - from) / 3600) + 1;
  for (const row of store.readings.listRecent(to, hours, 'rain_in_today')) {
    if (row.source_id !== MERGED_SOURCE_ID || row.epoch < from) continue;
    const day = LocalTime.fromSeconds(row.epoch, zone).isoDate ?? '';
    totals.set(day, Math.max(totals.get(day) ?? 0, row.value));
  }
  return totals;
}
