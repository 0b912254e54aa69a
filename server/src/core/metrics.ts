import type { Registry } from 'prom-client';
import { registerRuntimeMetrics } from './runtime-metrics';

/**
 * The /metrics registry: aggregate counters only (no per-zone or per-user
 * labels; every label takes a bounded set of values: a method, a status
 * class, a verdict, a subsystem, a controller or provider kind, an error
 * code). Callers only bump plain tallies; prom-client is loaded and the
 * registry built on the first scrape, which keeps it off the hot path and out
 * of memory on instances nobody scrapes. What feeds the domain counters from
 * the bus is ops/metrics-feed.ts.
 */

type Labels = Record<string, string>;

interface Family {
  name: string;
  help: string;
  labelNames: readonly string[];
  type: 'counter' | 'gauge';
}

/** Every family the service exports besides the process and Node.js runtime ones. */
export const FAMILIES = {
  httpRequests: {
    name: 'raincheck_http_requests_total',
    help: 'HTTP requests answered, by method and status class',
    labelNames: ['method', 'status_class'],
    type: 'counter',
  },
  configSaves: {
    name: 'raincheck_config_saves_total',
    help: 'Config writes (PUT, raw PUT, rollback, restore), by outcome',
    labelNames: ['outcome'],
    type: 'counter',
  },
  verdicts: {
    name: 'raincheck_verdicts_total',
    help: 'Irrigation engine answers, by overall verdict (water, skip, paused, hold, none)',
    labelNames: ['verdict'],
    type: 'counter',
  },
  refreshes: {
    name: 'raincheck_refreshes_total',
    help: 'Snapshot refreshes, by subsystem (weather, forecast, engine)',
    labelNames: ['subsystem'],
    type: 'counter',
  },
  degradedRefreshes: {
    name: 'raincheck_degraded_refreshes_total',
    help: 'Snapshot refreshes made while the subsystem was degraded, by subsystem',
    labelNames: ['subsystem'],
    type: 'counter',
  },
  controllerErrors: {
    name: 'raincheck_controller_errors_total',
    help: 'Controller command and readback failures, by controller kind and spec error code',
    labelNames: ['kind', 'code'],
    type: 'counter',
  },
  cloudErrors: {
    name: 'raincheck_cloud_errors_total',
    help: 'Failed fetches from weather and forecast providers, by provider kind and code (http_<status>, timeout, network)',
    labelNames: ['provider', 'code'],
    type: 'counter',
  },
  fetchLatency: {
    name: 'raincheck_last_fetch_latency_seconds',
    help: 'Latency of the last fetch from each provider (weather or forecast use), success or failure',
    labelNames: ['provider', 'use'],
    type: 'gauge',
  },
} as const satisfies Record<string, Family>;

export type FamilyName = keyof typeof FAMILIES;

export class Metrics {
  /** Per family: label values joined by NUL -> value. */
  private readonly values = new Map<FamilyName, Map<string, number>>();
  private registry: Registry | null = null;

  /** One answered HTTP request, by method and status class (`2xx`...). */
  countRequest(method: string, status: number): void {
    this.add('httpRequests', { method, status_class: `${Math.floor(status / 100)}xx` });
  }

  /** One config write, by outcome (`saved` or the refusal code). */
  countConfigSave(outcome: string): void {
    this.add('configSaves', { outcome });
  }

  /** Adds to a counter family. */
  add(family: FamilyName, labels: Labels, by = 1): void {
    const key = keyOf(family, labels);
    const tally = this.tally(family);
    tally.set(key, (tally.get(key) ?? 0) + by);
  }

  /** Sets a gauge family's value. */
  set(family: FamilyName, labels: Labels, value: number): void {
    this.tally(family).set(keyOf(family, labels), value);
  }

  /** The current value (tests, diagnostics); undefined when never counted. */
  value(family: FamilyName, labels: Labels): number | undefined {
    return this.values.get(family)?.get(keyOf(family, labels));
  }

  /** Every series of a family, as label objects and values. */
  series(family: FamilyName): { labels: Labels; value: number }[] {
    const names = FAMILIES[family].labelNames;
    return [...(this.values.get(family) ?? new Map<string, number>())].map(([key, value]) => {
      const parts = key.split('\0');
      return { labels: Object.fromEntries(names.map((n, i) => [n, parts[i] ?? ''])), value };
    });
  }

  /** Text exposition format 0.0.4. */
  async render(): Promise<{ contentType: string; body: string }> {
    const registry = (this.registry ??= this.buildRegistry());
    return { contentType: registry.contentType, body: await registry.metrics() };
  }

  private tally(family: FamilyName): Map<string, number> {
    let tally = this.values.get(family);
    if (!tally) this.values.set(family, (tally = new Map()));
    return tally;
  }

  private buildRegistry(): Registry {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const prom = require('prom-client') as typeof import('prom-client');
    const registry = new prom.Registry();
    registerRuntimeMetrics(prom, registry, 'raincheck_');
    for (const name of Object.keys(FAMILIES) as FamilyName[]) {
      const family = FAMILIES[name];
      const series = () => this.series(name);
      const Kind = family.type === 'counter' ? prom.Counter : prom.Gauge;
      new Kind({
        name: family.name,
        help: family.help,
        labelNames: [...family.labelNames],
        registers: [registry],
        collect(this: { reset(): void; inc(labels: Labels, by: number): void }) {
          this.reset();
          // A counter only goes up; inc on a fresh series sets it (gauges too).
          for (const { labels, value } of series()) this.inc(labels, value);
        },
      });
    }
    return registry;
  }
}

function keyOf(family: FamilyName, labels: Labels): string {
  return FAMILIES[family].labelNames.map((name) => labels[name] ?? '').join('\0');
}
