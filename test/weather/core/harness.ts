import { z } from 'zod';
import type { AppliedConfig } from '../../../server/src/config/config-types';
import type { JsonObject } from '../../../server/src/config/json-walk';
import { configSchema } from '../../../server/src/config/schema';
import { EventBus } from '../../../server/src/core/bus';
import { ManualClock } from '../../../server/src/core/clock';
import { silentLogger } from '../../../server/src/core/logger';
import type { WeatherField } from '../../../server/src/weather/fields';
import type {
  Reading,
  SourceBatch,
  SourceContext,
  SourceKindDefinition,
  WeatherSource,
} from '../../../server/src/weather/source';
import { demoReplayKind } from '../../../server/src/weather/sources/demo/demo-replay';
import { WeatherService } from '../../../server/src/weather/weather-service';

/**
 * Test harness for the weather core: a test-only "probe" source kind whose
 * instances hand their SourceContext to the test, so readings enter through
 * the real sink (publish / contact) of a real WeatherService. That tests the
 * service, not any source adapter.
 */

/** 2025-06-10 12:00:00 local in America/Chicago (17:00 UTC). */
export const T0 = Date.UTC(2025, 5, 10, 17, 0, 0) / 1000;
export const TZ = 'America/Chicago';

export interface ProbeInstance {
  ctx: SourceContext;
  started: boolean;
  stopped: boolean;
}

export interface ProbeKinds {
  kinds: Map<string, SourceKindDefinition>;
  /** Every instance created, per source id, oldest first. */
  instances: Map<string, ProbeInstance[]>;
  /** The newest instance of a source id. */
  probe(id: string): ProbeInstance;
}

function probeKind(
  kind: string,
  label: string,
  instances: Map<string, ProbeInstance[]>,
  extra: Partial<SourceKindDefinition> = {},
): SourceKindDefinition {
  return {
    kind,
    label,
    provides: ['air_temp_f', 'rh_pct', 'wind_avg_mph', 'rain_in_today'],
    configSchema: z.looseObject({}),
    ...extra,
    create(ctx: SourceContext): WeatherSource {
      const instance: ProbeInstance = { ctx, started: false, stopped: false };
      instances.set(ctx.id, [...(instances.get(ctx.id) ?? []), instance]);
      return {
        id: ctx.id,
        kind,
        start: async () => {
          instance.started = true;
        },
        stop: async () => {
          instance.stopped = true;
        },
      };
    },
  };
}

/** `probe` (a measuring station), `probe_model` (a cloud model: modelled, not measured) and the real demo kind. */
export function probeKinds(): ProbeKinds {
  const instances = new Map<string, ProbeInstance[]>();
  const kinds = new Map<string, SourceKindDefinition>([
    ['probe', probeKind('probe', 'Probe station', instances)],
    [
      'probe_model',
      probeKind('probe_model', 'Probe model', instances, { cloud: { honestyRank: 10, needsApiKey: false } }),
    ],
    ['demo_replay', demoReplayKind],
  ]);
  return {
    kinds,
    instances,
    probe(id: string): ProbeInstance {
      const list = instances.get(id);
      const last = list?.[list.length - 1];
      if (!last) throw new Error(`no probe instance for ${id}`);
      return last;
    },
  };
}

export const MODELLED = new Set(['probe_model', 'demo_replay']);

export interface SourceDoc {
  id: string;
  kind?: string;
  priority?: number;
  enabled?: boolean;
  config?: JsonObject;
}

/** A valid v2 document with the given sources, parsed the way the config service does. */
export function appliedConfig(
  sources: SourceDoc[],
  options: { engine?: JsonObject; demoMode?: boolean; revision?: number; lat?: number } = {},
): AppliedConfig {
  const document: JsonObject = {
    schema_version: 2,
    deployment: {
      location: { lat: options.lat ?? 30.27, lon: -97.74, elevation_m: 150 },
      timezone: TZ,
    },
    features: { demo_mode: options.demoMode ?? false },
    sources: sources.map((s) => ({
      id: s.id,
      kind: s.kind ?? 'probe',
      priority: s.priority ?? 50,
      enabled: s.enabled ?? true,
      config: s.config ?? {},
    })),
    engine: options.engine ?? {},
  };
  return {
    config: configSchema.parse(document),
    document,
    appliedAtEpoch: T0,
    revision: options.revision ?? 1,
  };
}

export interface Harness {
  service: WeatherService;
  bus: EventBus;
  clock: ManualClock;
  probes: ProbeKinds;
  now(): number;
  /** Seconds. */
  advance(seconds: number): void;
  /** Swaps the applied config and announces it on the bus, as the config service does. */
  applyConfig(next: AppliedConfig | null): Promise<void>;
  /** Publishes readings through a probe's sink, observed now unless an epoch is given. */
  publish(id: string, values: Partial<Record<WeatherField, number | null>>, observedEpoch?: number): void;
  batch(id: string, batch: SourceBatch): void;
}

export function makeHarness(
  initial: AppliedConfig | null,
  options: { demo?: boolean; startEpoch?: number } = {},
): Harness {
  const clock = new ManualClock((options.startEpoch ?? T0) * 1000);
  const bus = new EventBus();
  const probes = probeKinds();
  let current = initial;
  const service = new WeatherService({
    bus,
    clock,
    logger: silentLogger(),
    config: () => current,
    store: null,
    kinds: probes.kinds,
    modelledKinds: MODELLED,
    demo: options.demo ?? false,
  });
  const now = () => Math.floor(clock.nowMs() / 1000);
  return {
    service,
    bus,
    clock,
    probes,
    now,
    advance: (seconds) => clock.advance(seconds * 1000),
    async applyConfig(next) {
      const previous = current;
      current = next;
      if (!next) return service.reconfigure();
      bus.emit('config.changed', { previous, next });
      // The service reconfigures from its listener (fire and forget); probe start/stop
      // resolve at once, so one macrotask turn drains every chained microtask.
      await new Promise((resolve) => setImmediate(resolve));
    },
    publish(id, values, observedEpoch) {
      const epoch = observedEpoch ?? now();
      const readings: Reading[] = Object.entries(values).map(([field, value]) => ({
        field: field as WeatherField,
        value: value as number | null,
        observedEpoch: epoch,
      }));
      probes.probe(id).ctx.sink.publish({ readings });
    },
    batch(id, batch) {
      probes.probe(id).ctx.sink.publish(batch);
    },
  };
}
