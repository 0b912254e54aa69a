import type { EventBus } from '../core/bus';
import type { HealthRegistry, SubsystemName } from '../core/health';
import type { Metrics } from '../core/metrics';
import type { FetchObservation } from '../core/timed-fetch';
import type { Module } from '../core/lifecycle';

/**
 * Feeds the spec's aggregate counters (4.1 /metrics) from what the domains
 * announce: each engine answer by its overall verdict, each weather, forecast
 * and engine refresh (and whether its subsystem was degraded at the time),
 * each controller failure by kind and code, and each provider fetch's latency
 * and failure code. It also keeps the last fetch per provider for
 * /diagnostics.
 */

export interface LastFetch {
  provider: string;
  use: FetchObservation['use'];
  latency_ms: number;
  ok: boolean;
  error_code: string | null;
  epoch: number;
}

const DEGRADED = new Set(['degraded', 'unavailable', 'invalid', 'unsupported']);

export class MetricsFeed implements Module {
  readonly name = 'metrics-feed';
  private readonly offs: (() => void)[] = [];
  private readonly lastFetches = new Map<string, LastFetch>();

  constructor(private readonly deps: { bus: EventBus; metrics: Metrics; health: HealthRegistry }) {}

  async start(): Promise<void> {
    const { bus, metrics } = this.deps;
    this.offs.push(
      bus.on('weather.snapshot', () => this.refreshed('weather')),
      bus.on('forecast.snapshot', () => this.refreshed('forecast')),
      bus.on('irrigation.snapshot', (snapshot) => {
        const verdict = (snapshot.decision_trace as { verdict?: unknown } | null)?.verdict;
        if (typeof verdict === 'string') metrics.add('verdicts', { verdict });
        // An engine answer planned without a forecast is a degraded one, whatever health says.
        const blind = (snapshot.skip_check as { planning_forecast_unavailable?: unknown })
          .planning_forecast_unavailable;
        this.refreshed('engine', blind === true);
      }),
      bus.on('controller.failure', (failure) =>
        metrics.add('controllerErrors', { kind: failure.kind, code: failure.code }),
      ),
    );
  }

  async stop(): Promise<void> {
    for (const off of this.offs.splice(0)) off();
  }

  /** The observer main.ts gives every timed fetch (core/timed-fetch.ts). */
  readonly observeFetch = (observation: FetchObservation): void => {
    const { provider, use, latencyMs, errorCode, epochMs } = observation;
    this.deps.metrics.set('fetchLatency', { provider, use }, latencyMs / 1000);
    if (errorCode) this.deps.metrics.add('cloudErrors', { provider, code: errorCode });
    this.lastFetches.set(`${use}\0${provider}`, {
      provider,
      use,
      latency_ms: Math.round(latencyMs),
      ok: errorCode === null,
      error_code: errorCode,
      epoch: Math.floor(epochMs / 1000),
    });
  };

  /** The last fetch of each provider, for /diagnostics. */
  fetches(): LastFetch[] {
    return [...this.lastFetches.values()];
  }

  private refreshed(subsystem: 'weather' | 'forecast' | 'engine', degraded = false): void {
    this.deps.metrics.add('refreshes', { subsystem });
    if (degraded || this.degraded(subsystem)) this.deps.metrics.add('degradedRefreshes', { subsystem });
  }

  private degraded(subsystem: SubsystemName): boolean {
    const { health } = this.deps;
    if (DEGRADED.has(health.subsystems()[subsystem])) return true;
    // Spec 3: only an offline source degrades weather.
    return subsystem === 'weather' && health.sources().some((s) => s.enabled && s.status === 'offline');
  }
}
