import { z } from 'zod';
import { registerBuiltinKinds } from '../../server/src/config/builtin-kinds';
import { configFormSchema } from '../../server/src/config/form-schema';
import { configSchema } from '../../server/src/config/schema';
import { builtinControllerKinds } from '../../server/src/controllers/index';
import { registerWithConfigValidator as registerControllerKinds } from '../../server/src/controllers/kinds';
import {
  builtinSourceKinds,
  registerWithConfigValidator as registerSourceKinds,
} from '../../server/src/weather/sources/index';
import { validateDocument } from '../../server/src/config/validate';
import {
  describeSchema,
  fieldId,
  formatInput,
  formatPath,
  getAt,
  humanise,
  initialValue,
  isSecretKey,
  optionLabel,
  parseInput,
  propertiesFor,
  parsePath,
  placeEntries,
  rangeText,
  removeAt,
  renderedPaths,
  reportOf,
  sentence,
  setAt,
  singular,
  type FieldSpec,
  type JsonObject,
  type JsonSchema,
  type JsonValue,
} from '../../web/app/components/schema-form-model';

/** The JSON Schema GET /config/schema serves (routes/config.ts builds it the same way), kinds registered. */
registerBuiltinKinds();
registerSourceKinds(builtinSourceKinds([]));
registerControllerKinds(builtinControllerKinds().values());
const served = configFormSchema(z, configSchema) as JsonSchema;
const root = describeSchema(served);

function property(spec: FieldSpec, ...path: string[]): FieldSpec {
  let node = spec;
  for (const key of path) {
    if (node.kind === 'object') {
      const found = node.properties.find((p) => p.key === key);
      if (!found) throw new Error(`no property ${key}`);
      node = found.spec;
    } else if (node.kind === 'record') node = node.value;
    else if (node.kind === 'array') node = node.item;
    else throw new Error(`cannot descend into ${node.kind} at ${key}`);
  }
  return node;
}

const demoDoc: JsonObject = {
  schema_version: 2,
  deployment: {
    location: { lat: 28.5, lon: -81.4 },
    units: 'imperial',
    timezone: 'America/New_York',
  },
  features: { demo_mode: true },
  sources: [{ id: 'demo', priority: 100, enabled: true, kind: 'demo_replay', config: {} }],
  controllers: [
    {
      id: 'c1',
      default: true,
      enabled: true,
      kind: 'http_generic',
      config: { base_url: 'http://x', api_key: '***redacted***' },
    },
  ],
  zones: {
    front_lawn: { display_name: 'Front lawn', species: 'st_augustine', max_run_minutes: 30 },
  },
};

