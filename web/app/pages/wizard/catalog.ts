/**
 * Words for the wizard's choices. The VALUES come from the service: zone
 * enums from GET /config/schema (see `zoneEnums` in model.ts) and cloud
 * weather kinds from GET /config/source_catalog. What the API does not list
 * yet is kept here, mirrored from the server's own definitions:
 * - display names of species, soils and sprinklers: the `label`s of
 *   server/src/agronomy/catalogs/*.ts (no endpoint serves the catalogs);
 * - LAN weather source kinds (server/src/weather/sources/index.ts) and
 *   controller kinds with their config fields (server/src/controllers/
 *   adapters/*.ts): GET /config/schema types `kind` as any string.
 * A value the service sends that is not described here is still offered,
 * under its raw name.
 *
 * Pure: no DOM, no preact (unit-tested).
 */

export interface Described {
  label: string;
  help: string;
}

export const SPECIES_TEXT: Record<string, Described> = {
  st_augustine: {
    label: 'St. Augustinegrass',
    help: 'Warm-season lawn grass with broad, coarse blades; common in the US South. Shallow roots, so it needs water more often.',
  },
  bermuda: {
    label: 'Bermudagrass',
    help: 'Warm-season, fine-bladed grass that loves full sun and spreads fast. Deep roots, tolerates drought well.',
  },
  zoysia: {
    label: 'Zoysiagrass',
    help: 'Warm-season, dense carpet-like grass that handles some shade. Goes brown (dormant) in cold weather.',
  },
  bahia: {
    label: 'Bahiagrass',
    help: 'Warm-season, tough low-care grass with V-shaped seed heads; deep roots, very drought tolerant.',
  },
  centipede: {
    label: 'Centipedegrass',
    help: 'Warm-season, low-growing, low-fertility grass; shallow roots.',
  },
  kentucky_bluegrass: {
    label: 'Kentucky bluegrass',
    help: 'Cool-season lawn grass of northern climates; soft, dark green. Shallow roots.',
  },
  tall_fescue: {
    label: 'Tall fescue',
    help: 'Cool-season, coarse clumping grass; deep roots make it the most drought tolerant cool-season lawn.',
  },
  perennial_ryegrass: {
    label: 'Perennial ryegrass',
    help: 'Cool-season, quick-to-establish grass, often mixed with bluegrass. Shallow roots.',
  },
  ornamental_shrubs: {
    label: 'Ornamental shrubs',
    help: 'Beds of established bushes and shrubs; they need less water than lawn.',
  },
  vegetable_garden: {
    label: 'Vegetable garden',
    help: 'Vegetables and annual flowers: thirsty while growing.',
  },
  drip_xeriscape: {
    label: 'Drip xeriscape',
    help: 'Drought-adapted plantings (succulents, natives) watered by drip: the least water.',
  },
  other: {
    label: 'Other / unknown',
    help: 'Not sure? Choose this: Raincheck uses middle-of-the-road values you can refine later.',
  },
};

export const SOIL_TEXT: Record<string, Described> = {
  sand: {
    label: 'Sand',
    help: 'Gritty, falls apart when squeezed. Drains fast and holds little water: short, frequent watering.',
  },
  loamy_sand: {
    label: 'Loamy sand',
    help: 'Mostly sand with a little silt and clay. Drains quickly, holds slightly more water than sand.',
  },
  sandy_loam: {
    label: 'Sandy loam',
    help: 'Feels gritty but holds together loosely when squeezed. Drains well, holds a moderate amount of water.',
  },
  loam: {
    label: 'Loam',
    help: 'A balanced mix of sand, silt and clay: crumbly, dark garden soil. Holds water well and drains evenly. A good guess for most lawns.',
  },
  silt_loam: {
    label: 'Silt loam',
    help: 'Smooth and floury when dry, slick when wet. Holds the most water for plants.',
  },
  clay_loam: {
    label: 'Clay loam',
    help: 'Sticky when wet, forms a ribbon when pressed between fingers. Soaks water slowly: watering runs in shorter cycles.',
  },
  clay: {
    label: 'Clay',
    help: 'Heavy, sticky soil that cracks when dry. Soaks water very slowly, so runs are split to avoid runoff.',
  },
};

