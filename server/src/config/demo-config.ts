import type { JsonObject } from './json-walk';
import { CURRENT_SCHEMA_VERSION } from './schema';

/**
 * The ready demo config `npm run demo` starts with when the data folder has
 * none: a location, synthetic weather, a dry-run controller and six zones that
 * differ in species, soil and sprinkler, so every engine path shows output.
 */
export function demoConfig(lat: number | null, lon: number | null): JsonObject {
  const zone = (
    display_name: string,
    species: string,
    soil_texture: string,
    sprinkler_type: string,
    sun_exposure: string,
    area_sqft: number,
    station: number,
  ): JsonObject => ({
    display_name,
    species,
    soil_texture,
    sprinkler_type,
    sun_exposure,
    area_sqft,
    controller_id: 'demo_controller',
    controller_station: String(station),
  });
  return {
    schema_version: CURRENT_SCHEMA_VERSION,
    deployment: {
      // Orlando, Florida unless LAT/LON say otherwise: warm, rainy summers exercise the skip rules.
      location: { lat: lat ?? 28.5383, lon: lon ?? -81.3792, elevation_m: 30 },
      units: 'imperial',
      timezone: lat === null ? 'America/New_York' : null,
      display_name: 'Raincheck demo yard',
    },
    features: { demo_mode: true },
    sources: [{ id: 'demo', priority: 100, enabled: true, kind: 'demo_replay', config: {} }],
    controllers: [{ id: 'demo_controller', default: true, enabled: true, kind: 'dry_run', config: {} }],
    zones: {
      front_lawn: zone('Front lawn', 'st_augustine', 'sand', 'rotor', 'full', 2400, 1),
      back_lawn: zone('Back lawn', 'bermuda', 'sandy_loam', 'mp_rotator', 'full', 3200, 2),
      side_strip: zone('Side strip', 'zoysia', 'loam', 'spray', 'partial', 600, 3),
      shade_bed: zone('Shade bed', 'ornamental_shrubs', 'clay_loam', 'bubbler', 'shade', 350, 4),
      vegetables: zone('Vegetable garden', 'vegetable_garden', 'silt_loam', 'drip', 'full', 200, 5),
      xeriscape: zone('Xeriscape', 'drip_xeriscape', 'loamy_sand', 'drip', 'full', 500, 6),
    },
    engine: { scheduling_model: 'soil' },
  };
}
