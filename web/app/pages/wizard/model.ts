import {
  CONTROLLER_KINDS,
  controllerKindInfo,
  type ControllerKindInfo,
  type KindField,
  type SourceKindInfo,
} from './catalog';
import { md5Hex } from './md5';

/**
 * The wizard's form and its mapping to and from the draft. The draft IS the
 * config document being built (spec 4.6; PUT /wizard/draft stores it, POST
 * /wizard/apply validates and writes it), so the mapping keeps everything the
 * form does not edit exactly as it came (a draft seeded from a live config
 * loses nothing), and writes only the keys the form owns. Secrets arrive as
 * `***redacted***`: an untouched secret input sends the sentinel back and the
 * service keeps the stored value.
 *
 * Pure: no DOM, no preact (unit-tested in test/web-app/wizard-model.test.ts).
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const REDACTED = '***redacted***';
export const SCHEMA_VERSION = 2;

export type StepId = 'location' | 'sources' | 'controller' | 'zones' | 'account' | 'review';

export const STEP_TITLES: Record<StepId, string> = {
  location: 'Location',
  sources: 'Weather sources',
  controller: 'Controller',
  zones: 'Zones',
  account: 'Owner account',
  review: 'Review',
};

/** The wizard's pages; the account page only while no owner account exists. */
export function wizardSteps(setupComplete: boolean): StepId[] {
  return setupComplete
    ? ['location', 'sources', 'controller', 'zones', 'review']
    : ['location', 'sources', 'controller', 'zones', 'account', 'review'];
}

export type Values = Record<string, string>;

export interface LocationForm {
  lat: string;
  lon: string;
  timezone: string;
  elevation: string;
  units: string;
}

export interface SourceChoice {
  id: string;
  kind: string;
  selected: boolean;
  values: Values;
  /** The entry as the draft held it (null: new). */
  original: JsonObject | null;
}

export interface ControllerForm {
  id: string;
  kind: string;
  values: Values;
  original: JsonObject | null;
}

export interface ZoneForm {
  /** Stable key for the UI list. */
  uid: string;
  /** The zone's key in the draft (kept: renaming a key loses its history); null for a new zone. */
  key: string | null;
  name: string;
  species: string;
  soil: string;
  sprinkler: string;
  sun: string;
  area: string;
  station: string;
  /** The controller's own name for the station (from Scan zones); a label only. */
  stationName: string;
  /**
   * The local date the zone was last soaked to field capacity (rain or a long
   * watering), '' = unknown. Not part of the config: after apply it is posted
   * as the owner's declaration (declare_soil_state), so the soil ledger starts
   * from a known state instead of waiting for evidence.
   */
  soakedOn: string;
  original: JsonObject | null;
}

export interface WizardForm {
  /** The draft as loaded; keys the form does not own are written back unchanged. */
  base: JsonObject;
  location: LocationForm;
  sources: SourceChoice[];
  /** engine.forecast_provider: a source id, '' = automatic. */
  forecastProvider: string;
  controller: ControllerForm;
  /** Controllers beyond the default one (a seeded config): kept as they are. */
  otherControllers: JsonObject[];
  zones: ZoneForm[];
}

// ---------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function objectAt(value: Json | undefined): JsonObject {
  return isObject(value) ? value : {};
}

function clone<T extends Json>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

function text(value: Json | undefined): string {
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'string') return value;
  return '';
}

/** A number typed by a person: trims, accepts a decimal comma; null when it is not a number. */
export function parseNumber(input: string): number | null {
  let value = input.trim();
  if (value === '') return null;
  if (!value.includes('.') && /^[+-]?\d+,\d+$/.test(value)) value = value.replace(',', '.');
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(value)) return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}

function getPath(object: JsonObject, key: string): Json | undefined {
  let at: Json | undefined = object;
  for (const part of key.split('.')) {
    if (!isObject(at)) return undefined;
    at = at[part];
  }
  return at;
}

function setPath(object: JsonObject, key: string, value: Json | undefined): void {
  const parts = key.split('.');
  const last = parts.pop() as string;
  let at = object;
  for (const part of parts) {
    const next = at[part];
    if (!isObject(next)) {
      if (value === undefined) return;
      at[part] = {};
    }
    at = at[part] as JsonObject;
  }
  if (value === undefined) delete at[last];
  else at[last] = value;
}

