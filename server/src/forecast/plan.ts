import type { RaincheckConfig, SourceEntry } from '../config/schema';
import type { Clock } from '../core/clock';
import type { ForecastProviderFactory, PlannedProvider } from './forecast-service';
import { DemoForecastProvider } from './providers/demo';
import type { OpenMeteoForecastProvider } from './providers/open-meteo';
import type { ForecastProvider, ForecastRequest } from './types';

/**
 * Which providers serve the merged forecast, in order: the pinned source
 * (`engine.forecast_provider`) first, else Open-Meteo (the configured
 * `open_meteo` source, or the default endpoint); then the regional backup:
 * NWS inside the United States, MET Norway elsewhere. Demo mode serves the
 * synthetic forecast only.
 *
 * Source config keys read here (beside the kind's own): `base_url` (the
 * provider's endpoint), `timeout_s` (optional: seconds one forecast fetch may
 * take, every request of it included; the weather sources' key of the same
 * name, 1..120; default 20), `user_agent` (NWS, MET Norway) and, on the
 * primary `open_meteo` source, `extra_models`.
 *
 * Providers are kept between refreshes while their settings stay the same, so
 * what a provider caches (the NWS point lookup) outlives one fetch.
 */

const FORECAST_KINDS = new Set(['open_meteo', 'nws', 'met_norway']);
const TIMEOUT_MAX_S = 120;

export interface ForecastFactoryOptions {
  fetch: typeof fetch;
  clock: Clock;
  userAgent: string;
  /** Wraps the fetch one provider kind is given (main.ts: latency and error metrics). */
  fetchFor?: (kind: string, inner: typeof fetch) => typeof fetch;
}

export function createForecastFactory(options: ForecastFactoryOptions): ForecastProviderFactory {
  let openMeteo: OpenMeteoForecastProvider | null = null;
  /** The providers of the last plan, by their settings. */
  let built = new Map<string, ForecastProvider>();
  const create = (kind: string, id: string, config: Record<string, unknown>): ForecastProvider | null => {
    const baseUrl = typeof config.base_url === 'string' ? config.base_url : undefined;
    const timeoutMs = timeoutMsOf(config);
    const common = {
      id,
      baseUrl,
      fetch: options.fetchFor ? options.fetchFor(kind, options.fetch) : options.fetch,
      clock: options.clock,
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    };
    // Each provider's module loads the first time a plan uses it (a demo never loads one).
    /* eslint-disable @typescript-eslint/no-require-imports */
    if (kind === 'open_meteo') {
      const { OpenMeteoForecastProvider } =
        require('./providers/open-meteo') as typeof import('./providers/open-meteo');
      return new OpenMeteoForecastProvider(common);
    }
    if (kind === 'nws') {
      const { NwsForecastProvider } = require('./providers/nws') as typeof import('./providers/nws');
      return new NwsForecastProvider({ ...common, userAgent: userAgentOf(config, options) });
    }
    if (kind === 'met_norway') {
      const { MetNorwayProvider } =
        require('./providers/met-norway') as typeof import('./providers/met-norway');
      return new MetNorwayProvider({ ...common, userAgent: userAgentOf(config, options) });
    }
    /* eslint-enable @typescript-eslint/no-require-imports */
    return null;
  };
  /** The plan's providers, reusing the last plan's where the settings are unchanged. */
  const build = (entries: SourceEntry[]): (ForecastProvider | null)[] => {
    const next = new Map<string, ForecastProvider>();
    const providers = entries.map(({ kind, id, config }) => {
      const key = JSON.stringify([
        kind,
        id,
        config.base_url ?? null,
        timeoutMsOf(config) ?? null,
        userAgentOf(config, options),
      ]);
      const provider = built.get(key) ?? create(kind, id, config);
      if (provider) next.set(key, provider);
      if (provider && kind === 'open_meteo') openMeteo = provider as OpenMeteoForecastProvider;
      return provider;
    });
    built = next;
    return providers;
  };

  return {
    plan(config: RaincheckConfig, request: ForecastRequest, demo: boolean): PlannedProvider[] {
      if (demo) return [{ provider: new DemoForecastProvider('demo', options.clock), extraModels: [] }];
      const candidates = config.sources.filter((s) => s.enabled && FORECAST_KINDS.has(s.kind));
      const pinned = candidates.find((s) => s.id === config.engine.forecast_provider);
      const primary = pinned ?? candidates.find((s) => s.kind === 'open_meteo') ?? implicit('open_meteo');
      const backupKind = inUnitedStates(request.lat, request.lon) ? 'nws' : 'met_norway';
      const backup =
        candidates.find((s) => s.kind === backupKind && s.id !== primary.id) ?? implicit(backupKind);
      const entries = primary.kind === backup.kind ? [primary] : [primary, backup];
      const providers = build(entries);
      return entries
        .map((entry, index) => ({ entry, provider: providers[index] ?? null }))
        .filter((p): p is { entry: SourceEntry; provider: ForecastProvider } => p.provider !== null)
        .map(({ entry, provider }, index) => ({
          provider,
          extraModels: index === 0 && entry.kind === 'open_meteo' ? extraModels(entry.config) : [],
        }));
    },
    fetchModels: (request, models) => {
      if (!openMeteo) return Promise.resolve(new Map());
      return openMeteo.fetchModels(request, models);
    },
  };
}

function implicit(kind: string): SourceEntry {
  return { id: `${kind}_default`, kind, priority: 0, enabled: true, config: {} };
}

/** `extra_models = ["gfs_seamless", "icon_seamless"]` in the open_meteo source's config. */
function extraModels(config: Record<string, unknown>): string[] {
  const models = config.extra_models;
  return Array.isArray(models)
    ? models.filter((m): m is string => typeof m === 'string' && /^[a-z0-9_]+$/.test(m))
    : [];
}

/** `timeout_s` of the source's config in milliseconds; undefined (the provider's 20 s) when absent or not a positive number. */
function timeoutMsOf(config: Record<string, unknown>): number | undefined {
  const seconds = config.timeout_s;
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0) return undefined;
  return Math.min(seconds, TIMEOUT_MAX_S) * 1000;
}

function userAgentOf(config: Record<string, unknown>, options: ForecastFactoryOptions): string {
  return typeof config.user_agent === 'string' && config.user_agent ? config.user_agent : options.userAgent;
}

/** Contiguous US, Alaska, Hawaii and Puerto Rico: where the NWS serves forecasts. */
export function inUnitedStates(lat: number, lon: number): boolean {
  const boxes: [number, number, number, number][] = [
    [24.4, 49.4, -125, -66.9],
    [51, 71.5, -180, -129],
    [18.8, 22.3, -160.3, -154.7],
    [17.8, 18.6, -67.4, -65.2],
  ];
  return boxes.some(([s, n, w, e]) => lat >= s && lat <= n && lon >= w && lon <= e);
}
