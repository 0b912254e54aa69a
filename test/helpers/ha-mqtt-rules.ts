/**
 * Home Assistant's MQTT discovery rules for the platforms Raincheck publishes,
 * written from HA core's source (home-assistant/core, read 2026-11):
 *
 * - homeassistant/components/mqtt/config.py: MQTT_BASE_SCHEMA (qos, encoding,
 *   group), MQTT_RO_SCHEMA (state_topic required), MQTT_RW_SCHEMA
 *   (command_topic required, state_topic, optimistic, retain).
 * - mqtt/schemas.py: MQTT_ENTITY_COMMON_SCHEMA (availability, device, origin,
 *   enabled_by_default, entity_category, icon, json attributes, object_id,
 *   unique_id; default_entity_id since HA 2025.10) and the device rule "at
 *   least one identifying value in identifiers and/or connections".
 * - mqtt/abbreviations.py: origin `sw` = sw_version, `url` = support_url.
 * - mqtt/sensor.py, switch.py, select.py, number.py, button.py, valve.py,
 *   datetime.py: each platform's DISCOVERY_SCHEMA, built with
 *   `extra=vol.REMOVE_EXTRA`: a key the platform does not know is dropped
 *   without a word (a sensor's command_topic), so here it is an error.
 * - mqtt/sensor.py validate_sensor_state_and_device_class_config: `options`
 *   only with device class enum, never with a state class or unit; a unit
 *   must be one DEVICE_CLASS_UNITS allows for the device class.
 * - sensor/const.py: DEVICE_CLASS_UNITS, DEVICE_CLASS_STATE_CLASSES,
 *   STATE_CLASS_UNITS (measurement_angle only in °), NON_NUMERIC_DEVICE_CLASSES
 *   (timestamp, date, enum: no unit, no state class).
 * - How states are read (each platform's state handler): `None`
 *   (PAYLOAD_NONE in mqtt/const.py) is unknown; an empty payload is ignored
 *   (the old state stays); a timestamp or datetime needs an ISO time with its
 *   offset, a numeric sensor or number a number, an enum or select one of
 *   its options, a switch state_on/state_off, a valve state_open/state_closed.
 *
 * Only what Raincheck uses is modelled; units are HA's spellings.
 */

export type Issue = string;

type Check = (value: unknown) => string | null;

const isString: Check = (v) => (typeof v === 'string' ? null : 'must be a string');
const isBool: Check = (v) => (typeof v === 'boolean' ? null : 'must be a boolean');
const isNumber: Check = (v) => (typeof v === 'number' && Number.isFinite(v) ? null : 'must be a number');
const orNull =
  (check: Check): Check =>
  (v) =>
    v === null ? null : check(v);
const oneOf =
  (values: readonly string[]): Check =>
  (v) =>
    typeof v === 'string' && values.includes(v) ? null : `must be one of ${values.join(', ')}`;
const positiveInt: Check = (v) =>
  Number.isInteger(v) && (v as number) >= 0 ? null : 'must be a non-negative integer';
const icon: Check = (v) =>
  typeof v === 'string' && /^[a-z0-9_-]+:[a-z0-9-]+$/.test(v) ? null : 'must be an icon like mdi:name';

