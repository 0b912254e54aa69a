import { collectDefaultMetrics, Counter, Registry } from 'prom-client';

/**
 * The /metrics registry: aggregate counters only (no per-zone or per-user
 * labels). One registry per service instance, so tests can run several.
 * Later domains add verdict, refresh and controller error counters here.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly httpRequests: Counter<'method' | 'status_class'>;
  readonly configSaves: Counter<'outcome'>;

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'raincheck_' });
    this.httpRequests = new Counter({
      name: 'raincheck_http_requests_total',
      help: 'HTTP requests answered, by method and status class',
      labelNames: ['method', 'status_class'],
      registers: [this.registry],
    });
    this.configSaves = new Counter({
      name: 'raincheck_config_saves_total',
      help: 'Config writes (PUT, raw PUT, rollback), by outcome',
      labelNames: ['outcome'],
      registers: [this.registry],
    });
  }

  /** Text exposition format 0.0.4. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