describe('describeSchema on the served config schema', () => {
  it('maps every section to the kind the form renders', () => {
    expect(root.kind).toBe('object');
    if (root.kind !== 'object') return;
    const kinds = Object.fromEntries(root.properties.map((p) => [p.key, p.spec.kind]));
    expect(kinds).toEqual({
      schema_version: 'integer',
      deployment: 'object',
      features: 'object',
      sources: 'array',
      controllers: 'array',
      zones: 'record',
      llm: 'object',
      notifications: 'object',
      engine: 'object',
      restrictions: 'array',
      schedules: 'array',
      masters: 'array',
      auth: 'object',
      updates: 'object',
    });
    expect(root.properties.find((p) => p.key === 'schema_version')?.required).toBe(true);
    expect(root.properties.find((p) => p.key === 'llm')?.required).toBe(false);
  });

  it('reads numbers with their range, nullability and description', () => {
    const maxRun = property(root, 'zones', '*', 'max_run_minutes');
    expect(maxRun).toMatchObject({ kind: 'integer', min: 5, max: 360, nullable: true });
    expect(maxRun.description).toBe('whole minutes; null = 60');
    const area = property(root, 'zones', '*', 'area_sqft');
    expect(area).toMatchObject({ kind: 'number', exclusiveMin: 0, max: 10_000_000, nullable: true });
    const lat = property(root, 'deployment', 'location', 'lat');
    expect(lat).toMatchObject({ kind: 'number', min: -90, max: 90, nullable: false });
    // zod writes MAX_SAFE_INTEGER as the bound of a plain int: no useful maximum.
    const ttl = property(root, 'llm', 'explanation_ttl_s');
    expect(ttl.kind).toBe('integer');
    expect(ttl.kind === 'integer' ? ttl.max : 'x').toBeUndefined();
  });

  it('reads enums, nullable enums, booleans with defaults and nullable strings', () => {
    expect(property(root, 'deployment', 'units')).toMatchObject({
      kind: 'enum',
      options: ['imperial', 'metric'],
      default: 'imperial',
      nullable: false,
    });
    const species = property(root, 'zones', '*', 'species');
    expect(species.kind).toBe('enum');
    expect(species.nullable).toBe(true);
    expect(species.kind === 'enum' && species.options).toContain('st_augustine');
    expect(property(root, 'features', 'enable_push')).toMatchObject({ kind: 'boolean', default: true });
    expect(property(root, 'zones', '*', 'display_name')).toMatchObject({ kind: 'string', nullable: true });
    // The optional display names of sources, controllers and flow meters (the Devices page's Rename).
    for (const path of [
      ['sources', '*', 'name'],
      ['controllers', '*', 'name'],
      ['controllers', '*', 'flow_meter', 'name'],
    ]) {
      expect(property(root, ...path)).toMatchObject({ kind: 'string', nullable: true });
    }
  });

  it('renders arrays of primitives as lists and records of primitives as records', () => {
    expect(property(root, 'auth', 'trusted_networks')).toMatchObject({ kind: 'list', item: 'string' });
    expect(property(root, 'engine', 'restrictions', 'allowed_weekdays')).toMatchObject({
      kind: 'list',
      item: 'integer',
      nullable: true,
    });
    expect(property(root, 'engine', 'overrides')).toMatchObject({
      kind: 'record',
      value: { kind: 'string' },
    });
    expect(property(root, 'engine', 'field_source_chains')).toMatchObject({
      kind: 'record',
      value: { kind: 'list', item: 'string' },
    });
    expect(property(root, 'zones')).toMatchObject({
      kind: 'record',
      keyPattern: '^[a-z0-9][a-z0-9_]{0,63}$',
    });
  });

  it("describes a source's or controller's config by its kind: fields, not a JSON box", () => {
    const controller = property(root, 'controllers', '*');
    expect(controller.kind).toBe('object');
    // Without a kind the block is open (JSON); each kind brings its own fields.
    expect(property(root, 'controllers', '*', 'config').kind).toBe('json');
    const opensprinkler = propertiesFor(controller, { kind: 'opensprinkler', config: {} });
    const config = opensprinkler.find((p) => p.key === 'config')?.spec;
    expect(config?.kind).toBe('object');
    if (config?.kind !== 'object') return;
    const fields = Object.fromEntries(config.properties.map((p) => [p.key, p.spec.kind]));
    expect(fields).toMatchObject({
      host: 'string',
      port: 'integer',
      password_md5: 'string',
      poll_interval_s: 'integer',
    });
    expect(config.properties.find((p) => p.key === 'port')?.spec).toMatchObject({
      min: 1,
      max: 65535,
      default: 80,
    });
    expect(isSecretKey('password_md5')).toBe(true);
    // The kind itself is a labelled choice of the registered kinds.
    const kind = property(root, 'controllers', '*', 'kind');
    expect(kind.kind === 'enum' && kind.labels?.opensprinkler).toBe('OpenSprinkler (direct HTTP)');
    // A new entry of a kind starts with that kind's own defaults.
    expect(initialValue(controller)).toMatchObject({ kind: 'dry_run', config: expect.any(Object) });
    const source = property(root, 'sources', '*');
    const ecowitt = propertiesFor(source, { kind: 'ecowitt_ingest' }).find((p) => p.key === 'config')?.spec;
    expect(ecowitt?.kind === 'object' && ecowitt.properties.map((p) => p.key)).toContain('passkey');
  });

  it('shows labelled choices by their titles and keeps schema_version out of the editable fields', () => {
    const species = property(root, 'zones', '*', 'species');
    expect(species.kind === 'enum' && optionLabel('st_augustine', species.labels)).toBe('St. Augustinegrass');
    const sprinkler = property(root, 'zones', '*', 'sprinkler_type');
    expect(sprinkler.kind === 'enum' && optionLabel('mp_rotator', sprinkler.labels)).toBe(
      'MP Rotator (rotary nozzle)',
    );
    expect(property(root, 'schema_version').readOnly).toBe(true);
  });

  it('falls back to a JSON field for unknown schemas', () => {
    expect(property(root, 'deployment', 'shadow_native')).toMatchObject({ kind: 'json', any: true });
    expect(describeSchema({ anyOf: [{ type: 'string' }, { type: 'number' }] }).kind).toBe('json');
    expect(describeSchema({ type: 'array', items: [{ type: 'string' }] }).kind).toBe('json');
    expect(describeSchema({ type: 'array', items: { type: 'array', items: { type: 'string' } } }).kind).toBe(
      'json',
    );
  });

  it('keeps nullable optional objects as objects (restrictions, address parity)', () => {
    const restrictions = property(root, 'engine', 'restrictions');
    expect(restrictions).toMatchObject({ kind: 'object', nullable: true });
    const parity = property(root, 'engine', 'restrictions', 'address_parity');
    expect(parity.kind).toBe('object');
    if (parity.kind === 'object') {
      expect(parity.properties.filter((p) => p.required).map((p) => p.key)).toEqual([
        'house_number',
        'odd_weekdays',
        'even_weekdays',
      ]);
    }
  });
});

