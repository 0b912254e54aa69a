import { z } from 'zod';
import { registerControllerKind, registerSourceKind, zoneMapHas } from './kinds';

/**
 * The kinds the contract names, with the config fields it names. Kinds whose
 * adapters are not part of this build validate their block but report
 * `zone_controller_not_built` for the zones they would drive.
 */

const ENTITY_ID = /^[a-z_]+\.[a-z0-9_]+$/;
const open = z.record(z.string(), z.unknown());
const pollInterval = z.number().int().min(60).max(3600).nullish().describe('null = 120');

export const PAST_DAYS_DEFAULT = 3;

export function registerBuiltinKinds(): void {
  registerSourceKind({ kind: 'demo_replay', label: 'Demo replay (synthetic weather)', configSchema: open });
  registerSourceKind({
    kind: 'tempest_udp',
    label: 'Tempest hub (LAN UDP)',
    configSchema: z.looseObject({
      bind_addr: z.string().min(1).default('0.0.0.0:50222'),
      hub_serial: z.string().nullish().describe('null = accept any hub'),
    }),
  });
  registerSourceKind({
    kind: 'open_meteo',
    label: 'Open-Meteo forecast model',
    configSchema: z.looseObject({ past_days: z.number().int().nullish() }),
    adjustments: (config) => {
      const days = config.past_days;
      if (typeof days !== 'number' || (days >= 1 && days <= 7)) return [];
      return [
        {
          path: ['past_days'],
          code: 'source_past_days_clamped',
          message: `past_days ${days} is outside 1..7 and is clamped to ${Math.min(7, Math.max(1, days))}`,
        },
      ];
    },
  });

  registerControllerKind({
    kind: 'dry_run',
    label: 'Dry run (no hardware)',
    configSchema: open,
    adapterBuilt: true,
    acceptsAnyZone: true,
  });
  registerControllerKind({
    kind: 'opensprinkler',
    label: 'OpenSprinkler (direct HTTP)',
    configSchema: z.looseObject({
      host: z.string().min(1),
      port: z.number().int().min(1).max(65535).default(80),
      password_md5: z.string().regex(/^[0-9a-fA-F]{32}$/, 'expected an MD5 hex digest'),
      poll_interval_s: z.number().int().min(2).max(3600).default(10),
    }),
    adapterBuilt: false,
    stationExpectation: 'a 1-based station number such as "1"',
    parseStation: (station) => /^[1-9]\d{0,2}$/.test(station.trim()),
    zoneMapCovers: (config, slug) => zoneMapHas(config, 'zone_map', slug),
  });
  registerControllerKind({
    kind: 'ha_service_call',
    label: 'Home Assistant switch or valve',
    configSchema: open,
    adapterBuilt: false,
    stationExpectation: 'an entity id such as "switch.front_lawn"',
    parseStation: (station) => ENTITY_ID.test(station.trim()),
    zoneMapCovers: (config, slug) => zoneMapHas(config, 'zone_map', slug),
  });
  registerControllerKind({
    kind: 'esphome_native',
    label: 'ESPHome (native API)',
    configSchema: open,
    adapterBuilt: false,
    stationExpectation: 'an entity id such as "switch.zone_1"',
    parseStation: (station) => ENTITY_ID.test(station.trim()),
  });
  registerControllerKind({
    kind: 'http_generic',
    label: 'Generic HTTP',
    configSchema: open,
    adapterBuilt: false,
    zoneMapCovers: (config, slug) => zoneMapHas(config, 'zone_map', slug),
  });
  registerControllerKind({
    kind: 'mqtt_command',
    label: 'MQTT command topics',
    configSchema: open,
    adapterBuilt: false,
    // Its station field dispatches nothing: only the command map binds a zone.
    stationExpectation: 'an entry in its zone_command_map',
    parseStation: () => false,
    zoneMapCovers: (config, slug) => zoneMapHas(config, 'zone_command_map', slug),
  });
  for (const kind of ['rachio', 'hydrawise', 'bhyve', 'rainbird']) {
    registerControllerKind({
      kind,
      label: `${kind} (cloud)`,
      configSchema: z.looseObject({ poll_interval_s: pollInterval, base_url: z.string().nullish() }),
      adapterBuilt: false,
      zoneMapCovers: (config, slug) => zoneMapHas(config, 'zone_map', slug),
    });
  }
}
