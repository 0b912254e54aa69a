import type { JsonObject } from './json-walk';
import type { RaincheckConfig, ZoneConfig } from './schema';
import { CURRENT_SCHEMA_VERSION } from './schema-version';
import { withoutNulls } from './toml';

/**
 * The ready demo config `npm run demo` starts with when the data folder has
 * none: a location, synthetic weather, a dry-run controller and six zones that
 * differ in species, soil and sprinkler, so every engine path shows output.
 */

type DemoZone = [
  slug: string,
  display_name: string,
  species: NonNullable<ZoneConfig['species']>,
  soil_texture: NonNullable<ZoneConfig['soil_texture']>,
  sprinkler_type: NonNullable<ZoneConfig['sprinkler_type']>,
  sun_exposure: NonNullable<ZoneConfig['sun_exposure']>,
  area_sqft: number,
];

const ZONES: DemoZone[] = [
  ['front_lawn', 'Front lawn', 'st_augustine', 'sand', 'rotor', 'full', 2400],
  ['back_lawn', 'Back lawn', 'bermuda', 'sandy_loam', 'mp_rotator', 'full', 3200],
  ['side_strip', 'Side strip', 'zoysia', 'loam', 'spray', 'partial', 600],
  ['shade_bed', 'Shade bed', 'ornamental_shrubs', 'clay_loam', 'bubbler', 'shade', 350],
  ['vegetables', 'Vegetable garden', 'vegetable_garden', 'silt_loam', 'drip', 'full', 200],
  ['xeriscape', 'Xeriscape', 'drip_xeriscape', 'loamy_sand', 'drip', 'full', 500],
];

const CONTROLLER_ID = 'demo_controller';

export function demoConfig(lat: number | null, lon: number | null): JsonObject {
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
    controllers: [{ id: CONTROLLER_ID, default: true, enabled: true, kind: 'dry_run', config: {} }],
    zones: Object.fromEntries(
      ZONES.map(([slug, display_name, species, soil_texture, sprinkler_type, sun_exposure, area_sqft], i) => [
        slug,
        {
          display_name,
          species,
          soil_texture,
          sprinkler_type,
          sun_exposure,
          area_sqft,
          controller_id: CONTROLLER_ID,
          controller_station: String(i + 1),
        },
      ]),
    ),
    engine: { scheduling_model: 'soil' },
  };
}

/**
 * The demo config as saving it applies it: the stored document (nulls dropped)
 * and what validating that gives, defaults filled and keys in schema order.
 * Written out here so the demo boots without building the config schema or
 * loading zod (about 4.5 MB of an idle demo); a test holds `config` equal to
 * validateDocument(document) (values and key order) with an empty report, so a
 * changed default fails it instead of drifting.
 */
export function demoSeed(
  lat: number | null,
  lon: number | null,
): { document: JsonObject; config: RaincheckConfig } {
  const document = withoutNulls(demoConfig(lat, lon)) as JsonObject;
  const { deployment, sources, controllers } = structuredClone(document) as unknown as RaincheckConfig;
  const config: RaincheckConfig = {
    schema_version: CURRENT_SCHEMA_VERSION,
    deployment,
    features: {
      demo_mode: true,
      enable_mqtt_publish: true,
      enable_advisor: true,
      enable_push: true,
      nerd_mode_default: false,
      telemetry: false,
    },
    sources,
    controllers,
    zones: Object.fromEntries(
      ZONES.map(([slug, display_name, species, soil_texture, sprinkler_type, sun_exposure, area_sqft], i) => [
        slug,
        {
          display_name,
          area_sqft,
          species,
          soil_texture,
          sun_exposure,
          sprinkler_type,
          controller_id: CONTROLLER_ID,
          controller_station: String(i + 1),
        },
      ]),
    ),
    notifications: {},
    engine: {
      capture_efficiency: 0.7,
      session_rain_defer_in: 0.1,
      soak_minutes: 30,
      et0_method: 'auto',
      scheduling_model: 'soil',
      skip_rules: {
        already_wet_in: 0.05,
        rain_now_in_hr: 0.01,
        rain_next_4h_skip_in: 0.1,
        rain_3day_factor: 1.5,
        heat_advisory_temp_f: 95,
        heat_advisory_humidity_pct: 60,
        heat_advisory_dry_days: 2,
        wind_forecast_slack_mph: 5,
        max_wind_mph: 10,
        min_temp_f: 38,
        rain_skip_in: 0.25,
        frost_skip_soil_f: 35,
      },
      overrides: {},
      field_source_chains: {},
      history_retention_days: 90,
      soil_probe_offline_minutes: 180,
    },
    restrictions: [],
    schedules: [],
    masters: [],
    auth: {
      mode: 'disabled',
      session_ttl_days: 30,
      trusted_networks: [],
      trusted_proxies: [],
      proxy_auth_allow: [],
      allowed_hosts: [],
    },
  };
  return { document, config };
}
