import { lazySchema } from '../core/zod-lazy';
import { registerControllerKind, registerSourceKind, zoneMapHas } from './kinds';

/**
 * The source kinds the contract names, with the config fields it names, and
 * the controller kinds that have no adapter in this build: they validate
 * their block but report `zone_controller_not_built` for the zones they would
 * drive. Drivable controller kinds register from server/src/controllers/.
 */

const open = lazySchema((z) => z.record(z.string(), z.unknown()));

export const PAST_DAYS_DEFAULT = 3;

export function registerBuiltinKinds(): void {
  registerSourceKind({ kind: 'demo_replay', label: 'Demo replay (synthetic weather)', configSchema: open });
  registerSourceKind({
    kind: 'tempest_udp',
    label: 'Tempest hub (LAN UDP)',
    configSchema: lazySchema((z) =>
      z.looseObject({
        bind_addr: z.string().min(1).default('0.0.0.0:50222'),
        hub_serial: z.string().nullish().describe('null = accept any hub'),
      }),
    ),
  });
  registerSourceKind({
    kind: 'open_meteo',
    label: 'Open-Meteo forecast model',
    configSchema: lazySchema((z) => z.looseObject({ past_days: z.number().int().nullish() })),
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

  // Every drivable controller kind registers from server/src/controllers/ with its adapter's own
  // schema; these cloud kinds validate but have no adapter yet (zone_controller_not_built).
  for (const kind of ['hydrawise', 'bhyve', 'rainbird']) {
    registerControllerKind({
      kind,
      label: `${kind} (cloud)`,
      configSchema: lazySchema((z) =>
        z.looseObject({
          poll_interval_s: z.number().int().min(60).max(3600).nullish().describe('null = 120'),
          base_url: z.string().nullish(),
        }),
      ),
      adapterBuilt: false,
      zoneMapCovers: (config, slug) => zoneMapHas(config, 'zone_map', slug),
    });
  }
}