describe('document edits', () => {
  it('sets a value deep in a copy, creating parents and keeping the original', () => {
    const next = setAt(demoDoc, ['engine', 'skip_rules', 'max_wind_mph'], 12) as JsonObject;
    expect(getAt(next, ['engine', 'skip_rules', 'max_wind_mph'])).toBe(12);
    expect(getAt(demoDoc, ['engine'])).toBeUndefined();
    expect(next.zones).toBe(demoDoc.zones);
  });

  it('keeps key order and untouched secrets when a field changes', () => {
    const next = setAt(demoDoc, ['zones', 'front_lawn', 'max_run_minutes'], 45) as JsonObject;
    expect(Object.keys(next)).toEqual(Object.keys(demoDoc));
    expect(getAt(next, ['controllers', 0, 'config', 'api_key'])).toBe('***redacted***');
    expect(getAt(next, ['zones', 'front_lawn', 'max_run_minutes'])).toBe(45);
  });

  it('removes an object key with undefined and an array entry with removeAt', () => {
    const cleared = setAt(demoDoc, ['deployment', 'timezone'], undefined) as JsonObject;
    expect(Object.keys(cleared.deployment as JsonObject)).toEqual(['location', 'units']);
    const withTwo = setAt(demoDoc, ['sources', 1], { id: 'b', kind: 'x' });
    const removed = removeAt(withTwo, ['sources', 0]) as JsonObject;
    expect(removed.sources).toEqual([{ id: 'b', kind: 'x' }]);
    const noZone = removeAt(demoDoc, ['zones', 'front_lawn']) as JsonObject;
    expect(noZone.zones).toEqual({});
  });

  it('starts new entries from defaults and required fields', () => {
    // A new source starts as the free forecast model, with that kind's own settings.
    expect(initialValue(property(root, 'sources', '*'))).toMatchObject({
      id: '',
      kind: 'open_meteo',
      config: {},
    });
    expect(initialValue(property(root, 'notifications', 'mqtt'))).toEqual({ host: '' });
    expect(initialValue(property(root, 'zones', '*'))).toEqual({});
    expect(initialValue(property(root, 'engine', 'restrictions', 'address_parity'))).toEqual({
      odd_weekdays: [],
      even_weekdays: [],
    });
    expect(initialValue(property(root, 'features'))).toMatchObject({ demo_mode: false, enable_push: true });
  });
});