/** A zone key from a display name: `Front lawn` -> `front_lawn` (the schema's slug pattern). */
export function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 64)
    .replace(/_+$/, '');
  return slug === '' ? 'zone' : slug;
}

/** `base`, or `base_2`, `base_3`... whichever is not taken. */
export function uniqueName(base: string, taken: ReadonlySet<string>, maxLength = 64): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `_${n}`;
    const candidate = `${base.slice(0, maxLength - suffix.length)}${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}

let uidCounter = 0;
function nextUid(): string {
  uidCounter += 1;
  return `z${uidCounter}`;
}

// ---------------------------------------------------------------------------
// Kind config blocks <-> field values
// ---------------------------------------------------------------------------

/** Field values shown for a config block: secrets start empty (the stored one is kept unless retyped). */
export function valuesFromConfig(fields: readonly KindField[], config: JsonObject): Values {
  const values: Values = {};
  for (const field of fields) {
    const raw = getPath(config, field.key);
    if (field.secret) values[field.key] = '';
    else if (field.type === 'checkbox') values[field.key] = raw === true ? 'true' : 'false';
    else values[field.key] = raw === undefined || raw === null ? (field.initial ?? '') : text(raw);
  }
  return values;
}

/** True when the config holds a value for this secret (stored, maybe redacted). */
export function secretStored(config: JsonObject | null, field: KindField): boolean {
  if (!config) return false;
  const raw = getPath(config, field.key);
  return typeof raw === 'string' && raw !== '';
}

/** Writes field values into a copy of `config`; empty inputs remove the key, except secrets (kept). */
export function applyValues(fields: readonly KindField[], config: JsonObject, values: Values): JsonObject {
  const out = clone(config);
  for (const field of fields) {
    const value = values[field.key] ?? '';
    if (field.type === 'checkbox') {
      if (value === 'true') setPath(out, field.key, true);
      else if (getPath(out, field.key) !== undefined) setPath(out, field.key, false);
      continue;
    }
    if (value.trim() === '') {
      if (!field.secret) setPath(out, field.key, undefined);
      continue;
    }
    if (field.type === 'number') {
      const n = parseNumber(value);
      setPath(out, field.key, n === null ? value.trim() : n);
    } else if (field.md5) {
      setPath(out, field.key, md5Hex(value));
    } else if (field.type === 'password') {
      setPath(out, field.key, value);
    } else {
      setPath(out, field.key, value.trim());
    }
  }
  return out;
}

// ---------------------------------------------------------------------------
// Draft -> form
// ---------------------------------------------------------------------------

function sourceInfo(kinds: readonly SourceKindInfo[], kind: string): SourceKindInfo | undefined {
  return kinds.find((k) => k.kind === kind);
}

export function draftToForm(draft: JsonObject, sourceKinds: readonly SourceKindInfo[]): WizardForm {
  const base = clone(draft);
  const deployment = objectAt(base.deployment);
  const location = objectAt(deployment.location);

  const entries = (Array.isArray(base.sources) ? base.sources : []).filter(isObject);
  const ids = new Set(entries.map((e) => text(e.id)));
  const sources: SourceChoice[] = [];
  // Known kinds in catalog order (each present entry, else one unselected choice), then unknown kinds.
  for (const info of sourceKinds) {
    const ofKind = entries.filter((e) => e.kind === info.kind);
    for (const entry of ofKind) {
      sources.push({
        id: text(entry.id),
        kind: info.kind,
        selected: true,
        values: valuesFromConfig(info.fields, objectAt(entry.config)),
        original: entry,
      });
    }
    if (ofKind.length === 0) {
      const id = uniqueName(info.kind, ids);
      ids.add(id);
      sources.push({
        id,
        kind: info.kind,
        selected: false,
        values: valuesFromConfig(info.fields, {}),
        original: null,
      });
    }
  }
  for (const entry of entries) {
    if (sourceInfo(sourceKinds, text(entry.kind))) continue;
    sources.push({ id: text(entry.id), kind: text(entry.kind), selected: true, values: {}, original: entry });
  }

  const controllers = (Array.isArray(base.controllers) ? base.controllers : []).filter(isObject);
  const main = controllers.find((c) => c.default === true) ?? controllers[0] ?? null;
  const controller: ControllerForm = main
    ? {
        id: text(main.id),
        kind: text(main.kind),
        values: valuesFromConfig(controllerKindInfo(text(main.kind)).fields, objectAt(main.config)),
        original: main,
      }
    : newController('dry_run');

  const mainKind = controllerKindInfo(controller.kind);
  const topicMap = objectAt(objectAt(main?.config).zone_command_map);
  const zones = Object.entries(objectAt(base.zones)).map(([key, value]): ZoneForm => {
    const zone = objectAt(value);
    const station = mainKind.stationInTopicMap
      ? text(objectAt(topicMap[key]).command_topic)
      : text(zone.controller_station);
    return {
      uid: nextUid(),
      key,
      name: text(zone.display_name),
      species: text(zone.species),
      soil: text(zone.soil_texture),
      sprinkler: text(zone.sprinkler_type),
      sun: text(zone.sun_exposure),
      area: text(zone.area_sqft),
      station,
      stationName: text(zone.controller_zone_name),
      soakedOn: '',
      original: zone,
    };
  });

  const engine = objectAt(base.engine);
  return {
    base,
    location: {
      lat: text(location.lat),
      lon: text(location.lon),
      timezone: text(deployment.timezone),
      elevation: text(location.elevation_m),
      units: text(deployment.units) || 'imperial',
    },
    sources,
    forecastProvider: text(engine.forecast_provider),
    controller,
    otherControllers: controllers.filter((c) => c !== main),
    zones,
  };
}

export function newController(kind: string): ControllerForm {
  const info = controllerKindInfo(kind);
  return { id: kind, kind, values: valuesFromConfig(info.fields, {}), original: null };
}

/** The controller after choosing another kind: a fresh config block; a stored entry keeps its id. */
export function changeControllerKind(current: ControllerForm, kind: string): ControllerForm {
  if (kind === current.kind) return current;
  const fresh = newController(kind);
  if (!current.original) return fresh;
  // A stored id named after its old kind follows the new kind; any other id is the owner's and stays.
  const id = current.original.id === current.original.kind ? kind : current.id;
  return { ...fresh, id, original: { ...current.original, config: {} } };
}

export function newZone(name = ''): ZoneForm {
  return {
    uid: nextUid(),
    key: null,
    name,
    species: '',
    soil: '',
    sprinkler: '',
    sun: '',
    area: '',
    station: '',
    stationName: '',
    soakedOn: '',
    original: null,
  };
}

/** A soaked date the owner may declare: a real local date no later than `today` (YYYY-MM-DD). */
export function soakedDateError(value: string, today: string): string | undefined {
  const v = value.trim();
  if (v === '') return undefined;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v) || Number.isNaN(Date.parse(`${v}T12:00:00Z`)))
    return 'Enter a date (YYYY-MM-DD).';
  if (v > today) return 'The date cannot be in the future.';
  return undefined;
}

/** The declarations to post once the wizard's config is applied: one per zone with a soaked date. */
export function soakedDeclarations(form: Pick<WizardForm, 'zones'>): { zone: string; date: string }[] {
  const keys = zoneKeys(form.zones);
  return form.zones.flatMap((zone, i) =>
    zone.soakedOn.trim() === '' ? [] : [{ zone: keys[i] as string, date: zone.soakedOn.trim() }],
  );
}

// ---------------------------------------------------------------------------
// Form -> draft
// ---------------------------------------------------------------------------

/** Zone keys the form will write, in zone order (existing keys kept, new ones from the name). */
export function zoneKeys(zones: readonly ZoneForm[]): string[] {
  const taken = new Set(zones.flatMap((z) => (z.key ? [z.key] : [])));
  return zones.map((zone) => {
    if (zone.key) return zone.key;
    const key = uniqueName(slugify(zone.name), taken);
    taken.add(key);
    return key;
  });
}

function setOrDelete(target: JsonObject, key: string, value: Json | undefined): void {
  if (value === undefined || value === '' || value === null) delete target[key];
  else target[key] = value;
}

export function controllerEntry(form: WizardForm): JsonObject {
  const { controller } = form;
  const info = controllerKindInfo(controller.kind);
  const original = controller.original;
  const sameKind = original !== null && original.kind === controller.kind;
  const config = applyValues(info.fields, sameKind ? objectAt(original.config) : {}, controller.values);
  if (info.stationInTopicMap) {
    const map = objectAt(config.zone_command_map);
    const next: JsonObject = {};
    const keys = zoneKeys(form.zones);
    form.zones.forEach((zone, i) => {
      const key = keys[i] as string;
      const topic = zone.station.trim();
      if (topic === '') return;
      next[key] = { ...objectAt(map[zone.key ?? key]), command_topic: topic };
    });
    config.zone_command_map = next;
  }
  const entry: JsonObject = original ? { ...clone(original) } : { enabled: true };
  entry.id = controller.id;
  entry.kind = controller.kind;
  entry.default = true;
  entry.config = config;
  return entry;
}

export function formToDraft(form: WizardForm, sourceKinds: readonly SourceKindInfo[]): JsonObject {
  const out = clone(form.base);
  out.schema_version = typeof out.schema_version === 'number' ? out.schema_version : SCHEMA_VERSION;

  // Location
  const deployment = objectAt(out.deployment);
  const location = { ...objectAt(deployment.location) };
  location.lat = parseNumber(form.location.lat);
  location.lon = parseNumber(form.location.lon);
  setOrDelete(location, 'elevation_m', parseNumber(form.location.elevation) ?? undefined);
  const nextDeployment: JsonObject = { ...deployment, location };
  setOrDelete(nextDeployment, 'timezone', form.location.timezone.trim());
  setOrDelete(nextDeployment, 'units', form.location.units);
  out.deployment = nextDeployment;

  // Sources
  out.sources = form.sources
    .filter((s) => s.selected)
    .map((choice): JsonObject => {
      const info = sourceInfo(sourceKinds, choice.kind);
      if (!info) return clone(choice.original ?? { id: choice.id, kind: choice.kind });
      const original = choice.original;
      const config = applyValues(info.fields, objectAt(original?.config), choice.values);
      return original
        ? { ...clone(original), config }
        : { id: choice.id, priority: info.priority, enabled: true, kind: choice.kind, config };
    });
  const engine = { ...objectAt(out.engine) };
  const provider = form.forecastProvider;
  const providerSelected = form.sources.some((s) => s.selected && s.id === provider);
  setOrDelete(engine, 'forecast_provider', provider !== '' && providerSelected ? provider : undefined);
  if (Object.keys(engine).length > 0 || out.engine !== undefined) out.engine = engine;

  // Controllers: the wizard's one is the default; others are kept, none of them default.
  const main = controllerEntry(form);
  const others = form.otherControllers
    .filter((c) => c.id !== main.id)
    .map((c): JsonObject => ({ ...clone(c), default: false }));
  out.controllers = [main, ...others];

  // Zones
  const keys = zoneKeys(form.zones);
  const otherIds = new Set(others.map((c) => text(c.id)));
  const info = controllerKindInfo(form.controller.kind);
  const zones: JsonObject = {};
  form.zones.forEach((zone, i) => {
    const key = keys[i] as string;
    const next: JsonObject = zone.original ? clone(zone.original) : {};
    setOrDelete(next, 'display_name', zone.name.trim());
    setOrDelete(next, 'species', zone.species);
    setOrDelete(next, 'soil_texture', zone.soil);
    setOrDelete(next, 'sprinkler_type', zone.sprinkler);
    setOrDelete(next, 'sun_exposure', zone.sun);
    setOrDelete(next, 'area_sqft', parseNumber(zone.area) ?? undefined);
    if (!info.stationInTopicMap) setOrDelete(next, 'controller_station', zone.station.trim());
    else delete next.controller_station;
    setOrDelete(next, 'controller_zone_name', zone.stationName.trim());
    // A zone bound to one of the kept controllers stays with it.
    const bound = text(next.controller_id);
    if (!otherIds.has(bound)) next.controller_id = main.id as string;
    zones[key] = next;
  });
  out.zones = zones;
  return out;
}

// ---------------------------------------------------------------------------
// Validation (what the browser can tell before the service validates)
// ---------------------------------------------------------------------------

export type FieldErrors = Record<string, string>;

export function sourceFieldId(choice: SourceChoice, key: string): string {
  return `source.${choice.id}.${key}`;
}
export function zoneFieldId(zone: ZoneForm, key: string): string {
  return `zone.${zone.uid}.${key}`;
}

function requiredMissing(field: KindField, value: string, storedConfig: JsonObject | null): boolean {
  if (!field.required || value.trim() !== '') return false;
  return !(field.secret && secretStored(storedConfig, field));
}

function checkFields(
  errors: FieldErrors,
  fields: readonly KindField[],
  values: Values,
  stored: JsonObject | null,
  id: (key: string) => string,
): void {
  for (const field of fields) {
    const value = values[field.key] ?? '';
    if (requiredMissing(field, value, stored)) {
      errors[id(field.key)] = `${field.label} is required.`;
      continue;
    }
    if (field.type === 'number' && value.trim() !== '') {
      const n = parseNumber(value);
      if (n === null || !Number.isInteger(n))
        errors[id(field.key)] = `${field.label} must be a whole number.`;
      else if ((field.min !== undefined && n < field.min) || (field.max !== undefined && n > field.max))
        errors[id(field.key)] = `${field.label} must be between ${field.min ?? '…'} and ${field.max ?? '…'}.`;
    }
    if (field.type === 'url' && value.trim() !== '' && !/^https?:\/\/\S+$/i.test(value.trim()))
      errors[id(field.key)] = `${field.label} must start with http:// or https://.`;
  }
}