/** HA's valid_subscribe_topic: non-empty, no NUL, `+` a whole level, `#` only last. */
export const subscribeTopic: Check = (v) => {
  if (typeof v !== 'string' || v === '' || v.includes('\0')) return 'must be a topic';
  const levels = v.split('/');
  for (const [i, level] of levels.entries()) {
    if (level.includes('+') && level !== '+') return 'has a partial + wildcard';
    if (level.includes('#') && (level !== '#' || i !== levels.length - 1)) return 'has a misplaced #';
  }
  return null;
};
/** HA's valid_publish_topic: a subscribe topic without wildcards. */
export const publishTopic: Check = (v) =>
  subscribeTopic(v) ?? (/[+#]/.test(v as string) ? 'a publish topic has no wildcards' : null);

const availability: Check = (v) => {
  if (!Array.isArray(v) || v.length === 0) return 'must be a list of {topic, ...}';
  for (const entry of v as Record<string, unknown>[]) {
    const problem =
      subscribeTopic(entry.topic) ??
      (entry.payload_available === undefined ? null : isString(entry.payload_available)) ??
      (entry.payload_not_available === undefined ? null : isString(entry.payload_not_available));
    if (problem) return `availability: ${problem}`;
  }
  return null;
};

const DEVICE_KEYS: Record<string, Check> = {
  identifiers: (v) => (Array.isArray(v) && v.every((x) => typeof x === 'string') ? null : 'strings'),
  connections: (v) => (Array.isArray(v) ? null : 'pairs'),
  manufacturer: isString,
  model: isString,
  model_id: isString,
  name: isString,
  hw_version: isString,
  serial_number: isString,
  sw_version: isString,
  via_device: isString,
  suggested_area: isString,
  configuration_url: isString,
};

const device: Check = (v) => {
  if (typeof v !== 'object' || v === null) return 'must be an object';
  const d = v as Record<string, unknown>;
  const unknown = Object.keys(d).filter((k) => !(k in DEVICE_KEYS));
  if (unknown.length > 0) return `unknown device keys ${unknown.join(', ')}`;
  for (const [key, value] of Object.entries(d)) {
    const problem = DEVICE_KEYS[key]?.(value);
    if (problem) return `device.${key} ${problem}`;
  }
  const ids = (d.identifiers as unknown[] | undefined) ?? [];
  const connections = (d.connections as unknown[] | undefined) ?? [];
  return ids.length + connections.length > 0 ? null : 'device needs identifiers or connections';
};

const ORIGIN_ABBREVIATIONS: Record<string, string> = { sw: 'sw_version', url: 'support_url' };
const origin: Check = (v) => {
  if (typeof v !== 'object' || v === null) return 'must be an object';
  const o = Object.fromEntries(
    Object.entries(v as Record<string, unknown>).map(([k, x]) => [ORIGIN_ABBREVIATIONS[k] ?? k, x]),
  );
  const unknown = Object.keys(o).filter((k) => !['name', 'sw_version', 'support_url'].includes(k));
  if (unknown.length > 0) return `unknown origin keys ${unknown.join(', ')}`;
  return typeof o.name === 'string' ? null : 'origin.name is required';
};

const BASE: Record<string, Check> = {
  qos: (v) => ([0, 1, 2].includes(v as number) ? null : 'must be 0, 1 or 2'),
  encoding: isString,
  group: (v) => (Array.isArray(v) ? null : 'must be a list'),
};

const COMMON: Record<string, Check> = {
  availability,
  availability_topic: subscribeTopic,
  availability_mode: oneOf(['all', 'any', 'latest']),
  payload_available: isString,
  payload_not_available: isString,
  device,
  origin,
  enabled_by_default: isBool,
  entity_category: oneOf(['config', 'diagnostic']),
  icon,
  json_attributes_topic: subscribeTopic,
  json_attributes_template: isString,
  object_id: isString,
  default_entity_id: isString,
  unique_id: isString,
  name: orNull(isString),
};

const RO: Record<string, Check> = { state_topic: subscribeTopic, value_template: isString };
const RW: Record<string, Check> = {
  command_topic: publishTopic,
  optimistic: isBool,
  retain: isBool,
  state_topic: subscribeTopic,
};

// sensor/const.py SensorDeviceClass (those a weather and irrigation service can use, plus the
// non-numeric ones) with DEVICE_CLASS_UNITS and DEVICE_CLASS_STATE_CLASSES.
const ALL_STATE_CLASSES = ['measurement', 'measurement_angle', 'total', 'total_increasing'];
const SENSOR_CLASSES: Record<string, { units: (string | null)[]; stateClasses: string[] }> = {
  atmospheric_pressure: {
    units: ['cbar', 'bar', 'hPa', 'mmHg', 'inHg', 'inH₂O', 'kPa', 'mbar', 'Pa', 'psi'],
    stateClasses: ['measurement'],
  },
  battery: { units: ['%'], stateClasses: ['measurement'] },
  distance: {
    units: ['km', 'm', 'cm', 'mm', 'mi', 'nmi', 'yd', 'in', 'ft'],
    stateClasses: ALL_STATE_CLASSES.filter((c) => c !== 'measurement_angle'),
  },
  duration: {
    units: ['d', 'h', 'min', 's', 'ms', 'μs'],
    stateClasses: ALL_STATE_CLASSES.filter((c) => c !== 'measurement_angle'),
  },
  humidity: { units: ['%'], stateClasses: ['measurement'] },
  illuminance: { units: ['lx'], stateClasses: ['measurement'] },
  irradiance: { units: ['W/m²', 'BTU/(h⋅ft²)'], stateClasses: ['measurement'] },
  moisture: { units: ['%'], stateClasses: ['measurement'] },
  precipitation: {
    units: ['cm', 'in', 'mm'],
    stateClasses: ALL_STATE_CLASSES.filter((c) => c !== 'measurement_angle'),
  },
  precipitation_intensity: { units: ['in/d', 'in/h', 'mm/d', 'mm/h'], stateClasses: ['measurement'] },
  temperature: { units: ['°C', '°F', 'K'], stateClasses: ['measurement'] },
  voltage: { units: ['V', 'mV', 'µV', 'kV', 'MV'], stateClasses: ['measurement'] },
  volume_flow_rate: {
    units: ['m³/h', 'm³/min', 'm³/s', 'ft³/min', 'L/h', 'L/min', 'L/s', 'gal/h', 'gal/min', 'mL/s'],
    stateClasses: ['measurement'],
  },
  water: {
    units: ['CCF', 'ft³', 'm³', 'gal', 'L'],
    stateClasses: ['total', 'total_increasing'],
  },
  wind_direction: { units: ['°'], stateClasses: ['measurement_angle'] },
  wind_speed: {
    units: ['Beaufort', 'ft/s', 'km/h', 'kn', 'm/s', 'mph', 'mm/s'],
    stateClasses: ['measurement'],
  },
};
const NON_NUMERIC_CLASSES = ['timestamp', 'date', 'enum'];
const STATE_CLASS_UNITS: Record<string, string[]> = { measurement_angle: ['°'] };

// number/const.py NumberDeviceClass mirrors the numeric sensor classes (same units).
const NUMBER_CLASSES = Object.keys(SENSOR_CLASSES);

interface PlatformRules {
  keys: Record<string, Check>;
  required: string[];
  /** Checks across fields (the platform's validate_* functions). */
  cross?: (c: Record<string, unknown>) => Issue[];
}

const PLATFORMS: Record<string, PlatformRules> = {
  sensor: {
    keys: {
      ...BASE,
      ...RO,
      ...COMMON,
      device_class: orNull(oneOf([...Object.keys(SENSOR_CLASSES), ...NON_NUMERIC_CLASSES])),
      expire_after: positiveInt,
      force_update: isBool,
      last_reset_value_template: isString,
      options: (v) => (Array.isArray(v) ? null : 'must be a list'),
      suggested_display_precision: positiveInt,
      state_class: orNull(oneOf(ALL_STATE_CLASSES)),
      unit_of_measurement: orNull(isString),
    },
    required: ['state_topic'],
    cross: sensorRules,
  },
  switch: {
    keys: {
      ...BASE,
      ...RW,
      ...COMMON,
      command_template: isString,
      device_class: orNull(oneOf(['outlet', 'switch'])),
      payload_on: isString,
      payload_off: isString,
      state_on: isString,
      state_off: isString,
      value_template: isString,
    },
    required: ['command_topic'],
  },
  select: {
    keys: {
      ...BASE,
      ...RW,
      ...COMMON,
      command_template: isString,
      options: (v) =>
        Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string')
          ? null
          : 'must be a non-empty list of strings',
      value_template: isString,
    },
    required: ['command_topic', 'options'],
  },
  number: {
    keys: {
      ...BASE,
      ...RW,
      ...COMMON,
      command_template: isString,
      device_class: orNull(oneOf(NUMBER_CLASSES)),
      min: isNumber,
      max: isNumber,
      step: (v) => (typeof v === 'number' && v >= 0.001 ? null : 'must be at least 0.001'),
      mode: oneOf(['auto', 'box', 'slider']),
      payload_reset: isString,
      unit_of_measurement: orNull(isString),
      value_template: isString,
    },
    required: ['command_topic'],
    cross: (c) => {
      const issues: Issue[] = [];
      if ((c.min ?? 1) >= (c.max ?? 100)) issues.push('max must be above min');
      issues.push(...unitRule(c));
      return issues;
    },
  },
  button: {
    keys: {
      ...BASE,
      ...COMMON,
      command_topic: publishTopic,
      command_template: isString,
      device_class: orNull(oneOf(['identify', 'restart', 'update'])),
      payload_press: isString,
      retain: isBool,
    },
    required: ['command_topic'],
  },
  valve: {
    keys: {
      ...BASE,
      ...COMMON,
      command_topic: publishTopic,
      command_template: isString,
      device_class: orNull(oneOf(['water', 'gas'])),
      optimistic: isBool,
      payload_close: orNull(isString),
      payload_open: orNull(isString),
      payload_stop: orNull(isString),
      position_closed: (v) => (Number.isInteger(v) ? null : 'must be an integer'),
      position_open: (v) => (Number.isInteger(v) ? null : 'must be an integer'),
      reports_position: isBool,
      retain: isBool,
      state_closed: isString,
      state_closing: isString,
      state_open: isString,
      state_opening: isString,
      state_topic: subscribeTopic,
      value_template: isString,
    },
    required: [],
    cross: (c) =>
      c.reports_position === true &&
      ['payload_open', 'payload_close', 'state_open', 'state_closed'].some((k) => k in c)
        ? ['payload_open/close and state_open/closed are not allowed when the valve reports a position']
        : [],
  },
  datetime: {
    keys: {
      ...BASE,
      ...RW,
      ...COMMON,
      command_template: isString,
      timezone: isString,
      value_template: isString,
    },
    required: ['command_topic'],
  },
};

export const PLATFORMS_MODELLED = Object.keys(PLATFORMS);

function unitRule(c: Record<string, unknown>): Issue[] {
  const dc = c.device_class as string | undefined;
  const unit = c.unit_of_measurement as string | undefined;
  if (!dc || unit === undefined || unit === null) return [];
  const allowed = SENSOR_CLASSES[dc]?.units;
  return allowed && !allowed.includes(unit)
    ? [`unit ${unit} is not valid together with device class ${dc}`]
    : [];
}

function sensorRules(c: Record<string, unknown>): Issue[] {
  const issues: Issue[] = [];
  const dc = c.device_class as string | undefined;
  const sc = c.state_class as string | undefined;
  if (c.options !== undefined) {
    if ((c.options as unknown[]).length === 0) issues.push('an empty options list is not allowed');
    if (sc || c.unit_of_measurement) issues.push('options are not allowed with state_class or unit');
    if (dc !== 'enum') issues.push('options need device class enum');
  }
  if (dc && NON_NUMERIC_CLASSES.includes(dc)) {
    if (c.unit_of_measurement || sc || c.suggested_display_precision !== undefined)
      issues.push(`device class ${dc} is not numeric: no unit, state class or display precision`);
  }
  issues.push(...unitRule(c));
  if (dc && sc && SENSOR_CLASSES[dc] && !SENSOR_CLASSES[dc].stateClasses.includes(sc))
    issues.push(`state class ${sc} is impossible for device class ${dc}`);
  const unitsForClass = sc ? STATE_CLASS_UNITS[sc] : undefined;
  if (unitsForClass && !unitsForClass.includes(c.unit_of_measurement as string))
    issues.push(`state class ${sc} needs unit ${unitsForClass.join(' or ')}`);
  return issues;
}

/** Every rule the discovery config of `platform` breaks; [] when HA accepts it whole. */
export function discoveryIssues(platform: string, config: Record<string, unknown>): Issue[] {
  const rules = PLATFORMS[platform];
  if (!rules) return [`platform ${platform} is not modelled`];
  const issues: Issue[] = [];
  for (const key of rules.required) if (!(key in config)) issues.push(`${key} is required`);
  for (const [key, value] of Object.entries(config)) {
    const check = rules.keys[key];
    if (!check) {
      issues.push(`${key} is not a ${platform} option: HA drops it silently`);
      continue;
    }
    const problem = check(value);
    if (problem) issues.push(`${key} ${problem}`);
  }
  if ('availability' in config && 'availability_topic' in config)
    issues.push('availability and availability_topic are exclusive');
  if (typeof config.default_entity_id === 'string' && !config.default_entity_id.startsWith(`${platform}.`))
    issues.push(`default_entity_id must be in the ${platform} domain`);
  issues.push(...(rules.cross?.(config) ?? []));
  return issues;
}

export type StateReading =
  { kind: 'value' } | { kind: 'unknown' } | { kind: 'ignored' | 'rejected'; why: string };

const ZONED_ISO = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/;

function numericSensor(c: Record<string, unknown>): boolean {
  const dc = c.device_class as string | undefined;
  if (dc && NON_NUMERIC_CLASSES.includes(dc)) return false;
  return Boolean(c.state_class || c.unit_of_measurement || c.suggested_display_precision !== undefined || dc);
}

/** How HA reads one state payload for an entity with this discovery config. */
export function readState(platform: string, c: Record<string, unknown>, payload: string): StateReading {
  if (payload === 'None') return { kind: 'unknown' };
  if (payload === '') return { kind: 'ignored', why: 'an empty state is ignored: the old state stays' };
  const rejected = (why: string): StateReading => ({ kind: 'rejected', why });
  const ok: StateReading = { kind: 'value' };
  switch (platform) {
    case 'sensor': {
      if (numericSensor(c)) return Number.isFinite(Number(payload)) ? ok : rejected('not a number');
      if (c.device_class === 'timestamp')
        return ZONED_ISO.test(payload) ? ok : rejected('not an ISO time with its offset');
      if (c.device_class === 'enum')
        return (c.options as string[]).includes(payload) ? ok : rejected('not one of the options');
      return payload.length <= 255 ? ok : rejected('longer than 255 characters');
    }
    case 'datetime':
      return ZONED_ISO.test(payload) ? ok : rejected('not an ISO time with its offset');
    case 'number':
      return Number.isFinite(Number(payload)) ? ok : rejected('not a number');
    case 'select':
      return (c.options as string[]).includes(payload) ? ok : rejected('not one of the options');
    case 'switch':
      return [c.state_on ?? c.payload_on ?? 'ON', c.state_off ?? c.payload_off ?? 'OFF'].includes(payload)
        ? ok
        : rejected('neither state_on nor state_off');
    case 'valve':
      return [c.state_open ?? 'open', c.state_closed ?? 'closed', 'opening', 'closing'].includes(payload)
        ? ok
        : rejected('not a valve state');
    default:
      return rejected(`no state for ${platform}`);
  }
}