describe('input text <-> value', () => {
  const maxRun = property(root, 'zones', '*', 'max_run_minutes');
  const lat = property(root, 'deployment', 'location', 'lat');
  const name = property(root, 'zones', '*', 'display_name');
  const sourceId = property(root, 'sources', '*', 'id');
  const priority = property(root, 'sources', '*', 'priority');

  it('reads numbers and leaves ranges to the server', () => {
    expect(parseInput(lat, '41.25', true)).toEqual({ ok: true, value: 41.25 });
    expect(parseInput(lat, '123', true)).toEqual({ ok: true, value: 123 });
    expect(parseInput(maxRun, '2.5', false)).toEqual({ ok: false, message: 'enter a whole number' });
    expect(parseInput(lat, 'abc', true).ok).toBe(false);
  });

  it('reads an empty input as null when nullable, else as absent (the server default)', () => {
    expect(parseInput(maxRun, '', false)).toEqual({ ok: true, value: null });
    expect(parseInput(priority, '', false)).toEqual({ ok: true, value: undefined });
    expect(parseInput(name, '', false)).toEqual({ ok: true, value: null });
    expect(parseInput(sourceId, '', true)).toEqual({ ok: true, value: '' });
  });

  it('reads enums, booleans, lists and JSON', () => {
    const units = property(root, 'deployment', 'units');
    expect(parseInput(units, '"metric"', false)).toEqual({ ok: true, value: 'metric' });
    expect(parseInput(units, '"furlongs"', false).ok).toBe(false);
    expect(parseInput(property(root, 'features', 'telemetry'), 'true', false)).toEqual({
      ok: true,
      value: true,
    });
    const weekdays = property(root, 'engine', 'restrictions', 'allowed_weekdays');
    expect(parseInput(weekdays, '1\n3\n\n5 ', false)).toEqual({ ok: true, value: [1, 3, 5] });
    expect(parseInput(weekdays, '1\nmonday', false).ok).toBe(false);
    expect(parseInput(weekdays, '', false)).toEqual({ ok: true, value: null });
    const config = property(root, 'sources', '*', 'config');
    expect(parseInput(config, '{"bind_addr": "0.0.0.0:50222"}', false)).toEqual({
      ok: true,
      value: { bind_addr: '0.0.0.0:50222' },
    });
    const broken = parseInput(config, '{"bind_addr": ', false);
    expect(broken.ok).toBe(false);
    expect(!broken.ok && broken.message).toMatch(/^not valid JSON/);
  });

  it('formats values back to the text an input shows', () => {
    expect(formatInput(maxRun, 30)).toBe('30');
    expect(formatInput(maxRun, null)).toBe('');
    expect(formatInput(property(root, 'auth', 'trusted_networks'), ['10.0.0.0/8', 'fd00::/8'])).toBe(
      '10.0.0.0/8\nfd00::/8',
    );
    expect(formatInput(property(root, 'deployment', 'units'), 'metric')).toBe('"metric"');
    expect(formatInput(property(root, 'sources', '*', 'config'), { a: 1 })).toBe('{\n  "a": 1\n}');
  });

  it('says ranges in words', () => {
    expect(rangeText(maxRun)).toBe('between 5 and 360');
    expect(rangeText(property(root, 'zones', '*', 'area_sqft'))).toBe('above 0 and at most 10000000');
    expect(rangeText(property(root, 'llm', 'explanation_ttl_s'))).toBe('at least 0');
    expect(rangeText(name)).toBe('');
  });
});

describe('labels', () => {
  it('humanises keys with their unit and known words', () => {
    expect(humanise('max_run_minutes')).toBe('Max run minutes');
    expect(humanise('precip_rate_mm_hr')).toBe('Precip rate (mm/h)');
    expect(humanise('heat_advisory_temp_f')).toBe('Heat advisory temp (°F)');
    expect(humanise('rain_skip_in')).toBe('Rain skip (in)');
    expect(humanise('elevation_m')).toBe('Elevation (m)');
    expect(humanise('area_sqft')).toBe('Area (sq ft)');
    expect(humanise('lat')).toBe('Latitude');
    expect(humanise('controller_id')).toBe('Controller ID');
    expect(humanise('et0_method')).toBe('ET0 method');
    expect(humanise('mqtt')).toBe('MQTT');
    expect(humanise('session_ttl_days')).toBe('Session TTL days');
  });

  it('singularises section names for entry legends and writes sentences', () => {
    expect(singular('Sources')).toBe('Source');
    expect(singular('Zones')).toBe('Zone');
    expect(singular('Field source chains')).toBe('Field source chain');
    expect(singular('Field source chain')).toBe('Field source chain');
    expect(sentence('null = catalog default')).toBe('Empty = catalog default.');
    expect(sentence('IANA name; null derives it from lat/lon')).toBe(
      'IANA name; empty derives it from lat/lon.',
    );
    expect(optionLabel('st_augustine')).toBe('St augustine');
    expect(optionLabel('mp_rotator')).toBe('MP rotator');
    expect(optionLabel('x', { x: 'Titled' })).toBe('Titled');
  });
});

