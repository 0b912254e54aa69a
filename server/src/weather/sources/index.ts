/* eslint-disable @typescript-eslint/no-require-imports -- source kinds load on first use, see below */
import { registerSourceKind } from '../../config/kinds';
import { lazySchema } from '../../core/zod-lazy';
import type { SourceKindDefinition } from '../source';
import { demoReplayKind } from './demo/demo-replay';

/**
 * Every weather source kind this build runs, in one list. Adding a kind means
 * adding its definition here; the config validator learns its `config` schema
 * from the same definition, so validation and the running source agree.
 *
 * Only the demo replay loads at boot: every other kind's module (its parser,
 * schema and client) loads the first time something reads more than its name
 * and label (a config that uses it, the source catalog), so an idle service
 * does not carry eight source implementations it does not run.
 */

type Loader = () => SourceKindDefinition;

const LAZY_KINDS: { kind: string; label: string; minLiveS?: number; load: Loader }[] = [
  {
    kind: 'tempest_udp',
    label: 'Tempest hub (LAN UDP)',
    load: () => (require('./tempest/tempest-udp') as typeof import('./tempest/tempest-udp')).tempestUdpKind,
  },
  {
    kind: 'tempest_ws',
    label: 'Tempest station (vendor cloud websocket)',
    load: () => (require('./tempest/tempest-ws') as typeof import('./tempest/tempest-ws')).tempestWsKind,
  },
  {
    kind: 'ecowitt_local',
    label: 'Ecowitt gateway (LAN polling)',
    load: () =>
      (require('./ecowitt/local-poller') as typeof import('./ecowitt/local-poller')).ecowittLocalKind,
  },
  {
    kind: 'ecowitt_ingest',
    label: 'Ecowitt gateway (custom upload)',
    load: () =>
      (require('./ecowitt/ingest-source') as typeof import('./ecowitt/ingest-source')).ecowittIngestKind,
  },
  {
    kind: 'http_webhook',
    label: 'Generic JSON webhook',
    load: () =>
      (require('./webhook/webhook-source') as typeof import('./webhook/webhook-source')).httpWebhookKind,
  },
  {
    kind: 'mqtt_topic',
    label: 'MQTT topic (soil probe)',
    load: () => (require('./mqtt/mqtt-topic') as typeof import('./mqtt/mqtt-topic')).mqttTopicKind,
  },
  // Model output on a 15-minute step, polled every 10 minutes; NWS stations report about hourly.
  {
    kind: 'open_meteo',
    label: 'Open-Meteo forecast model',
    minLiveS: 1800,
    load: () => (require('./open-meteo/current') as typeof import('./open-meteo/current')).openMeteoKind,
  },
  {
    kind: 'nws',
    label: 'US National Weather Service (nearest station)',
    minLiveS: 4500,
    load: () => (require('./nws/observation') as typeof import('./nws/observation')).nwsKind,
  },
  {
    kind: 'openweather',
    label: 'OpenWeatherMap (One Call 3.0)',
    minLiveS: 1800,
    load: () => (require('./openweather/current') as typeof import('./openweather/current')).openWeatherKind,
  },
];

export function builtinSourceKinds(
  extra: readonly SourceKindDefinition[] = [],
): Map<string, SourceKindDefinition> {
  const kinds = [demoReplayKind, ...LAZY_KINDS.map(lazySourceKind), ...extra];
  return new Map(kinds.map((k) => [k.kind, k]));
}

/** A kind whose module loads the first time its fields, schema, catalog entry or a source are asked for. */
function lazySourceKind({ kind, label, minLiveS, load }: (typeof LAZY_KINDS)[number]): SourceKindDefinition {
  let loaded: SourceKindDefinition | null = null;
  const real = (): SourceKindDefinition => (loaded ??= load());
  return {
    kind,
    label,
    ...(minLiveS !== undefined ? { minLiveS } : {}),
    get provides() {
      return real().provides;
    },
    get cloud() {
      return real().cloud;
    },
    configSchema: lazySchema(() => real().configSchema),
    create: (ctx) => real().create(ctx),
  };
}

/** Kinds whose values come from a model or a simulation rather than a sensor. */
export const MODELLED_KINDS: ReadonlySet<string> = new Set(['demo_replay', 'open_meteo', 'openweather']);

export function registerWithConfigValidator(kinds: ReadonlyMap<string, SourceKindDefinition>): void {
  for (const kind of kinds.values()) {
    registerSourceKind({ kind: kind.kind, label: kind.label, configSchema: kind.configSchema });
  }
}
