import { registerSourceKind } from '../../config/kinds';
import type { SourceKindDefinition } from '../source';
import { demoReplayKind } from './demo/demo-replay';
import { ecowittIngestKind } from './ecowitt/ingest-source';
import { ecowittLocalKind } from './ecowitt/local-poller';
import { nwsKind } from './nws/observation';
import { openMeteoKind } from './open-meteo/current';
import { openWeatherKind } from './openweather/current';
import { tempestUdpKind } from './tempest/tempest-udp';
import { tempestWsKind } from './tempest/tempest-ws';
import { httpWebhookKind } from './webhook/webhook-source';

/**
 * Every weather source kind this build runs, in one list. Adding a kind means
 * adding its definition here; the config validator learns its `config` schema
 * from the same definition, so validation and the running source agree.
 */
export function builtinSourceKinds(
  extra: readonly SourceKindDefinition[] = [],
): Map<string, SourceKindDefinition> {
  const kinds = [
    demoReplayKind,
    tempestUdpKind,
    tempestWsKind,
    ecowittLocalKind,
    ecowittIngestKind,
    httpWebhookKind,
    // Model output on a 15-minute step, polled every 10 minutes; NWS stations report about hourly.
    { ...openMeteoKind, minLiveS: 1800 },
    { ...nwsKind, minLiveS: 4500 },
    { ...openWeatherKind, minLiveS: 1800 },
    ...extra,
  ];
  return new Map(kinds.map((k) => [k.kind, k]));
}

/** Kinds whose values come from a model or a simulation rather than a sensor. */
export const MODELLED_KINDS: ReadonlySet<string> = new Set(['demo_replay', 'open_meteo', 'openweather']);

export function registerWithConfigValidator(kinds: ReadonlyMap<string, SourceKindDefinition>): void {
  for (const kind of kinds.values()) {
    registerSourceKind({ kind: kind.kind, label: kind.label, configSchema: kind.configSchema });
  }
}
