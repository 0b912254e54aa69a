import { isIP } from 'node:net';
import type { z } from 'zod';
import { lazySchema, once, zod, type ZodNamespace } from '../core/zod-lazy';
import { restrictionRuleShape } from './restriction-rule';
import { runWindowShape } from './run-window-config';
import { scheduleShape } from './schedule-config';
import { masterShape } from './master-config';
import { CURRENT_SCHEMA_VERSION } from './schema-version';

/**
 * The whole config document (spec 2.6), one zod schema. TOML on disk, JSON on
 * the wire. Objects are strict so a misspelt key is reported (as a warning, see
 * validate.ts) instead of silently ignored. Per-kind `config` blocks of sources
 * and controllers are open records here: the kind that owns them validates them
 * (kinds.ts). The schemas are built, and zod loaded, on first use (core/zod-lazy.ts).
 */

export { CURRENT_SCHEMA_VERSION };

export const SPECIES = [
  'st_augustine',
  'bermuda',
  'zoysia',
  'bahia',
  'centipede',
  'kentucky_bluegrass',
  'tall_fescue',
  'perennial_ryegrass',
  'ornamental_shrubs',
  'vegetable_garden',
  'drip_xeriscape',
  'other',
] as const;

export const SOIL_TEXTURES = [
  'sand',
  'loamy_sand',
  'sandy_loam',
  'loam',
  'silt_loam',
  'clay_loam',
  'clay',
] as const;

export const SPRINKLER_TYPES = ['rotor', 'spray', 'mp_rotator', 'drip', 'bubbler'] as const;
export const SUN_EXPOSURES = ['full', 'partial', 'shade'] as const;
export const SCHEDULING_MODELS = ['weekly', 'soil'] as const;
export const ET0_METHODS = [
  'auto',
  'penman_monteith',
  'asce_simplified',
  'hargreaves_samani',
  'source_native',
] as const;
export const AUTH_MODES = ['disabled', 'required'] as const;
/** Where a flow meter's readings come from (docs/controllers.md "Flow meters"). */
export const FLOW_METER_KINDS = ['controller', 'ha_sensor', 'mqtt', 'source'] as const;
/** A meter reports a rate (volume per time) or a cumulative total (a counter). */
export const FLOW_RATE_UNITS = ['gal/min', 'gal/h', 'L/min', 'L/h', 'm3/h'] as const;
export const FLOW_TOTAL_UNITS = ['gal', 'L', 'm3'] as const;
export const LLM_PROVIDERS = ['auto', 'ollama', 'llamacpp', 'openai_compat'] as const;
/** The releases the opt-in update check reads (GitHub releases API, newest non-draft, non-pre-release). */

/** Zone keys become MQTT topics, HA entity ids and history keys: keep them tame. */
export const ZONE_SLUG_PATTERN = /^[a-z0-9][a-z0-9_]{0,63}$/;
/** The longest display name of a source, controller, flow meter (or soil probe). */
export const DEVICE_NAME_MAX = 80;
export const ENTRY_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/**
 * Builds every schema of the document at once (they embed one another). Runs on the
 * first use of any of them: zod stays unloaded until something validates.
 */
