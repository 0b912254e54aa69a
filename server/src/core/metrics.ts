import type { Counter, Registry } from 'prom-client';

/**
 * The /metrics registry: aggregate counters only (no per-zone or per-user
 * labels). The request path only bumps plain tallies; prom-client is loaded
 * and the registry built on the first scrape, which keeps it off the hot path
 * and out of memory on instances nobody scrapes. Later domains add verdict,
 * refresh and controller error counters as tallies here.
 */

type Tally = Map<string, number>;

export class Metrics {
  private readonly httpRequests: Tally = new Map();
  private readonly configSaves: Tally = new Map();
  private registry: Registry | null = null;

  /** One answered HTTP request, by method and status class (`2xx`...). */
  countRequest(method: string, status: number): void {
    bump(this.httpRequests, `${method} ${Math.floor(status / 100)}xx`);
  }

  /** One config write, by outcome (`saved` or the refusal code). */
  countConfigSave(outcome: string): void {
    bump(this.configSaves, outcome);
  }

  /** Text exposition format 0.0.4. */
  async render(): Promise<{ contentType: string; body: string }> {
    const registry = (this.registry ??= this.buildRegistry());
    return { contentType: registry.contentType, body: await registry.metrics() };
  }

  private buildRegistry(): Registry {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const prom = require('prom-client') as typeof import('prom-client');
    const registry = new prom.Registry();
    prom.collectDefaultMetrics({ register: registry, prefix: 'raincheck_' });
    const requests = this.httpRequests;
    new prom.Counter({
      name: 'raincheck_http_requests_total',
      help: 'HTTP requests answered, by method and status class',
      labelNames: ['method', 'status_class'],
      registers: [registry],
      collect(this: Counter<'method' | 'status_class'>) {
        this.reset();
        for (const [key, value] of requests) {
          const [method = '', statusClass = ''] = key.split(' ');
          this.inc({ method, status_class: statusClass }, value);
        }
      },
    });
    const saves = this.configSaves;
    new prom.Counter({
      name: 'raincheck_config_saves_total',
      help: 'Config writes (PUT, raw PUT, rollback), by outcome',
      labelNames: ['outcome'],
      registers: [registry],
      collect(this: Counter<'outcome'>) {
        this.reset();
        for (const [outcome, value] of saves) this.inc({ outcome }, value);
      },
    });
    return registry;
  }
}

function bump(tally: Tally, key: string): void {
  tally.set(key, (tally.get(key) ?? 0) + 1);
}