export function validateLocation(location: LocationForm): FieldErrors {
  const errors: FieldErrors = {};
  const lat = parseNumber(location.lat);
  const lon = parseNumber(location.lon);
  if (location.lat.trim() === '') errors.lat = 'Enter the latitude (search an address or click the map).';
  else if (lat === null || lat < -90 || lat > 90) errors.lat = 'Latitude is a number from -90 to 90.';
  if (location.lon.trim() === '') errors.lon = 'Enter the longitude.';
  else if (lon === null || lon < -180 || lon > 180) errors.lon = 'Longitude is a number from -180 to 180.';
  if (location.elevation.trim() !== '') {
    const elevation = parseNumber(location.elevation);
    if (elevation === null || elevation < -500 || elevation > 9000)
      errors.elevation = 'Elevation is in metres, from -500 to 9000 (or leave it empty).';
  }
  return errors;
}

export function validateSources(form: WizardForm, sourceKinds: readonly SourceKindInfo[]): FieldErrors {
  const errors: FieldErrors = {};
  for (const choice of form.sources) {
    if (!choice.selected) continue;
    const info = sourceInfo(sourceKinds, choice.kind);
    if (!info) continue;
    const stored = choice.original ? objectAt(choice.original.config) : null;
    checkFields(errors, info.fields, choice.values, stored, (key) => sourceFieldId(choice, key));
  }
  return errors;
}