function buildSchemas(z: ZodNamespace) {
  const id = z.string().regex(ENTRY_ID_PATTERN, 'ids are 1-64 letters, digits, "_", "." or "-"');
  const kindName = z.string().min(1);
  const kindConfig = z.record(z.string(), z.unknown()).default({});
  const optionalText = z.string().nullish();
  /**
   * A person's name for a source, controller or flow meter, shown where its id
   * was; the id stays what zones, probes and history refer to. Same length cap
   * as a probe's name (PUT /sensors/soil/name).
   */
  const deviceName = z
    .string()
    .max(DEVICE_NAME_MAX, `a name is ${DEVICE_NAME_MAX} characters at most`)
    .regex(/\S/, 'a name needs a visible character; remove the key to go back to the id')
    .nullish()
    .describe('display name; absent shows the id');

  const locationSchema = z.strictObject({
    lat: z.number().min(-90).max(90),
    lon: z.number().min(-180).max(180),
    elevation_m: z.number().min(-500).max(9000).nullish(),
  });

  const runWindowSchema = runWindowShape(z);

  const deploymentSchema = z.strictObject({
    location: locationSchema,
    units: z.enum(['imperial', 'metric']).default('imperial'),
    timezone: z.string().min(1).nullish().describe('IANA name; null derives it from lat/lon'),
    display_name: optionalText,
    /** Deprecated (spec 9.6): read by nothing, accepted so old files still load. */
    shadow_native: z.unknown().optional(),
    /** When the night's run happens (config/run-window-config.ts); absent finishes by sunrise. */
    run_window: runWindowSchema.nullish(),
  });

  const featuresSchema = z.strictObject({
    demo_mode: z.boolean().default(false),
    enable_mqtt_publish: z.boolean().default(true),
    enable_advisor: z.boolean().default(true),
    enable_push: z.boolean().default(true),
    nerd_mode_default: z.boolean().default(false),
    telemetry: z.boolean().default(false),
  });

  /** Opt-in release check (ops/updates, docs/configuration.md): nothing is fetched unless enabled. */
  const updatesSchema = z.strictObject({
    check_enabled: z.boolean().default(false),
    /** Absent or null: the project's GitHub releases (ops/updates/update-checker.ts DEFAULT_RELEASES_URL). */
    releases_url: z
      .string()
      .regex(/^https?:\/\/\S+$/, 'expected an http(s) URL')
      .nullish(),
  });

  const sourceSchema = z.strictObject({
    id,
    name: deviceName,
    priority: z.number().int().min(0).max(1000).default(50),
    enabled: z.boolean().default(true),
    kind: kindName,
    config: kindConfig,
  });

  /**
   * A flow meter bound to a controller (every zone it drives) or to one zone
   * (which wins). Readings come from the controller's own sensor, a Home
   * Assistant sensor, an MQTT topic, or a weather source's extra channel;
   * the alarm settings apply to the zones it meters.
   */
  const flowMeterSchema = z
    .strictObject({
      kind: z.enum(FLOW_METER_KINDS),
      name: deviceName,
      /** ha_sensor: the entity whose state is the reading. */
      entity_id: z
        .string()
        .regex(/^sensor\.[a-z0-9_]+$/, 'expected a sensor entity id such as "sensor.irrigation_flow"')
        .nullish(),
      /** mqtt: the topic that carries the reading (on the notifications.mqtt broker, or the add-on's). */
      topic: z
        .string()
        .min(1)
        .regex(/^[^+#]+$/, 'a topic without the wildcards + and #')
        .nullish(),
      /** mqtt: a JSON payload's key holding the value; absent = the payload is the number. */
      value_key: z.string().min(1).nullish(),
      /** source: a weather source id and the key of its extra channel (`source:<id>:<key>`). */
      source_id: z.string().min(1).nullish(),
      key: z.string().min(1).nullish(),
      /** `rate` (volume per time) or `total` (a cumulative counter). */
      reading: z.enum(['rate', 'total']).default('rate'),
      /** Absent: an HA sensor's own unit_of_measurement, else gal/min for a rate and gal for a total. */
      unit: z.enum([...FLOW_RATE_UNITS, ...FLOW_TOTAL_UNITS]).nullish(),
      /** Alarm when the flow is above the zone's learnt baseline times this (a leak, a broken head). */
      high_factor: z.number().gt(1).max(10).default(1.3),
      /** Alarm when it is below the baseline times this (a clog, low pressure). */
      low_factor: z.number().gt(0).lt(1).default(0.7),
      /** Stop the zone when the flow is above the baseline times this; null never stops. */
      leak_stop_factor: z.number().gt(1).max(20).nullable().default(2),
      /** At or below this (US gal/min) with the valve open is no flow: the valve did not open. */
      no_flow_gpm: z.number().min(0).max(10).default(0.1),
      /** Seconds after a valve opens before its flow is judged (pipes fill, pressure settles). */
      settle_s: z.number().int().min(0).max(1800).default(60),
      /** How many of the zone's last metered runs its baseline is learnt from (the median). */
      baseline_runs: z.number().int().min(3).max(50).default(5),
    })
    .superRefine((meter, issues) => {
      const need: Record<string, string[]> = {
        ha_sensor: ['entity_id'],
        mqtt: ['topic'],
        source: ['source_id', 'key'],
        controller: [],
      };
      for (const field of need[meter.kind] ?? []) {
        if (meter[field as keyof typeof meter] == null) {
          issues.addIssue({
            code: 'custom',
            path: [field],
            message: `a ${meter.kind} flow meter needs ${field}`,
          });
        }
      }
      const units: readonly string[] = meter.reading === 'total' ? FLOW_TOTAL_UNITS : FLOW_RATE_UNITS;
      if (meter.unit != null && !units.includes(meter.unit)) {
        issues.addIssue({
          code: 'custom',
          path: ['unit'],
          message: `a ${meter.reading} reading is in ${units.join(', ')}`,
        });
      }
    });

  const controllerSchema = z.strictObject({
    id,
    name: deviceName,
    default: z.boolean().default(false),
    enabled: z.boolean().default(true),
    kind: kindName,
    config: kindConfig,
    flow_meter: flowMeterSchema.nullish(),
  });

  const zoneSchema = z.strictObject({
    display_name: optionalText,
    area_sqft: z.number().positive().max(10_000_000).nullish(),
    species: z.enum(SPECIES).nullish(),
    soil_texture: z.enum(SOIL_TEXTURES).nullish(),
    slope_pct: z.number().min(0).max(100).nullish(),
    sun_exposure: z.enum(SUN_EXPOSURES).nullish(),
    sprinkler_type: z.enum(SPRINKLER_TYPES).nullish(),
    precip_rate_mm_hr: z.number().positive().max(500).nullish().describe('null = catalog default'),
    precip_rate_source: z.enum(['measured', 'catalog']).nullish(),
    root_depth_mm: z.number().positive().max(3000).nullish().describe('null = species default'),
    mad_pct_override: z.number().min(1).max(100).nullish().describe('null = species default'),
    controller_id: z.string().nullish(),
    controller_station: z.string().nullish(),
    controller_zone_name: optionalText,
    soil_sensor_id: z.string().nullish(),
    target_min_pct_soil: z.number().min(0).max(100).nullish(),
    saturation_pct_soil: z.number().min(0).max(100).nullish(),
    photo_url: z.string().nullish(),
    max_run_minutes: z.number().int().min(5).max(360).nullish().describe('whole minutes; null = 60'),
    sessions_per_week: z.number().int().min(1).max(7).nullish(),
    weekly_budget_in: z.number().min(0).max(20).nullish(),
    rain_credit_cap_in: z.number().min(0.05).max(5.0).nullish().describe('null = derived from soil'),
    scheduling_model: z.enum(SCHEDULING_MODELS).nullish().describe('null = engine default'),
    /** A meter of this zone alone; wins over its controller's. */
    flow_meter: flowMeterSchema.nullish(),
    /** This zone's own run window, overriding `[deployment.run_window]` (config/run-window-config.ts). */
    run_window: runWindowSchema.nullish(),
  });

  // Spec 2.6 `llm`: the provider fields sit on the block itself (`llm.base_url`, `llm.model`, `llm.api_key`).
  const llmSchema = z
    .strictObject({
      provider: z.enum(LLM_PROVIDERS).default('auto'),
      base_url: z.string().nullish(),
      model: z.string().nullish(),
      api_key: z.string().nullish(),
      probe_order: z
        .array(z.string())
        .nullish()
        .describe('auto: ports or base URLs; default 11434, 8080, 1234'),
      timeout_s: z.number().positive().max(600).default(20),
      explanation_ttl_s: z.number().int().min(0).default(300),
      anomaly_ttl_s: z.number().int().min(0).default(3600),
    })
    .superRefine((llm, ctx) => {
      const needs =
        llm.provider === 'auto' ? [] : llm.provider === 'llamacpp' ? ['base_url'] : ['base_url', 'model'];
      for (const field of needs) {
        const value = llm[field as 'base_url' | 'model'];
        if (typeof value !== 'string' || value.trim() === '') {
          ctx.addIssue({ code: 'custom', path: [field], message: `provider ${llm.provider} needs ${field}` });
        }
      }
    });

  const port = z.number().int().min(1).max(65535);

  const notificationsSchema = z.strictObject({
    web_push: z
      .strictObject({
        vapid_public: z.string().nullish(),
        vapid_private_path: z.string().nullish(),
        vapid_subject: z.string().nullish(),
      })
      .optional(),
    mqtt: z
      .strictObject({
        host: z.string().min(1),
        port: port.default(1883),
        username: z.string().nullish(),
        password: z.string().nullish(),
        discovery_prefix: z.string().min(1).default('homeassistant'),
        publish_enabled: z.boolean().default(true),
        subscribe_enabled: z.boolean().default(false),
      })
      .optional(),
    ntfy: z
      .strictObject({
        base_url: z.string().min(1),
        topic: z.string().min(1),
        auth_token: z.string().nullish(),
      })
      .optional(),
    slack: z.strictObject({ webhook_url: z.string().min(1) }).optional(),
    email: z
      .strictObject({
        smtp_host: z.string().min(1),
        smtp_port: port.default(587),
        username: z.string().nullish(),
        password: z.string().nullish(),
        from_address: z.string().min(3),
        to_address: z.string().min(3),
        starttls: z.boolean().default(true),
      })
      .optional(),
  });

  /** The three thresholds also settable by action carry the action's server-enforced ranges (4.4). */
  const skipRulesSchema = z.strictObject({
    already_wet_in: z.number().min(0).max(10).default(0.05),
    rain_now_in_hr: z.number().min(0).max(10).default(0.01),
    rain_next_4h_skip_in: z.number().min(0).max(10).default(0.1),
    rain_3day_factor: z.number().min(0).max(10).default(1.5),
    heat_advisory_temp_f: z.number().min(50).max(140).default(95.0),
    heat_advisory_humidity_pct: z.number().min(0).max(100).default(60.0),
    heat_advisory_dry_days: z.number().int().min(0).max(30).default(2),
    wind_forecast_slack_mph: z.number().min(0).max(50).default(5.0),
    max_wind_mph: z.number().min(0).max(50).default(10.0),
    min_temp_f: z.number().min(20).max(70).default(38.0),
    rain_skip_in: z.number().min(0).max(10).default(0.25),
    frost_skip_soil_f: z.number().min(-20).max(70).default(35.0),
  });

  const weekday = z.number().int().min(0).max(6);

  /** Watering restrictions from the water utility (Sun=0); both rules apply together. */
  const restrictionsSchema = z.strictObject({
    allowed_weekdays: z.array(weekday).nullish(),
    address_parity: z
      .strictObject({
        house_number: z.number().int().min(0),
        odd_weekdays: z.array(weekday).min(1),
        even_weekdays: z.array(weekday).min(1),
      })
      .nullish(),
  });

  const restrictionRuleSchema = restrictionRuleShape(z);
  const scheduleSchema = scheduleShape(z);
  const masterSchema = masterShape(z);

  const engineSchema = z.strictObject({
    capture_efficiency: z.number().gt(0).max(1).default(0.7),
    session_rain_defer_in: z.number().min(0).max(10).default(0.1),
    soak_minutes: z.number().int().min(0).max(240).default(30),
    et0_method: z.enum(ET0_METHODS).default('auto'),
    /** Omitted while unset: the shipped default (soil) applies. */
    scheduling_model: z.enum(SCHEDULING_MODELS).optional(),
    skip_rules: skipRulesSchema.default(skipRulesSchema.parse({})),
    /** Per-field source pins: snapshot field name -> source id. */
    overrides: z.record(z.string(), z.string()).default({}),
    /** Per-field ordered source chains: snapshot field name -> [source id, ...]. */
    field_source_chains: z.record(z.string(), z.array(z.string())).default({}),
    /** The saved forecast provider pin (a source id), null = automatic. */
    forecast_provider: z.string().nullish(),
    /** Legacy weekday rules (before `[[restrictions]]`); still read, moved to `restrictions` on the next save. */
    restrictions: restrictionsSchema.nullish(),
    /** Days of sensor readings kept for /weather/history and /weather/readings. */
    history_retention_days: z.number().int().min(1).max(3650).default(90),
    /** A bound soil probe with no reading for this long is offline (irrigation/soil/probe-evidence.ts). */
    soil_probe_offline_minutes: z.number().int().min(10).max(10080).default(180),
  });

  const cidr = z.string().refine(isCidr, 'expected a CIDR such as 192.168.1.0/24 or fd00::/8');
  const hostName = z
    .string()
    .regex(
      HOST_NAME_PATTERN,
      'expected a host name such as raincheck.example.com, or *.example.com for its subdomains',
    );

  const authSchema = z.strictObject({
    mode: z.enum(AUTH_MODES).default('disabled'),
    session_ttl_days: z.number().int().min(1).max(3650).default(30),
    trusted_networks: z.array(cidr).default([]),
    trusted_proxies: z.array(cidr).default([]),
    proxy_auth_header: z.string().min(1).nullish(),
    proxy_auth_allow: z.array(z.string()).default([]),
    /** Host names browsers reach this install by, beyond IP addresses, localhost and its own name (docs/auth.md). */
    allowed_hosts: z.array(hostName).default([]),
  });

  const configSchema = z.strictObject({
    schema_version: z.number().int().min(1).max(CURRENT_SCHEMA_VERSION),
    deployment: deploymentSchema,
    features: featuresSchema.default(featuresSchema.parse({})),
    sources: z.array(sourceSchema).default([]),
    controllers: z.array(controllerSchema).default([]),
    zones: z.record(z.string().regex(ZONE_SLUG_PATTERN), zoneSchema).default({}),
    llm: llmSchema.optional(),
    notifications: notificationsSchema.default({}),
    engine: engineSchema.default(engineSchema.parse({})),
    /** The water utility's rules (config/restriction-rule.ts): all of them apply to every run. */
    restrictions: z.array(restrictionRuleSchema).default([]),
    /** Fixed schedules beside the smart one (config/schedule-config.ts). */
    schedules: z.array(scheduleSchema).default([]),
    /** Master valves and pumps (config/master-config.ts). */
    masters: z.array(masterSchema).default([]),
    auth: authSchema.default(authSchema.parse({})),
    updates: updatesSchema.optional(),
  });

  return {
    flowMeterSchema,
    locationSchema,
    deploymentSchema,
    featuresSchema,
    updatesSchema,
    sourceSchema,
    controllerSchema,
    zoneSchema,
    llmSchema,
    notificationsSchema,
    skipRulesSchema,
    restrictionsSchema,
    restrictionRuleSchema,
    runWindowSchema,
    scheduleSchema,
    masterSchema,
    engineSchema,
    authSchema,
    configSchema,
  };
}

const schemas = once(() => buildSchemas(zod()));

export const flowMeterSchema = lazySchema(() => schemas().flowMeterSchema);
export const locationSchema = lazySchema(() => schemas().locationSchema);
export const deploymentSchema = lazySchema(() => schemas().deploymentSchema);
export const featuresSchema = lazySchema(() => schemas().featuresSchema);
export const updatesSchema = lazySchema(() => schemas().updatesSchema);
export const sourceSchema = lazySchema(() => schemas().sourceSchema);
export const controllerSchema = lazySchema(() => schemas().controllerSchema);
export const zoneSchema = lazySchema(() => schemas().zoneSchema);
export const llmSchema = lazySchema(() => schemas().llmSchema);
export const notificationsSchema = lazySchema(() => schemas().notificationsSchema);
export const skipRulesSchema = lazySchema(() => schemas().skipRulesSchema);
export const restrictionsSchema = lazySchema(() => schemas().restrictionsSchema);
export const restrictionRuleSchema = lazySchema(() => schemas().restrictionRuleSchema);
export const runWindowSchema = lazySchema(() => schemas().runWindowSchema);
export const scheduleSchema = lazySchema(() => schemas().scheduleSchema);
export const masterSchema = lazySchema(() => schemas().masterSchema);
export const engineSchema = lazySchema(() => schemas().engineSchema);
export const authSchema = lazySchema(() => schemas().authSchema);
export const configSchema = lazySchema(() => schemas().configSchema);

/** The parsed, defaults-filled config the runtime reads. */
export type RaincheckConfig = z.output<typeof configSchema>;
export type ZoneConfig = z.output<typeof zoneSchema>;
export type SourceEntry = z.output<typeof sourceSchema>;
export type ControllerEntry = z.output<typeof controllerSchema>;
export type RestrictionRule = z.output<typeof restrictionRuleSchema>;
export type RunWindowConfig = z.output<typeof runWindowSchema>;
export type ScheduleConfig = z.output<typeof scheduleSchema>;
export type MasterConfig = z.output<typeof masterSchema>;
export type FlowMeterConfig = z.output<typeof flowMeterSchema>;

/** A DNS name (labels of letters, digits and inner hyphens), optionally `*.` for every subdomain. */
const HOST_NAME_PATTERN =
  /^(\*\.)?[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

function isCidr(value: string): boolean {
  const [address, prefix, extra] = value.split('/');
  if (!address || extra !== undefined) return false;
  const family = isIP(address);
  if (family === 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}
