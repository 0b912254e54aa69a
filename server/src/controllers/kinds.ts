import { registerControllerKind, zoneMapHas } from '../config/kinds';
import type { ControllerKindDefinition } from './types';

/**
 * The controller kinds this build can drive. Registering one also tells the
 * config validator its schema and station rules, and that its adapter is
 * built (no `zone_controller_not_built` warning for its zones).
 */

/** A kind of any config shape (method parameters are bivariant, so every kind fits). */
export type AnyControllerKind = ControllerKindDefinition<Record<string, unknown>>;

export function registerWithConfigValidator(kinds: Iterable<AnyControllerKind>): void {
  for (const kind of kinds) {
    const mapKey = kind.zoneMapKey ?? 'zone_map';
    // Getters and closures, not copies: a lazily loaded kind stays unloaded until a config uses it.
    registerControllerKind({
      kind: kind.kind,
      label: kind.label,
      get configSchema() {
        return kind.configSchema;
      },
      adapterBuilt: true,
      ...(kind.acceptsAnyZone ? { acceptsAnyZone: true } : {}),
      get stationExpectation() {
        return kind.stationExpectation;
      },
      parseStation: (station) => (kind.parseStation ? kind.parseStation(station) : station.trim() !== ''),
      zoneMapCovers: (config, slug) => zoneMapHas(config, mapKey, slug),
    });
  }
}

/** The zone's station: its own `controller_station`, else the kind's zone map, else (dry run) the slug. */
export function stationFor(
  kind: AnyControllerKind,
  controllerConfig: Record<string, unknown>,
  slug: string,
  zoneStation: string | null | undefined,
): string | null {
  const own = zoneStation?.trim();
  if (own) return own;
  const map = controllerConfig[kind.zoneMapKey ?? 'zone_map'];
  if (typeof map === 'object' && map !== null) {
    const mapped = (map as Record<string, unknown>)[slug];
    if (typeof mapped === 'string' && mapped.trim() !== '') return mapped.trim();
    if (typeof mapped === 'number') return String(mapped);
    // A structured entry (mqtt_command's per-zone topics) is looked up by slug.
    if (typeof mapped === 'object' && mapped !== null) return slug;
  }
  return kind.slugIsStation ? slug : null;
}
