import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { Registry } from 'prom-client';

/**
 * The process and Node.js runtime families, prom-client's defaults, made to
 * pass `promtool check metrics`:
 * - prom-client's `nodejs_active_{handles,requests,resources}_total` are
 *   gauges named like counters; they are dropped (the per-type gauges
 *   `nodejs_active_{handles,requests,resources}` carry the same numbers).
 * - its event loop delay statistics print `Nan` and a placeholder minimum
 *   (2^63 ns) when no delay was sampled yet (the first scrape, which starts
 *   the monitor); ours omit the sample until the monitor has one.
 */

type Prom = typeof import('prom-client');

const COUNTER_NAMED_GAUGES = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

const LAG_STATS: { suffix: string; help: string; read: (h: IntervalHistogram) => number }[] = [
  { suffix: 'min', help: 'The minimum recorded event loop delay.', read: (h) => h.min },
  { suffix: 'max', help: 'The maximum recorded event loop delay.', read: (h) => h.max },
  { suffix: 'mean', help: 'The mean of the recorded event loop delays.', read: (h) => h.mean },
  {
    suffix: 'stddev',
    help: 'The standard deviation of the recorded event loop delays.',
    read: (h) => h.stddev,
  },
  {
    suffix: 'p50',
    help: 'The 50th percentile of the recorded event loop delays.',
    read: (h) => h.percentile(50),
  },
  {
    suffix: 'p90',
    help: 'The 90th percentile of the recorded event loop delays.',
    read: (h) => h.percentile(90),
  },
  {
    suffix: 'p99',
    help: 'The 99th percentile of the recorded event loop delays.',
    read: (h) => h.percentile(99),
  },
];

export function registerRuntimeMetrics(prom: Prom, registry: Registry, prefix: string): void {
  prom.collectDefaultMetrics({ register: registry, prefix });
  for (const name of COUNTER_NAMED_GAUGES) registry.removeSingleMetric(prefix + name);
  for (const { suffix } of LAG_STATS)
    registry.removeSingleMetric(`${prefix}nodejs_eventloop_lag_${suffix}_seconds`);
  registerEventLoopDelay(prom, registry, prefix);
}

/** The delay statistics since the previous scrape; absent (no sample line) while none was recorded. */
function registerEventLoopDelay(prom: Prom, registry: Registry, prefix: string): void {
  const histogram = monitorEventLoopDelay();
  histogram.enable();
  let taken: Map<string, number> | null = null;
  const take = (): Map<string, number> | null => {
    if (histogram.count === 0) return null;
    const values = new Map(LAG_STATS.map(({ suffix, read }) => [suffix, read(histogram) / 1e9]));
    histogram.reset();
    return values;
  };
  LAG_STATS.forEach(({ suffix, help }, index) => {
    const gauge = new prom.Gauge({
      name: `${prefix}nodejs_eventloop_lag_${suffix}_seconds`,
      help,
      registers: [registry],
    });
    const get = gauge.get.bind(gauge);
    // The first family of a scrape reads the histogram for all of them (the order they were registered in).
    gauge.get = async () => {
      if (index === 0) taken = take();
      const value = taken?.get(suffix);
      if (value === undefined) return { ...(await get()), values: [] };
      gauge.set(value);
      return get();
    };
  });
}