export const SPRINKLER_TEXT: Record<string, Described> = {
  rotor: {
    label: 'Rotor',
    help: 'Heads that shoot one or more streams and slowly turn (click-click or gear-driven); cover large areas, about ½ inch per hour.',
  },
  spray: {
    label: 'Fixed spray',
    help: 'Pop-up heads that spray a fixed fan of water; small areas, apply water fast (about 1½ inches per hour).',
  },
  mp_rotator: {
    label: 'MP Rotator (rotary nozzle)',
    help: 'Spray-body heads with many small rotating streams; slow, even watering (about 0.4 inch per hour).',
  },
  drip: {
    label: 'Drip',
    help: 'Tubing or emitters that drip water at the roots; very efficient, little evaporation.',
  },
  bubbler: {
    label: 'Bubbler',
    help: 'Emitters that flood a small basin around a tree or shrub.',
  },
};

export const SUN_TEXT: Record<string, Described> = {
  full: { label: 'Full sun', help: 'Six hours or more of direct sun a day.' },
  partial: { label: 'Partial shade', help: 'Shaded for part of the day (about 3 to 6 hours of sun).' },
  shade: { label: 'Shade', help: 'Mostly shaded (under trees, north side); needs noticeably less water.' },
};

export const UNITS_TEXT: Record<string, Described> = {
  imperial: { label: 'US (°F, inches, mph)', help: '' },
  metric: { label: 'Metric (°C, mm, km/h)', help: '' },
};