export function validateController(controller: ControllerForm): FieldErrors {
  const errors: FieldErrors = {};
  const info = controllerKindInfo(controller.kind);
  const sameKind = controller.original !== null && controller.original.kind === controller.kind;
  const stored = sameKind ? objectAt(controller.original?.config) : null;
  checkFields(errors, info.fields, controller.values, stored, (key) => `controller.${key}`);
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(controller.id))
    errors['controller.id'] = 'The id takes 1-64 letters, digits, "_", "." or "-".';
  return errors;
}

export function validateZones(
  zones: readonly ZoneForm[],
  controllerKind: string,
  today: string = new Date().toISOString().slice(0, 10),
): FieldErrors {
  const errors: FieldErrors = {};
  const station = controllerKindInfo(controllerKind).station;
  const seen = new Map<string, string>();
  zones.forEach((zone) => {
    const name = zone.name.trim();
    if (name === '') errors[zoneFieldId(zone, 'name')] = 'Give the zone a name.';
    else {
      const lower = name.toLowerCase();
      if (seen.has(lower)) errors[zoneFieldId(zone, 'name')] = 'Another zone already has this name.';
      seen.set(lower, zone.uid);
    }
    if (zone.area.trim() !== '') {
      const area = parseNumber(zone.area);
      if (area === null || area <= 0)
        errors[zoneFieldId(zone, 'area')] = 'The area is a number above 0 (or leave it empty).';
    }
    const value = zone.station.trim();
    if (value !== '' && station.pattern && !station.pattern.test(value))
      errors[zoneFieldId(zone, 'station')] = station.example
        ? `Expected something like "${station.example}".`
        : 'This station does not look right for this controller.';
    const soaked = soakedDateError(zone.soakedOn, today);
    if (soaked) errors[zoneFieldId(zone, 'soaked')] = soaked;
  });
  return errors;
}

