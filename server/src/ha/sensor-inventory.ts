import { fieldSpec, isWeatherField } from '../weather/fields';
import type { HaState } from './ha-link';
import { compareText } from '../core/compare';

/**
 * What GET /sensors/soil and /sensors/discovered list (docs/ha.md): Home
 * Assistant entities (from get_states) and the channels the local POST
 * sources (gateway upload, webhook) have reported, each sorted into the role
 * a picker asks for. Pure: states and channels in, lists out.
 *
 * Ids: `ha:<entity_id>` for HA entities, `source:<source id>:<key>` for a
 * source's channel (`key` is a snapshot field such as `air_temp_f`, or an
 * extra-reading key such as `soil_moisture_pct:1`), the same ids a zone's
 * `soil_sensor_id` takes.
 */

export const SENSOR_ROLES = [
  'temperature',
  'humidity',
  'rain',
  'wind',
  'soil_moisture',
  'soil_temperature',
  'pressure',
  'illuminance',
  'uv',
  'valve_or_switch',
] as const;
export type SensorRole = (typeof SENSOR_ROLES)[number];

export interface DiscoveredEntity {
  id: string;
  name: string;
  unit: string | null;
  device_class: string | null;
  /** The current value as text (HA's state string); null when the source has none. */
  state: string | null;
}

export interface SoilChannel {
  id: string;
  /** The weather source's id, or `ha` for a Home Assistant entity. */
  source_id: string;
  name: string;
  /** Null when the sensor reports no number now (unavailable). */
  value_pct: number | null;
  observed_epoch: number | null;
}

/** One reported value of a local source (WeatherService.channelsOf). */
export interface LocalChannel {
  key: string;
  value: number | null;
  observed_epoch: number;
  label: string | null;
}

export interface LocalSource {
  source_id: string;
  channels: LocalChannel[];
}

/** A live extra reading of any source (WeatherService.extras: `key` is `source:<id>:<key>`). */
export interface ExtraChannel {
  key: string;
  source_id: string;
  value: number;
  observed_epoch: number;
  label: string | null;
}

export const HA_SOURCE_ID = 'ha';
const SOIL_MOISTURE_KEY = 'soil_moisture_pct';

// ---- Home Assistant entities -------------------------------------------------

const DEVICE_CLASS_ROLES: Record<string, SensorRole> = {
  temperature: 'temperature',
  humidity: 'humidity',
  moisture: 'soil_moisture',
  precipitation: 'rain',
  precipitation_intensity: 'rain',
  wind_speed: 'wind',
  wind_direction: 'wind',
  atmospheric_pressure: 'pressure',
  pressure: 'pressure',
  illuminance: 'illuminance',
  irradiance: 'illuminance',
};

const UNIT_ROLES: Record<string, SensorRole> = {
  '°C': 'temperature',
  '°F': 'temperature',
  'mm/h': 'rain',
  'in/h': 'rain',
  'km/h': 'wind',
  mph: 'wind',
  'm/s': 'wind',
  kn: 'wind',
  hPa: 'pressure',
  mbar: 'pressure',
  inHg: 'pressure',
  kPa: 'pressure',
  mmHg: 'pressure',
  lx: 'illuminance',
  'W/m²': 'illuminance',
  'UV index': 'uv',
};

