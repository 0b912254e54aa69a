import type { RaincheckConfig, ZoneConfig } from '../../config/schema';
import { SOIL_CATALOG } from '../../agronomy/catalogs/soil';
import { resolvePrecipRate } from '../../agronomy/catalogs/sprinklers';
import { sunFactor } from '../../agronomy/catalogs/sun';
import type { Species } from '../../agronomy/catalogs/species';
import type { SoilTexture } from '../../agronomy/catalogs/soil';
import { resolveRainCap, zoneWaterCapacity, type ZoneWaterCapacity } from '../../agronomy/soil/water-balance';

/**
 * A configured zone resolved into what the models need (spec 2.6 zones):
 * catalog defaults filled in and every default named, so the decision trace
 * can say where each number came from.
 *
 * A zone is `complete` when it has a species, a soil texture and a
 * precipitation rate (its own, else its sprinkler type's catalog rate). Without
 * species or soil no bucket (TAW/RAW) exists; without a rate no run length can
 * be computed. An incomplete zone plans nothing (`zone_incomplete`) and lists
 * the fields it is missing.
 */

export type SchedulingModel = 'soil' | 'weekly';

export interface ZoneBase {
  slug: string;
  name: string;
  config: ZoneConfig;
  model: SchedulingModel;
  model_source: 'zone' | 'engine' | 'default';
  controller_id: string | null;
  max_run_minutes: number | null;
  soil_probe_configured: boolean;
}

export interface CompleteZone extends ZoneBase {
  complete: true;
  species: Species;
  soil_texture: SoilTexture;
  capacity: ZoneWaterCapacity;
  precip_rate_mm_hr: number;
  precip_rate_source: 'zone' | 'catalog';
  sun_factor: number;
  infiltration_mm_hr: number;
  slope_pct: number | null;
  rain_cap_mm: number;
  rain_cap_inferred: boolean;
}

export interface IncompleteZone extends ZoneBase {
  complete: false;
  missing: string[];
  /** The rate when it could be resolved (for `throughput_mm_hr`), else null. */
  precip_rate_mm_hr: number | null;
}

export type ResolvedZone = CompleteZone | IncompleteZone;

export function resolveZones(config: RaincheckConfig): ResolvedZone[] {
  const defaultController = config.controllers.find((c) => c.default)?.id ?? null;
  return Object.keys(config.zones)
    .sort()
    .map((slug) => resolveZone(slug, config.zones[slug] as ZoneConfig, config, defaultController));
}

export function resolveZone(
  slug: string,
  zone: ZoneConfig,
  config: RaincheckConfig,
  defaultController: string | null,
): ResolvedZone {
  const model: SchedulingModel = zone.scheduling_model ?? config.engine.scheduling_model ?? 'soil';
  const base: ZoneBase = {
    slug,
    name: zone.display_name ?? slug,
    config: zone,
    model,
    model_source: zone.scheduling_model ? 'zone' : config.engine.scheduling_model ? 'engine' : 'default',
    controller_id: zone.controller_id ?? defaultController,
    max_run_minutes: zone.max_run_minutes ?? null,
    soil_probe_configured: zone.soil_sensor_id !== null && zone.soil_sensor_id !== undefined,
  };
  const missing: string[] = [];
  if (!zone.species) missing.push('species');
  if (!zone.soil_texture) missing.push('soil_texture');
  let rate: { precip_rate_mm_hr: number; from_catalog: boolean } | null = null;
  if (zone.precip_rate_mm_hr !== null && zone.precip_rate_mm_hr !== undefined) {
    rate = { precip_rate_mm_hr: zone.precip_rate_mm_hr, from_catalog: false };
  } else if (zone.sprinkler_type) {
    rate = resolvePrecipRate(zone.sprinkler_type, null);
  } else {
    missing.push('sprinkler_type or precip_rate_mm_hr');
  }
  const capacity = zoneWaterCapacity({
    species: zone.species,
    soil_texture: zone.soil_texture,
    root_depth_mm: zone.root_depth_mm,
    mad_pct_override: zone.mad_pct_override,
  });
  if (missing.length > 0 || capacity === null || rate === null || !zone.species || !zone.soil_texture) {
    return { ...base, complete: false, missing, precip_rate_mm_hr: rate?.precip_rate_mm_hr ?? null };
  }
  const cap = resolveRainCap(zone.rain_credit_cap_in, capacity.taw_mm);
  return {
    ...base,
    complete: true,
    species: zone.species,
    soil_texture: zone.soil_texture,
    capacity,
    precip_rate_mm_hr: rate.precip_rate_mm_hr,
    precip_rate_source: rate.from_catalog ? 'catalog' : 'zone',
    sun_factor: sunFactor(zone.sun_exposure),
    infiltration_mm_hr: SOIL_CATALOG[zone.soil_texture].infiltration_mm_hr,
    slope_pct: zone.slope_pct ?? null,
    rain_cap_mm: cap.cap_mm ?? capacity.taw_mm,
    rain_cap_inferred: cap.inferred,
  };
}