/**
 * What the irrigation engine needs to plan a zone (server/src/irrigation/
 * engine/zone-inputs.ts): without species, soil and sprinkler it holds the
 * zone's watering rather than water on a guess. Allowed, but worth saying.
 */
export function zoneMissing(zone: ZoneForm): string[] {
  const missing: string[] = [];
  if (!zone.species) missing.push('species');
  if (!zone.soil) missing.push('soil');
  const measuredRate = isObject(zone.original) && typeof zone.original.precip_rate_mm_hr === 'number';
  if (!zone.sprinkler && !measuredRate) missing.push('sprinkler');
  return missing;
}

// ---------------------------------------------------------------------------
// Server answers
// ---------------------------------------------------------------------------

/** The wizard step that holds a validation entry's path (`$.deployment.location.lat` -> location). */
export function stepForPath(path: string): StepId | null {
  const p = path.replace(/^\$\.?/, '');
  if (p.startsWith('deployment') || p.startsWith('schema_version')) return 'location';
  if (
    p.startsWith('sources') ||
    p.startsWith('engine.forecast_provider') ||
    p.startsWith('engine.field_source')
  )
    return 'sources';
  if (p.startsWith('engine.overrides')) return 'sources';
  if (p.startsWith('controllers')) return 'controller';
  if (p.startsWith('zones')) return 'zones';
  return null;
}