describe('validation paths onto fields', () => {
  it('formats and parses the server report paths', () => {
    expect(formatPath(['zones', 'front_lawn', 'max_run_minutes'])).toBe('$.zones.front_lawn.max_run_minutes');
    expect(formatPath(['sources', 0, 'id'])).toBe('$.sources[0].id');
    expect(formatPath(['zones', 'a-b'])).toBe('$.zones["a-b"]');
    expect(parsePath('$.zones.front_lawn.max_run_minutes')).toEqual([
      'zones',
      'front_lawn',
      'max_run_minutes',
    ]);
    expect(parsePath('$.sources[0].config.bind_addr')).toEqual(['sources', 0, 'config', 'bind_addr']);
    expect(parsePath('$.zones["a-b"].x')).toEqual(['zones', 'a-b', 'x']);
    expect(parsePath('$')).toEqual([]);
    expect(parsePath('zones.x')).toBeNull();
  });

  it('gives every field a distinct DOM id', () => {
    expect(fieldId(['zones', 'front_lawn', 'max_run_minutes'])).toBe('cfg-zones-front_lawn-max_run_minutes');
    expect(fieldId(['zones', 'a-b'])).not.toBe(fieldId(['zones', 'a_b']));
    expect(fieldId(['sources', 0])).toBe('cfg-sources-0');
  });

  it('lists the rendered paths, entries of records and arrays included', () => {
    const paths = renderedPaths(root, demoDoc);
    expect(paths.has('$.zones.front_lawn.max_run_minutes')).toBe(true);
    expect(paths.has('$.sources[0].config')).toBe(true);
    expect(paths.has('$.controllers')).toBe(true);
    expect(paths.has('$.engine.skip_rules.max_wind_mph')).toBe(true);
    // An absent optional section renders no fields inside it.
    expect(paths.has('$.llm')).toBe(true);
    expect(paths.has('$.llm.provider')).toBe(false);
  });

  it('places the real validator’s errors at the field, the JSON block or the fieldset they name', () => {
    const doc = structuredClone(demoDoc) as JsonObject;
    const zone = (doc.zones as JsonObject).front_lawn as JsonObject;
    zone.max_run_minutes = 1;
    zone.bogus = true;
    const report = validateDocument(doc, {}).report;
    expect(report.ok).toBe(false);
    const placed = placeEntries(report, renderedPaths(root, doc));
    const error = placed.find((e) => e.severity === 'error');
    expect(error).toMatchObject({
      field: '$.zones.front_lawn.max_run_minutes',
      code: 'zone_max_run_minutes_range',
    });
    // The unknown key is not a rendered field: the warning lands on its zone's fieldset.
    const warning = placed.find((e) => e.code === 'unknown_field');
    expect(warning).toMatchObject({ severity: 'warning', field: '$.zones.front_lawn' });

    const extra = placeEntries(
      {
        errors: [
          { code: 'x', path: '$.sources[0].config.bind_addr', message: 'bad' },
          { code: 'default_controller_count', path: '$.controllers', message: 'one default' },
          { code: 'toml_parse', path: '$', message: 'broken' },
        ],
        warnings: [],
      },
      renderedPaths(root, doc),
    );
    expect(extra.map((e) => e.field)).toEqual(['$.sources[0].config', '$.controllers', null]);
  });

  it('reads the report out of a 422 body and ignores other bodies', () => {
    const body: JsonValue = {
      error: 'config_invalid',
      code: 'config_invalid',
      validation: {
        ok: false,
        errors: [{ code: 'too_small', path: '$.deployment.location.lat', message: 'Too small' }],
        warnings: [],
      },
    };
    expect(reportOf(body)).toEqual({
      ok: false,
      errors: [{ code: 'too_small', path: '$.deployment.location.lat', message: 'Too small' }],
      warnings: [],
    });
    expect(reportOf({ error: 'nope' })).toBeNull();
    expect(reportOf('text')).toBeNull();
  });
});
