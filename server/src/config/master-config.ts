import type { ZodNamespace } from '../core/zod-lazy';
import { formatPath } from './json-walk';
import type { ValidationEntry } from './validate';

/**
 * One `[[masters]]` entry: a master valve or pump that must be open while
 * any zone it serves runs (irrigation/dispatch/master-valves.ts). It is a
 * station of any controller (`controller_id` + `station`, written as that
 * controller's zones are: an OpenSprinkler station number, an HA switch
 * entity, an MQTT topic, an ESPHome switch), serving either a group of
 * `zones` or every zone of `for_controller`. It opens `lead_s` before its
 * first zone and closes `lag_s` after its last one.
 */
export function masterShape(z: ZodNamespace) {
  return z.strictObject({
    name: z.string().regex(/^[a-z0-9][a-z0-9_]{0,63}$/, 'a name of a-z, 0-9 and "_", such as "well_pump"'),
    controller_id: z.string().min(1),
    station: z.string().min(1),
    zones: z.array(z.string().min(1)).min(1).nullish(),
    for_controller: z.string().min(1).nullish(),
    lead_s: z.number().int().min(0).max(60).default(2),
    lag_s: z.number().int().min(0).max(600).default(5),
  });
}

interface MasterLike {
  name: string;
  controller_id: string;
  station: string;
  zones?: string[] | null;
  for_controller?: string | null;
}

interface ConfigLike {
  masters: readonly MasterLike[];
  controllers: readonly { id: string }[];
  zones: Record<string, { controller_id?: string | null; controller_station?: string | null }>;
}

/**
 * `master_name_duplicate`; `master_controller_unknown` (its own controller or
 * `for_controller`); `master_zone_unknown`; `master_serves` (exactly one of
 * `zones` or `for_controller`); `master_station_is_zone` (the station is a
 * zone's own station on that controller).
 */
export function checkMasters(config: ConfigLike, errors: ValidationEntry[]): void {
  const controllers = new Set(config.controllers.map((c) => c.id));
  const fallback = (config.controllers as { id: string; default?: boolean }[]).find((c) => c.default)?.id;
  const names = new Set<string>();
  config.masters.forEach((m, i) => {
    const at = (...path: (string | number)[]) => formatPath(['masters', i, ...path]);
    if (names.has(m.name)) {
      errors.push({
        code: 'master_name_duplicate',
        path: at('name'),
        message: `master "${m.name}" is named twice`,
      });
    }
    names.add(m.name);
    for (const [key, id] of [
      ['controller_id', m.controller_id],
      ['for_controller', m.for_controller],
    ] as const) {
      if (id && !controllers.has(id)) {
        errors.push({
          code: 'master_controller_unknown',
          path: at(key),
          message: `master "${m.name}" names controller "${id}", which is not configured`,
        });
      }
    }
    const byZones = !!m.zones && m.zones.length > 0;
    if (byZones === !!m.for_controller) {
      errors.push({
        code: 'master_serves',
        path: at(),
        message: `master "${m.name}" serves either a list of zones or every zone of for_controller`,
      });
    }
    (m.zones ?? []).forEach((zone, z) => {
      if (!(zone in config.zones)) {
        errors.push({
          code: 'master_zone_unknown',
          path: at('zones', z),
          message: `master "${m.name}" names zone "${zone}", which is not configured`,
        });
      }
    });
    for (const [slug, zone] of Object.entries(config.zones)) {
      const controller = zone.controller_id ?? fallback;
      if (controller === m.controller_id && zone.controller_station === m.station) {
        errors.push({
          code: 'master_station_is_zone',
          path: at('station'),
          message: `master "${m.name}" uses station "${m.station}" of "${m.controller_id}", which is zone "${slug}"`,
        });
      }
    }
  });
}

/** The zones a master serves under a config (its list, or every zone of its controller). */
export function masterZones(master: MasterLike, config: Pick<ConfigLike, 'zones' | 'controllers'>): string[] {
  if (master.zones && master.zones.length > 0) return [...master.zones];
  const fallback = (config.controllers as { id: string; default?: boolean }[]).find((c) => c.default)?.id;
  return Object.entries(config.zones)
    .filter(([, zone]) => (zone.controller_id ?? fallback) === master.for_controller)
    .map(([slug]) => slug);
}