export interface ValidationEntry {
  code: string;
  path: string;
  message: string;
}

/** The `validation.errors` of a 422 body, if any. */
export function validationEntries(body: unknown): ValidationEntry[] {
  if (!isObject(body as Json)) return [];
  const validation = (body as JsonObject).validation;
  if (!isObject(validation) || !Array.isArray(validation.errors)) return [];
  return validation.errors.filter(isObject).map((e) => ({
    code: text(e.code),
    path: text(e.path),
    message: text(e.message),
  }));
}

export interface ControllerTest {
  ok?: boolean;
  reachable?: boolean | null;
  master_enabled?: boolean | null;
  water_level_pct?: number | null;
  zone_count?: number | null;
  firmware?: string | null;
  discovered_device?: { device_id: string; name: string | null; device_count: number } | null;
  rate_limit_remaining?: string | null;
}

/** One line for a test_controller answer; anything the controller did not report reads "unknown". */
export function describeControllerTest(result: ControllerTest): string {
  const parts = [result.reachable === false ? 'Not reachable' : 'Reachable'];
  const count = result.zone_count;
  parts.push(typeof count === 'number' ? `${count} ${count === 1 ? 'zone' : 'zones'}` : 'zone count unknown');
  parts.push(result.firmware ? `firmware ${result.firmware}` : 'firmware unknown');
  parts.push(
    typeof result.water_level_pct === 'number'
      ? `water level ${result.water_level_pct} %`
      : 'water level unknown',
  );
  if (result.master_enabled === false) parts.push('watering disabled on the controller');
  if (result.discovered_device)
    parts.push(`device ${result.discovered_device.name ?? result.discovered_device.device_id}`);
  return parts.join(' · ');
}

export interface ScannedZone {
  station_id: string;
  name: string | null;
}

/**
 * Zones after a scan: a scanned station already bound to a zone updates that
 * zone's controller label (and an empty name); other stations become new
 * zones; blank zones (no name, no station) are replaced.
 */