function attribute(state: HaState, name: string): string | null {
  const value = (state.attributes as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' && value !== '' ? value : null;
}

/** The role of an HA entity, or null when it is not one a picker wants. */
export function haRole(state: HaState): SensorRole | null {
  const [domain] = state.entity_id.split('.');
  if (domain === 'valve' || domain === 'switch') return 'valve_or_switch';
  if (domain !== 'sensor') return null;
  const deviceClass = attribute(state, 'device_class');
  const unit = attribute(state, 'unit_of_measurement');
  const text = `${state.entity_id} ${attribute(state, 'friendly_name') ?? ''}`.toLowerCase();
  const soil = text.includes('soil');
  if (deviceClass !== null && Object.hasOwn(DEVICE_CLASS_ROLES, deviceClass)) {
    const role = DEVICE_CLASS_ROLES[deviceClass] as SensorRole;
    if (role === 'temperature' && soil) return 'soil_temperature';
    if (role === 'humidity' && soil) return 'soil_moisture';
    return role;
  }
  if (unit !== null && Object.hasOwn(UNIT_ROLES, unit)) {
    const role = UNIT_ROLES[unit] as SensorRole;
    return role === 'temperature' && soil ? 'soil_temperature' : role;
  }
  if (unit === '%') {
    if (soil || text.includes('moisture')) return 'soil_moisture';
    if (text.includes('humid')) return 'humidity';
    return null;
  }
  if ((unit === 'mm' || unit === 'in') && /rain|precip/.test(text)) return 'rain';
  if (unit === '°' && text.includes('wind')) return 'wind';
  if (unit === null && /(^|[._ ])uv([._ ]|$)|uv_index/.test(text)) return 'uv';
  return null;
}

function haEntity(state: HaState): DiscoveredEntity {
  return {
    id: `ha:${state.entity_id}`,
    name: attribute(state, 'friendly_name') ?? state.entity_id,
    unit: attribute(state, 'unit_of_measurement'),
    device_class: attribute(state, 'device_class'),
    state: typeof state.state === 'string' ? state.state : String(state.state),
  };
}

// ---- local source channels -----------------------------------------------------

/** The role of a local channel key (a snapshot field or an extra-reading key), or null. */
export function localRole(key: string): SensorRole | null {
  const base = key.split(':')[0] ?? key;
  if (isWeatherField(base)) {
    const spec = fieldSpec(base);
    switch (spec.group) {
      case 'air_temp':
        return 'temperature';
      case 'rh':
        return 'humidity';
      case 'pressure':
        return 'pressure';
      case 'wind':
        return 'wind';
      case 'rain':
        return 'rain';
      case 'solar':
        return spec.quantity === 'uv' ? 'uv' : 'illuminance';
      default:
        return null;
    }
  }
  if (base.startsWith('indoor_')) return null;
  if (base.startsWith('soil_moisture')) return 'soil_moisture';
  if (base.startsWith('soil_temp')) return 'soil_temperature';
  if (base.startsWith('rain_')) return 'rain';
  if (base.startsWith('wind_')) return 'wind';
  if (base.startsWith('pressure_')) return 'pressure';
  if (base === 'temp_f') return 'temperature';
  if (base === 'rh_pct') return 'humidity';
  return null;
}

const UNIT_SUFFIXES: [RegExp, string][] = [
  [/_in_hr$/, 'in/h'],
  [/_inhg$/, 'inHg'],
  [/_in$|_in_/, 'in'],
  [/_f$/, '°F'],
  [/_pct$/, '%'],
  [/_mph$/, 'mph'],
  [/_deg$|_dir$/, '°'],
  [/_lx$/, 'lx'],
  [/_w_m2$/, 'W/m²'],
  [/^uv_index$/, 'UV index'],
  [/_mi$/, 'mi'],
];

/** The unit of a local channel (snapshot units: F, %, in, mph, inHg, ...), from its key. */
export function localUnit(key: string): string | null {
  const base = key.split(':')[0] ?? key;
  return UNIT_SUFFIXES.find(([pattern]) => pattern.test(base))?.[1] ?? null;
}

/** The HA device class the channel would have, for clients that filter on it. */
function localDeviceClass(role: SensorRole, key: string): string | null {
  const unit = localUnit(key);
  switch (role) {
    case 'temperature':
    case 'soil_temperature':
      return 'temperature';
    case 'humidity':
      return 'humidity';
    case 'soil_moisture':
      return 'moisture';
    case 'pressure':
      return 'atmospheric_pressure';
    case 'rain':
      return unit === 'in/h' ? 'precipitation_intensity' : unit === 'in' ? 'precipitation' : null;
    case 'wind':
      return unit === 'mph' ? 'wind_speed' : unit === '°' ? 'wind_direction' : null;
    case 'illuminance':
      return unit === 'lx' ? 'illuminance' : 'irradiance';
    default:
      return null;
  }
}

// ---- the two lists ---------------------------------------------------------------

/** Every role (each present, possibly empty) with its HA entities and local channels, sorted by id. */
export function discoveredRoles(
  haStates: readonly HaState[],
  localSources: readonly LocalSource[],
): Record<SensorRole, DiscoveredEntity[]> {
  const roles = Object.fromEntries(SENSOR_ROLES.map((role) => [role, [] as DiscoveredEntity[]])) as Record<
    SensorRole,
    DiscoveredEntity[]
  >;
  for (const state of haStates) {
    const role = haRole(state);
    if (role) roles[role].push(haEntity(state));
  }
  for (const source of localSources) {
    for (const channel of source.channels) {
      const role = localRole(channel.key);
      if (!role) continue;
      roles[role].push({
        id: `source:${source.source_id}:${channel.key}`,
        name: channel.label ?? `${source.source_id} ${channel.key}`,
        unit: localUnit(channel.key),
        device_class: localDeviceClass(role, channel.key),
        state: channel.value === null ? null : String(channel.value),
      });
    }
  }
  for (const list of Object.values(roles)) list.sort((a, b) => compareText(a.id, b.id));
  return roles;
}

/** Soil-moisture channels for the zone picker: every source's soil extras and HA's moisture sensors, sorted by id. */
export function soilChannels(haStates: readonly HaState[], extras: readonly ExtraChannel[]): SoilChannel[] {
  const out: SoilChannel[] = [];
  for (const extra of extras) {
    const key = extra.key.slice(`source:${extra.source_id}:`.length);
    if ((key.split(':')[0] ?? key) !== SOIL_MOISTURE_KEY) continue;
    out.push({
      id: extra.key,
      source_id: extra.source_id,
      name: extra.label ?? key,
      value_pct: extra.value,
      observed_epoch: extra.observed_epoch,
    });
  }
  for (const state of haStates) {
    if (haRole(state) !== 'soil_moisture') continue;
    const unit = attribute(state, 'unit_of_measurement');
    const text = String(state.state).trim();
    const value = unit === null || unit === '%' ? Number(text) : Number.NaN;
    out.push({
      id: `ha:${state.entity_id}`,
      source_id: HA_SOURCE_ID,
      name: attribute(state, 'friendly_name') ?? state.entity_id,
      value_pct: text !== '' && Number.isFinite(value) ? value : null,
      observed_epoch: haObservedEpoch(state),
    });
  }
  return out.sort((a, b) => compareText(a.id, b.id));
}

/** Each soil channel with the zone bound to it through `soil_sensor_id` (null: none; first slug when several). */
export function withBoundZones(
  channels: readonly SoilChannel[],
  zones: Readonly<Record<string, { soil_sensor_id?: string | null }>>,
): (SoilChannel & { zone: string | null })[] {
  const bound = new Map<string, string>();
  for (const slug of Object.keys(zones).sort(compareText)) {
    const id = zones[slug]?.soil_sensor_id;
    if (id && !bound.has(id)) bound.set(id, slug);
  }
  return channels.map((c) => ({ ...c, zone: bound.get(c.id) ?? null }));
}

/** HA's last report of the value (`last_reported`, 2024.3+), else `last_updated`, in epoch seconds. */
function haObservedEpoch(state: HaState): number | null {
  for (const stamp of [state.last_reported, state.last_updated]) {
    const ms = typeof stamp === 'string' ? Date.parse(stamp) : Number.NaN;
    if (Number.isFinite(ms)) return Math.floor(ms / 1000);
  }
  return null;
}
