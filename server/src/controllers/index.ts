/* eslint-disable @typescript-eslint/no-require-imports -- adapters load on first use, see below */
import { lazySchema } from '../core/zod-lazy';
import { dryRunKind } from './adapters/dry-run';
import type { AnyControllerKind } from './kinds';

/**
 * Every controller kind this build drives, by kind string. Only the dry-run
 * kind loads at boot: the others (their schemas, and the MQTT client behind
 * one of them) load the first time a config uses them, so an idle instance
 * that drives one controller does not carry all seven.
 */

type Loader = () => AnyControllerKind;

const LAZY_KINDS: { kind: string; label: string; zoneMapKey?: string; load: Loader }[] = [
  {
    kind: 'opensprinkler',
    label: 'OpenSprinkler (direct HTTP)',
    load: () =>
      (require('./adapters/opensprinkler') as typeof import('./adapters/opensprinkler')).openSprinklerKind,
  },
  {
    kind: 'rachio',
    label: 'Rachio (cloud)',
    load: () => (require('./adapters/rachio') as typeof import('./adapters/rachio')).rachioKind,
  },
  {
    kind: 'esphome_native',
    label: 'ESPHome (web_server REST)',
    load: () => (require('./adapters/esphome') as typeof import('./adapters/esphome')).esphomeKind,
  },
  {
    kind: 'ha_service_call',
    label: 'Home Assistant switch, valve or script',
    load: () =>
      (require('./adapters/ha-service-call') as typeof import('./adapters/ha-service-call'))
        .haServiceCallKind,
  },
  {
    kind: 'http_generic',
    label: 'Generic HTTP',
    load: () =>
      (require('./adapters/http-generic') as typeof import('./adapters/http-generic')).httpGenericKind,
  },
  {
    kind: 'mqtt_command',
    label: 'MQTT command topics',
    zoneMapKey: 'zone_command_map',
    load: () =>
      (require('./adapters/mqtt-command') as typeof import('./adapters/mqtt-command')).mqttCommandKind,
  },
];

export function builtinControllerKinds(
  extra: readonly AnyControllerKind[] = [],
): Map<string, AnyControllerKind> {
  const kinds: AnyControllerKind[] = [
    dryRunKind,
    ...LAZY_KINDS.map((k) => lazyKind(k.kind, k.label, k.load, k.zoneMapKey)),
    ...extra,
  ];
  return new Map(kinds.map((k) => [k.kind, k]));
}

/** A kind whose module loads on the first validation, station check or adapter build. */
export function lazyKind(kind: string, label: string, load: Loader, zoneMapKey?: string): AnyControllerKind {
  let loaded: AnyControllerKind | null = null;
  const real = (): AnyControllerKind => (loaded ??= load());
  return {
    kind,
    label,
    ...(zoneMapKey ? { zoneMapKey } : {}),
    configSchema: lazySchema(() => real().configSchema),
    create: (ctx) => real().create(ctx),
    get stationExpectation() {
      return real().stationExpectation;
    },
    parseStation: (station) => real().parseStation?.(station) ?? station.trim() !== '',
  };
}