export function mergeScannedZones(zones: readonly ZoneForm[], scanned: readonly ScannedZone[]): ZoneForm[] {
  const kept = zones.filter((z) => z.name.trim() !== '' || z.station.trim() !== '' || z.key !== null);
  const result = kept.map((z) => ({ ...z }));
  scanned.forEach((s, i) => {
    const station = String(s.station_id);
    const label = (s.name ?? '').trim();
    const existing = result.find((z) => z.station.trim() === station);
    if (existing) {
      existing.stationName = label;
      if (existing.name.trim() === '') existing.name = label || `Zone ${i + 1}`;
      return;
    }
    const zone = newZone(label || `Zone ${station}`);
    zone.station = station;
    zone.stationName = label;
    result.push(zone);
  });
  return result;
}

/** The options of a zone enum from GET /config/schema (JSON Schema of the config). */
export interface SchemaEnums {
  species: string[];
  soil_texture: string[];
  sprinkler_type: string[];
  sun_exposure: string[];
  units: string[];
}

function enumOf(node: Json | undefined): string[] {
  if (!isObject(node)) return [];
  if (Array.isArray(node.enum)) return node.enum.filter((v): v is string => typeof v === 'string');
  for (const key of ['anyOf', 'oneOf'] as const) {
    const list = node[key];
    if (Array.isArray(list)) {
      const found = list.flatMap((n) => enumOf(n));
      if (found.length > 0) return found;
    }
  }
  return [];
}

export function schemaEnums(schema: unknown): SchemaEnums {
  const root = isObject(schema as Json) ? (schema as JsonObject) : {};
  const props = objectAt(root.properties);
  const zone = objectAt(objectAt(objectAt(props.zones).additionalProperties).properties);
  const deployment = objectAt(objectAt(props.deployment).properties);
  return {
    species: enumOf(zone.species),
    soil_texture: enumOf(zone.soil_texture),
    sprinkler_type: enumOf(zone.sprinkler_type),
    sun_exposure: enumOf(zone.sun_exposure),
    units: enumOf(deployment.units),
  };
}

/** Controller kinds for the select: the drivable ones, dry run first, plus a stored kind not listed. */
export function controllerKindOptions(current: string): ControllerKindInfo[] {
  const list = [...CONTROLLER_KINDS];
  if (!list.some((k) => k.kind === current)) list.push(controllerKindInfo(current));
  return list;
}

/**
 * GET /wizard/discover: the gateway sweep of /devices/discover (Tempest hubs
 * on UDP 50222) plus an mDNS sweep for controllers over the same window
 * (docs/wizard.md#discovery; the controller part may be absent from an older
 * service).
 */
export interface Discovery {
  listened_ms: number;
  gateways: {
    kind: string;
    serial: string;
    host: string;
    stations: string[];
    suggested_source?: { kind: string; priority?: number; config?: Record<string, unknown> };
  }[];
  error: string | null;
  controllers?: DiscoveredController[];
  /** Why the controller sweep could not run (then `controllers` is empty), else null. */
  controllers_note?: string | null;
}

/** A controller that answered the mDNS sweep (server/src/wizard/mdns-records.ts). */
export interface DiscoveredController {
  /** What it is (`esphome`, `opensprinkler`); not a controller kind: see suggested_controller. */
  kind: string;
  name: string;
  /** Its IPv4 address (else a .local name). */
  host: string;
  /** The advertised port (ESPHome: its native API, not the web_server the kind uses). */
  port: number;
  source: string;
  /** The controller entry the service suggests: a controller kind and part of its config block. */
  suggested_controller: { kind: string; config: Record<string, unknown> };
}

/**
 * Sources after a sweep: each hub heard selects the source of its suggested
 * kind with the same hub serial, else an unselected one of that kind (filled
 * with the serial); a kind the form does not offer is ignored.
 */