/** A raw enum value as words when nothing describes it ("silt_loam" -> "Silt loam"). */
export function humanize(value: string): string {
  const words = value.replace(/_/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function describe(table: Record<string, Described>, value: string): Described {
  return table[value] ?? { label: humanize(value), help: '' };
}

// ---------------------------------------------------------------------------
// Kinds and their config fields
// ---------------------------------------------------------------------------

export type FieldType = 'text' | 'password' | 'number' | 'url' | 'checkbox' | 'select';

export interface KindField {
  /** Key in the entry's `config`; a dotted key is nested (`run.url`). */
  key: string;
  label: string;
  type: FieldType;
  required?: boolean;
  /** A secret: redacted on read; an empty input keeps the stored value. */
  secret?: boolean;
  /** The value sent is the MD5 hex digest of what was typed (OpenSprinkler's password_md5). */
  md5?: boolean;
  placeholder?: string;
  help?: string;
  options?: string[];
  /** Shown (and sent) when nothing was typed and the entry had no value. */
  initial?: string;
  /** What the service uses when the field is left empty (display only). */
  fallback?: string;
  min?: number;
  max?: number;
}

export interface ControllerKindInfo {
  kind: string;
  label: string;
  help: string;
  fields: KindField[];
  /** The service can probe it (test_controller). */
  testable: boolean;
  /** The service can list its zones (scan_zones). */
  scannable: boolean;
  station: { label: string; help: string; pattern?: RegExp; example?: string };
  /** mqtt_command binds zones through `zone_command_map[slug].command_topic`, not `controller_station`. */
  stationInTopicMap?: boolean;
}

const HOST_HELP = 'The address you open in a browser to reach it, e.g. 192.168.1.40 or sprinkler.local.';

/** Drivable controller kinds of this build, dry run first (server/src/controllers/index.ts). */
export const CONTROLLER_KINDS: ControllerKindInfo[] = [
  {
    kind: 'dry_run',
    label: 'Dry run (no hardware)',
    help: 'No hardware: Raincheck records pretend runs so you can watch its decisions before it drives real valves. Change it later in Settings.',
    fields: [],
    testable: true,
    scannable: true,
    station: { label: 'Station', help: 'Not needed for a dry run.' },
  },
  {
    kind: 'opensprinkler',
    label: 'OpenSprinkler (direct HTTP)',
    help: 'An OpenSprinkler controller on your network, driven over its local HTTP API.',
    fields: [
      {
        key: 'host',
        label: 'Host',
        type: 'text',
        required: true,
        placeholder: 'e.g. 192.168.1.40',
        help: HOST_HELP,
      },
      {
        key: 'port',
        label: 'Port',
        type: 'number',
        min: 1,
        max: 65535,
        placeholder: '80 (default)',
        fallback: '80',
      },
      {
        key: 'password_md5',
        label: 'Device password',
        type: 'password',
        required: true,
        secret: true,
        md5: true,
        help: 'The password you use in the OpenSprinkler app (default "opendoor"). Only its MD5 hash is stored, as the device expects.',
      },
    ],
    testable: true,
    scannable: true,
    station: {
      label: 'Station',
      help: 'The station number on the controller, starting at 1.',
      pattern: /^[1-9][0-9]*$/,
      example: '1',
    },
  },
  {
    kind: 'rachio',
    label: 'Rachio (cloud)',
    help: 'A Rachio controller through the Rachio cloud API.',
    fields: [
      {
        key: 'api_key',
        label: 'API key',
        type: 'password',
        required: true,
        secret: true,
        help: 'In the Rachio app: Account settings → Get API key.',
      },
      {
        key: 'device_id',
        label: 'Device id',
        type: 'text',
        help: 'Leave empty to use the first controller of the account.',
      },
    ],
    testable: true,
    scannable: true,
    station: { label: 'Station', help: 'The Rachio zone id (Scan zones fills it in).' },
  },
  {
    kind: 'esphome_native',
    label: 'ESPHome (web_server REST)',
    help: 'An ESPHome board with the web_server component, switched over its REST API.',
    fields: [
      {
        key: 'base_url',
        label: 'Base URL',
        type: 'url',
        required: true,
        placeholder: 'e.g. http://sprinkler.local',
      },
      { key: 'username', label: 'Web server user', type: 'text', help: 'Only if web_server has auth.' },
      { key: 'password', label: 'Web server password', type: 'password', secret: true },
    ],
    testable: true,
    scannable: false,
    station: {
      label: 'Station',
      help: 'The entity, e.g. switch.front_lawn or valve/Front Lawn.',
    },
  },
  {
    kind: 'ha_service_call',
    label: 'Home Assistant switch, valve or script',
    help: 'Any switch, valve or script in Home Assistant (needs the Home Assistant add-on link).',
    fields: [],
    testable: false,
    scannable: false,
    station: {
      label: 'Station',
      help: 'The entity id, e.g. switch.front_lawn or valve.front_lawn.',
      pattern: /^[a-z_]+\.[a-z0-9_]+$/,
      example: 'switch.front_lawn',
    },
  },
  {
    kind: 'http_generic',
    label: 'Generic HTTP',
    help: 'Any device that starts and stops a zone on an HTTP request. Placeholders {station}, {seconds} and {minutes} are filled in.',
    fields: [
      {
        key: 'run.url',
        label: 'Run URL',
        type: 'url',
        required: true,
        placeholder: 'e.g. http://board.local/run?zone={station}&s={seconds}',
      },
      {
        key: 'run.method',
        label: 'Run method',
        type: 'select',
        options: ['POST', 'GET', 'PUT'],
        initial: 'POST',
      },
      {
        key: 'stop.url',
        label: 'Stop URL',
        type: 'url',
        required: true,
        placeholder: 'e.g. http://board.local/stop?zone={station}',
      },
      {
        key: 'stop.method',
        label: 'Stop method',
        type: 'select',
        options: ['POST', 'GET', 'PUT'],
        initial: 'POST',
      },
      { key: 'bearer_token', label: 'Bearer token', type: 'password', secret: true, help: 'Optional.' },
    ],
    testable: true,
    scannable: false,
    station: { label: 'Station', help: 'What {station} becomes in the URLs, e.g. 1.' },
  },
  {
    kind: 'mqtt_command',
    label: 'MQTT command topics',
    help: 'Zones switched by publishing to MQTT topics (e.g. Tasmota or ESPHome relays).',
    fields: [
      {
        key: 'broker_host',
        label: 'Broker host',
        type: 'text',
        required: true,
        placeholder: 'e.g. mqtt.local',
      },
      {
        key: 'broker_port',
        label: 'Broker port',
        type: 'number',
        min: 1,
        max: 65535,
        placeholder: '1883 (default)',
        fallback: '1883',
      },
      { key: 'username', label: 'Broker user', type: 'text' },
      { key: 'password', label: 'Broker password', type: 'password', secret: true },
      { key: 'tls', label: 'Use TLS', type: 'checkbox' },
    ],
    testable: false,
    scannable: false,
    station: {
      label: 'Station',
      help: 'The command topic that switches this zone, e.g. cmnd/sprinkler/POWER1.',
      pattern: /^[^+#]+$/,
    },
    stationInTopicMap: true,
  },
];

export function controllerKindInfo(kind: string): ControllerKindInfo {
  return (
    CONTROLLER_KINDS.find((k) => k.kind === kind) ?? {
      kind,
      label: humanize(kind),
      help: 'This kind is kept as configured; edit its settings in Settings.',
      fields: [],
      testable: true,
      scannable: true,
      station: { label: 'Station', help: '' },
    }
  );
}

export interface SourceKindInfo {
  kind: string;
  label: string;
  help: string;
  fields: KindField[];
  /** Sources of this kind can serve the forecast (engine.forecast_provider). */
  forecast: boolean;
  /** Convention (spec 2.6): 100 LAN station, 50 forecast model, 10 fallback. */
  priority: number;
}

/** LAN and station kinds (server/src/weather/sources/index.ts); cloud kinds come from the API. */
export const LOCAL_SOURCE_KINDS: SourceKindInfo[] = [
  {
    kind: 'tempest_udp',
    label: 'Tempest hub (LAN UDP)',
    help: 'A Tempest weather station: its hub broadcasts readings on your network every few seconds.',
    fields: [
      {
        key: 'hub_serial',
        label: 'Hub serial',
        type: 'text',
        placeholder: 'e.g. HB-00012345',
        help: 'Leave empty to accept any hub heard on the network.',
      },
    ],
    forecast: false,
    priority: 100,
  },
  {
    kind: 'ecowitt_local',
    label: 'Ecowitt gateway (LAN polling)',
    help: 'An Ecowitt (or Ambient/Froggit) gateway polled over its local API.',
    fields: [
      {
        key: 'host',
        label: 'Gateway host',
        type: 'text',
        required: true,
        placeholder: 'e.g. 192.168.1.60',
        help: HOST_HELP,
      },
    ],
    forecast: false,
    priority: 100,
  },
  {
    kind: 'ecowitt_ingest',
    label: 'Ecowitt gateway (custom upload)',
    help: 'The gateway pushes its readings to Raincheck (Weather Services → Customized, path /ingest/gateway).',
    fields: [
      {
        key: 'passkey',
        label: 'Gateway PASSKEY',
        type: 'password',
        required: true,
        secret: true,
        help: 'Shown in the gateway app next to the station; it identifies your gateway.',
      },
    ],
    forecast: false,
    priority: 100,
  },
  {
    kind: 'tempest_ws',
    label: 'Tempest station (vendor cloud websocket)',
    help: 'A Tempest station through the vendor cloud, for when the hub is not on this network.',
    fields: [
      {
        key: 'token',
        label: 'Personal access token',
        type: 'password',
        required: true,
        secret: true,
      },
      { key: 'device_id', label: 'Device id', type: 'number', required: true, min: 1 },
    ],
    forecast: false,
    priority: 100,
  },
  {
    kind: 'mqtt_topic',
    label: 'MQTT topic (soil probe)',
    help: 'A soil moisture probe that publishes to an MQTT topic (Zigbee2MQTT, ESPHome, a DIY probe); bind it to a zone on Devices & Sensors.',
    fields: [
      {
        key: 'broker_host',
        label: 'Broker host',
        type: 'text',
        required: true,
        placeholder: 'e.g. mqtt.local',
      },
      {
        key: 'broker_port',
        label: 'Broker port',
        type: 'number',
        min: 1,
        max: 65535,
        placeholder: '1883 (default)',
        fallback: '1883',
      },
      { key: 'username', label: 'Broker user', type: 'text' },
      { key: 'password', label: 'Broker password', type: 'password', secret: true },
      { key: 'tls', label: 'Use TLS', type: 'checkbox' },
      {
        key: 'topic',
        label: 'Topic',
        type: 'text',
        required: true,
        placeholder: 'e.g. zigbee2mqtt/bed_probe',
      },
      {
        key: 'value_path',
        label: 'JSON path of the reading',
        type: 'text',
        placeholder: 'e.g. soil_moisture',
        help: 'Leave empty when the payload is the percentage itself.',
      },
      {
        key: 'battery_path',
        label: 'JSON path of the battery',
        type: 'text',
        placeholder: 'e.g. battery',
      },
      {
        key: 'channel',
        label: 'Channel name',
        type: 'text',
        placeholder: '1 (default)',
        fallback: '1',
      },
    ],
    forecast: false,
    priority: 100,
  },
];

/** An entry of GET /config/source_catalog `cloud_sources`. */
export interface CloudSourceEntry {
  kind: string;
  label: string;
  honesty_rank?: number;
  needs_api_key?: boolean;
  configured?: boolean;
  status?: string;
  note?: string | null;
}

const CLOUD_HELP: Record<string, string> = {
  nws: 'Free, United States only: the nearest official station plus the NWS forecast.',
  open_meteo: 'Free forecast model for anywhere in the world; no account needed. A good default.',
  openweather: 'Needs an OpenWeatherMap One Call 3.0 subscription key.',
};

export function cloudSourceKind(entry: CloudSourceEntry): SourceKindInfo {
  return {
    kind: entry.kind,
    label: entry.label,
    help: CLOUD_HELP[entry.kind] ?? '',
    fields: entry.needs_api_key
      ? [{ key: 'api_key', label: 'API key', type: 'password', required: true, secret: true }]
      : [],
    forecast: true,
    priority: 50,
  };
}