export function preselectDiscovered(sources: readonly SourceChoice[], found: Discovery): SourceChoice[] {
  let next = [...sources];
  for (const gateway of found.gateways) {
    const kind = gateway.suggested_source?.kind ?? gateway.kind;
    const serialValue = gateway.suggested_source?.config?.hub_serial;
    const serial = typeof serialValue === 'string' ? serialValue : gateway.serial;
    const same = next.find((s) => s.kind === kind && (s.values.hub_serial ?? '') === serial);
    const free = next.find((s) => s.kind === kind && !s.selected);
    if (same) next = next.map((s) => (s === same ? { ...s, selected: true } : s));
    else if (free)
      next = next.map((s) =>
        s === free ? { ...s, selected: true, values: { ...s.values, hub_serial: serial } } : s,
      );
  }
  return next;
}

// ---------------------------------------------------------------------------
// Discovered controllers -> the controller form
// ---------------------------------------------------------------------------

/** `host:port` as advertised (an IPv6 address in brackets). */
export function discoveredAddress(found: DiscoveredController): string {
  const host = found.host.includes(':') ? `[${found.host}]` : found.host;
  return `${host}:${found.port}`;
}

/** The controller kind a discovered device would be driven as (the service's suggestion). */
export function discoveredKind(found: DiscoveredController): ControllerKindInfo {
  return controllerKindInfo(found.suggested_controller.kind);
}

/**
 * The field values a discovered controller fills in: the suggested config's
 * values for the kind's fields, never a secret (nothing discovered carries
 * one, and a password is the user's to type). Keys the form has no field
 * for are not taken.
 */
export function discoveredValues(found: DiscoveredController): Values {
  const info = discoveredKind(found);
  const suggested: unknown = found.suggested_controller.config;
  const config: JsonObject = isObject(suggested) ? suggested : {};
  const values: Values = {};
  for (const field of info.fields) {
    if (field.secret) continue;
    const raw = getPath(config, field.key);
    if (raw === undefined || raw === null) continue;
    values[field.key] = field.type === 'checkbox' ? (raw === true ? 'true' : 'false') : text(raw);
  }
  return values;
}

/** True when the controller form already holds what this discovered device suggests. */
export function discoveredInUse(controller: ControllerForm, found: DiscoveredController): boolean {
  if (controller.kind !== found.suggested_controller.kind) return false;
  return Object.entries(discoveredValues(found)).every(
    ([key, value]) => (controller.values[key] ?? '').trim() === value,
  );
}

/**
 * The controller form after "Use <name>": the suggested kind (a stored
 * entry keeps its id as on a kind change) with the discovered fields filled
 * in; other typed values of the same kind stay. Picking a device other than
 * the stored one forgets the stored secrets: they belong to the old device
 * (the service refuses a redacted secret beside a changed address), so the
 * user types the new device's password.
 */
export function controllerFromDiscovered(
  current: ControllerForm,
  found: DiscoveredController,
): ControllerForm {
  const kind = found.suggested_controller.kind;
  const base = changeControllerKind(current, kind);
  if (discoveredInUse(base, found)) return base;
  const next: ControllerForm = { ...base, values: { ...base.values, ...discoveredValues(found) } };
  const original = base.original;
  if (original && original.kind === kind) {
    const config = clone(objectAt(original.config));
    for (const field of discoveredKind(found).fields) if (field.secret) setPath(config, field.key, undefined);
    next.original = { ...original, config };
  }
  return next;
}

function lowerFirst(label: string): string {
  return /^[A-Z][a-z]/.test(label) ? label.charAt(0).toLowerCase() + label.slice(1) : label;
}

/** What was filled in and what is left for the user (announced after "Use <name>"). */
export function discoveredFilledNote(found: DiscoveredController): string {
  const info = discoveredKind(found);
  const secrets = info.fields.filter((f) => f.secret);
  const required = secrets.filter((f) => f.required).map((f) => lowerFirst(f.label));
  const optional = secrets.filter((f) => !f.required).map((f) => lowerFirst(f.label));
  const left =
    required.length > 0
      ? `Type the ${required.join(' and ')} yourself (it is never discovered), then press Test controller.`
      : optional.length > 0
        ? `Fill in the ${optional.join(' and ')} only if the device needs one, then press Test controller.`
        : 'Press Test controller to check it.';
  return `Filled in from ${found.name} (${info.label} at ${found.host}). ${left}`;
}
