import { cloudSourceKind, LOCAL_SOURCE_KINDS, type SourceKindInfo } from '../../web/app/pages/wizard/catalog';
import { md5Hex } from '../../web/app/pages/wizard/md5';
import {
  changeControllerKind,
  controllerEntry,
  controllerFromDiscovered,
  describeControllerTest,
  discoveredAddress,
  discoveredFilledNote,
  discoveredInUse,
  discoveredKind,
  discoveredValues,
  draftToForm,
  formToDraft,
  mergeScannedZones,
  newZone,
  parseNumber,
  preselectDiscovered,
  REDACTED,
  schemaEnums,
  slugify,
  soakedDeclarations,
  stepForPath,
  uniqueName,
  validateController,
  validateLocation,
  validateSources,
  validateZones,
  validationEntries,
  wizardSteps,
  zoneKeys,
  zoneMissing,
  type DiscoveredController,
  type JsonObject,
  type WizardForm,
} from '../../web/app/pages/wizard/model';

const KINDS: SourceKindInfo[] = [
  cloudSourceKind({ kind: 'nws', label: 'US National Weather Service' }),
  cloudSourceKind({ kind: 'open_meteo', label: 'Open-Meteo forecast model' }),
  cloudSourceKind({ kind: 'openweather', label: 'OpenWeatherMap', needs_api_key: true }),
  ...LOCAL_SOURCE_KINDS,
];

/** GET /config before the wizard has written anything (server/src/config/baseline.ts). */
const BASELINE: JsonObject = {
  schema_version: 2,
  deployment: { location: { lat: 40.7, lon: -74 }, units: 'imperial' },
  sources: [{ id: 'open_meteo', priority: 50, enabled: true, kind: 'open_meteo', config: { past_days: 3 } }],
  controllers: [],
  zones: {},
};

/** A live config seeded into the draft: secrets redacted, keys the wizard does not edit. */
const SEEDED: JsonObject = {
  schema_version: 2,
  deployment: {
    location: { lat: 30.27, lon: -97.74, elevation_m: 150 },
    units: 'metric',
    timezone: 'America/Chicago',
    display_name: 'Home',
  },
  features: { enable_push: false },
  sources: [
    {
      id: 'hub',
      priority: 100,
      enabled: true,
      kind: 'tempest_udp',
      config: { hub_serial: 'HB-1', bind_addr: '0.0.0.0:50222' },
    },
    {
      id: 'hook',
      priority: 10,
      enabled: true,
      kind: 'http_webhook',
      config: { secret: REDACTED, fields: [] },
    },
    { id: 'nws', priority: 50, enabled: true, kind: 'nws', config: {} },
  ],
  controllers: [
    {
      id: 'os',
      default: true,
      enabled: true,
      kind: 'opensprinkler',
      config: { host: '10.0.0.5', port: 8080, password_md5: REDACTED, poll_interval_s: 30 },
    },
    { id: 'spare', default: false, enabled: false, kind: 'dry_run', config: {} },
  ],
  zones: {
    front_lawn: {
      display_name: 'Front lawn',
      species: 'bermuda',
      soil_texture: 'clay',
      sprinkler_type: 'rotor',
      sun_exposure: 'full',
      area_sqft: 900,
      controller_id: 'os',
      controller_station: '1',
      max_run_minutes: 45,
    },
    shed: { display_name: 'Shed beds', controller_id: 'spare', species: 'ornamental_shrubs' },
  },
  engine: { forecast_provider: 'nws', soak_minutes: 20 },
  auth: { mode: 'disabled' },
};

describe('draft <-> form', () => {
  it('round-trips a seeded config without losing or changing anything the wizard does not edit', () => {
    const form = draftToForm(SEEDED, KINDS);
    const draft = formToDraft(form, KINDS);
    expect(draft.features).toEqual({ enable_push: false });
    expect(draft.auth).toEqual({ mode: 'disabled' });
    expect(draft.deployment).toEqual(SEEDED.deployment);
    // Same entries (the webhook, a kind the wizard does not edit, verbatim with its sentinel), catalog order.
    const byId = (list: unknown) =>
      [...(list as JsonObject[])].sort((a, b) => String(a.id).localeCompare(String(b.id)));
    expect(byId(draft.sources)).toEqual(byId(SEEDED.sources));
    const zones = draft.zones as JsonObject;
    expect(zones.front_lawn).toEqual((SEEDED.zones as JsonObject).front_lawn);
    // A zone bound to a kept controller stays bound to it.
    expect((zones.shed as JsonObject).controller_id).toBe('spare');
    expect(draft.engine).toEqual({ forecast_provider: 'nws', soak_minutes: 20 });
    // The untouched secret goes back as the sentinel: the service keeps the stored hash.
    const controllers = draft.controllers as JsonObject[];
    expect(controllers[0]).toEqual((SEEDED.controllers as JsonObject[])[0]);
    expect(controllers[1]).toMatchObject({ id: 'spare', default: false });
  });

  it('drops the forecast pin when its source is no longer selected', () => {
    const form = draftToForm(SEEDED, KINDS);
    expect(form.forecastProvider).toBe('nws');
    const sources = form.sources.map((s) => (s.id === 'nws' ? { ...s, selected: false } : s));
    const draft = formToDraft({ ...form, sources }, KINDS);
    expect((draft.sources as JsonObject[]).map((s) => s.id)).not.toContain('nws');
    expect((draft.engine as JsonObject).forecast_provider).toBeUndefined();
    expect((draft.engine as JsonObject).soak_minutes).toBe(20);
  });

  it('reads the location as text and writes numbers; an empty elevation is unknown, never 0', () => {
    const form = draftToForm(BASELINE, KINDS);
    expect(form.location).toEqual({
      lat: '40.7',
      lon: '-74',
      timezone: '',
      elevation: '',
      units: 'imperial',
    });
    const draft = formToDraft(
      {
        ...form,
        location: { ...form.location, lat: ' 40,7128 ', lon: '-74.006', timezone: 'America/New_York' },
      },
      KINDS,
    );
    const deployment = draft.deployment as JsonObject;
    expect(deployment.location).toEqual({ lat: 40.7128, lon: -74.006 });
    expect(deployment.timezone).toBe('America/New_York');
    expect('elevation_m' in (deployment.location as JsonObject)).toBe(false);
  });

  it('builds new sources, a new controller and new zones on a baseline', () => {
    const form = draftToForm(BASELINE, KINDS);
    // The baseline source is selected; the other kinds are offered unselected with unique ids.
    expect(form.sources.filter((s) => s.selected).map((s) => s.id)).toEqual(['open_meteo']);
    expect(form.controller).toMatchObject({ id: 'dry_run', kind: 'dry_run', original: null });
    const withChoices: WizardForm = {
      ...form,
      sources: form.sources.map((s) =>
        s.kind === 'ecowitt_local' ? { ...s, selected: true, values: { host: ' 192.168.1.60 ' } } : s,
      ),
      zones: [{ ...newZone('Front lawn'), area: '600', species: 'tall_fescue' }, newZone('Back  Lawn!')],
    };
    const draft = formToDraft(withChoices, KINDS);
    expect(draft.sources).toEqual([
      { id: 'open_meteo', priority: 50, enabled: true, kind: 'open_meteo', config: { past_days: 3 } },
      {
        id: 'ecowitt_local',
        priority: 100,
        enabled: true,
        kind: 'ecowitt_local',
        config: { host: '192.168.1.60' },
      },
    ]);
    expect(draft.controllers).toEqual([
      { enabled: true, id: 'dry_run', kind: 'dry_run', default: true, config: {} },
    ]);
    expect(draft.zones).toEqual({
      front_lawn: {
        display_name: 'Front lawn',
        species: 'tall_fescue',
        area_sqft: 600,
        controller_id: 'dry_run',
      },
      back_lawn: { display_name: 'Back  Lawn!', controller_id: 'dry_run' },
    });
  });

  it('hashes a typed OpenSprinkler password and keeps the stored one when the input is empty', () => {
    const form = draftToForm(SEEDED, KINDS);
    expect(form.controller.values.password_md5).toBe('');
    const kept = controllerEntry(form);
    expect((kept.config as JsonObject).password_md5).toBe(REDACTED);
    const typed = controllerEntry({
      ...form,
      controller: { ...form.controller, values: { ...form.controller.values, password_md5: 'opendoor' } },
    });
    expect((typed.config as JsonObject).password_md5).toBe('a6d82bced638de3def1e9bbb4983225c');
    expect((typed.config as JsonObject).poll_interval_s).toBe(30);
  });

  it('starts a fresh config block when the controller kind changes, keeping a stored id', () => {
    const form = draftToForm(SEEDED, KINDS);
    const changed = changeControllerKind(form.controller, 'rachio');
    expect(changed).toMatchObject({ id: 'os', kind: 'rachio', values: { api_key: '', device_id: '' } });
    const entry = controllerEntry({
      ...form,
      controller: { ...changed, values: { api_key: 'k-1', device_id: '' } },
    });
    expect(entry).toMatchObject({ id: 'os', kind: 'rachio', default: true, config: { api_key: 'k-1' } });
    expect(entry.config).not.toHaveProperty('host');
    // A new controller takes its kind's name as id.
    expect(changeControllerKind(draftToForm(BASELINE, KINDS).controller, 'opensprinkler').id).toBe(
      'opensprinkler',
    );
  });

  it('binds MQTT zones through zone_command_map instead of controller_station', () => {
    const form = draftToForm(BASELINE, KINDS);
    const mqtt: WizardForm = {
      ...form,
      controller: {
        ...changeControllerKind(form.controller, 'mqtt_command'),
        values: { broker_host: 'mqtt.local', broker_port: '1883', username: '', password: '', tls: 'false' },
      },
      zones: [{ ...newZone('Front lawn'), station: 'cmnd/sprinkler/POWER1' }],
    };
    const draft = formToDraft(mqtt, KINDS);
    const controller = (draft.controllers as JsonObject[])[0] as JsonObject;
    expect(controller.config).toEqual({
      broker_host: 'mqtt.local',
      broker_port: 1883,
      zone_command_map: { front_lawn: { command_topic: 'cmnd/sprinkler/POWER1' } },
    });
    expect((draft.zones as JsonObject).front_lawn).not.toHaveProperty('controller_station');
    // ...and reads it back into the zone's station.
    expect(draftToForm(draft, KINDS).zones[0]?.station).toBe('cmnd/sprinkler/POWER1');
  });

  it('keeps existing zone keys when a zone is renamed, and makes new keys unique', () => {
    const form = draftToForm(SEEDED, KINDS);
    const renamed = form.zones.map((z) => (z.key === 'front_lawn' ? { ...z, name: 'Street side' } : z));
    const zones = [...renamed, newZone('Front lawn'), newZone('Front lawn')];
    expect(zoneKeys(zones)).toEqual(['front_lawn', 'shed', 'front_lawn_2', 'front_lawn_3']);
  });
});

describe('names', () => {
  it('slugifies names into the schema key pattern', () => {
    expect(slugify('Front lawn')).toBe('front_lawn');
    expect(slugify('  Côté jardin #2 ')).toBe('cote_jardin_2');
    expect(slugify('!!!')).toBe('zone');
    const long = slugify('x'.repeat(80));
    expect(long).toHaveLength(64);
    expect(long).toMatch(/^[a-z0-9][a-z0-9_]{0,63}$/);
  });

  it('finds a free name', () => {
    expect(uniqueName('a', new Set())).toBe('a');
    expect(uniqueName('a', new Set(['a', 'a_2']))).toBe('a_3');
  });

  it('parses numbers as people type them', () => {
    expect(parseNumber('40.7128')).toBe(40.7128);
    expect(parseNumber(' -74 ')).toBe(-74);
    expect(parseNumber('52,52')).toBe(52.52);
    expect(parseNumber('')).toBeNull();
    expect(parseNumber('12abc')).toBeNull();
    expect(parseNumber('1,000.5')).toBeNull();
    expect(parseNumber('1e999')).toBeNull();
  });
});

describe('validation', () => {
  it('checks the location ranges and never requires an elevation', () => {
    expect(
      validateLocation({ lat: '40.7', lon: '-74', timezone: '', elevation: '', units: 'imperial' }),
    ).toEqual({});
    const errors = validateLocation({
      lat: '91',
      lon: '',
      timezone: '',
      elevation: 'high',
      units: 'imperial',
    });
    expect(Object.keys(errors).sort()).toEqual(['elevation', 'lat', 'lon']);
  });

  it('requires the fields of selected sources only, and accepts a stored secret', () => {
    const form = draftToForm(BASELINE, KINDS);
    expect(validateSources(form, KINDS)).toEqual({});
    const ow = form.sources.find((s) => s.kind === 'openweather');
    if (!ow) throw new Error('openweather offered');
    const selected = { ...form, sources: form.sources.map((s) => (s === ow ? { ...s, selected: true } : s)) };
    expect(validateSources(selected, KINDS)).toEqual({
      'source.openweather.api_key': 'API key is required.',
    });
    const stored = {
      ...selected,
      sources: selected.sources.map((s) =>
        s.kind === 'openweather'
          ? { ...s, original: { id: 'openweather', kind: 'openweather', config: { api_key: REDACTED } } }
          : s,
      ),
    };
    expect(validateSources(stored, KINDS)).toEqual({});
  });

  it('checks controller fields by kind', () => {
    const form = draftToForm(BASELINE, KINDS);
    expect(validateController(form.controller)).toEqual({});
    const os = changeControllerKind(form.controller, 'opensprinkler');
    expect(Object.keys(validateController(os)).sort()).toEqual([
      'controller.host',
      'controller.password_md5',
    ]);
    const bad = { ...os, id: 'has space', values: { host: 'os.local', port: '99999', password_md5: 'x' } };
    expect(validateController(bad)).toEqual({
      'controller.port': 'Port must be between 1 and 65535.',
      'controller.id': 'The id takes 1-64 letters, digits, "_", "." or "-".',
    });
    // A stored password (same kind) is not asked for again.
    expect(validateController(draftToForm(SEEDED, KINDS).controller)).toEqual({});
  });

  it('checks zone names, areas and stations for the controller kind', () => {
    const a = { ...newZone('Lawn'), area: '-3', station: 'x' };
    const b = { ...newZone('lawn'), station: '2' };
    const c = newZone('');
    const errors = validateZones([a, b, c], 'opensprinkler');
    expect(errors[`zone.${a.uid}.area`]).toMatch(/above 0/);
    expect(errors[`zone.${a.uid}.station`]).toBe('Expected something like "1".');
    expect(errors[`zone.${b.uid}.name`]).toMatch(/already/);
    expect(errors[`zone.${b.uid}.station`]).toBeUndefined();
    expect(errors[`zone.${c.uid}.name`]).toBe('Give the zone a name.');
    // The dry run takes any station.
    expect(validateZones([{ ...newZone('Lawn'), station: 'anything' }], 'dry_run')).toEqual({});
  });

  it("checks a zone's last soaked date: optional, a real date, not in the future", () => {
    const ok = { ...newZone('Lawn'), soakedOn: '2025-06-01' };
    const future = { ...newZone('Beds'), soakedOn: '2025-06-20' };
    const junk = { ...newZone('Strip'), soakedOn: 'last week' };
    const errors = validateZones([ok, future, junk, newZone('Empty')], 'dry_run', '2025-06-16');
    expect(errors[`zone.${ok.uid}.soaked`]).toBeUndefined();
    expect(errors[`zone.${future.uid}.soaked`]).toBe('The date cannot be in the future.');
    expect(errors[`zone.${junk.uid}.soaked`]).toBe('Enter a date (YYYY-MM-DD).');
    expect(Object.keys(errors)).toHaveLength(2);
  });

  it('posts one soaked declaration per zone with a date, under the key the config gives the zone', () => {
    const lawn = { ...newZone('Front lawn'), soakedOn: '2025-06-01' };
    const kept = { ...newZone('Renamed'), key: 'back_lawn', soakedOn: ' 2025-06-02 ' };
    expect(soakedDeclarations({ zones: [lawn, newZone('Beds'), kept] })).toEqual([
      { zone: 'front_lawn', date: '2025-06-01' },
      { zone: 'back_lawn', date: '2025-06-02' },
    ]);
  });

  it('says what a zone lacks for the engine to model it', () => {
    expect(zoneMissing(newZone('x'))).toEqual(['species', 'soil', 'sprinkler']);
    const measured = {
      ...newZone('x'),
      species: 'bermuda',
      soil: 'loam',
      original: { precip_rate_mm_hr: 12 },
    };
    expect(zoneMissing(measured)).toEqual([]);
  });
});

describe('server answers', () => {
  it('maps validation paths to the step that holds them', () => {
    expect(stepForPath('$.deployment.location.lat')).toBe('location');
    expect(stepForPath('$.sources[1].config.host')).toBe('sources');
    expect(stepForPath('$.engine.forecast_provider')).toBe('sources');
    expect(stepForPath('$.controllers[0].config.password_md5')).toBe('controller');
    expect(stepForPath('$.zones["Bad Slug"]')).toBe('zones');
    expect(stepForPath('$.notifications.mqtt.host')).toBeNull();
  });

  it('reads the errors of a 422 config_invalid body', () => {
    const body = {
      error: 'config_invalid',
      validation: {
        ok: false,
        errors: [{ code: 'location_range', path: '$.deployment.location.lat', message: 'Too big' }],
        warnings: [{ code: 'zone_unbound', path: '$.zones.a', message: 'w' }],
      },
    };
    expect(validationEntries(body)).toEqual([
      { code: 'location_range', path: '$.deployment.location.lat', message: 'Too big' },
    ]);
    expect(validationEntries('nope')).toEqual([]);
  });

  it('describes a controller test with unknowns as unknown, never 0', () => {
    expect(
      describeControllerTest({
        ok: true,
        reachable: true,
        zone_count: null,
        firmware: null,
        water_level_pct: null,
      }),
    ).toBe('Reachable · zone count unknown · firmware unknown · water level unknown');
    expect(
      describeControllerTest({
        reachable: true,
        zone_count: 1,
        firmware: '2.2.0',
        water_level_pct: 0,
        master_enabled: false,
      }),
    ).toBe('Reachable · 1 zone · firmware 2.2.0 · water level 0 % · watering disabled on the controller');
  });

  it('merges scanned zones: known stations get their label, blank zones are replaced, new stations added', () => {
    const bound = { ...newZone('Front'), station: '1' };
    const blank = newZone('');
    const merged = mergeScannedZones(
      [bound, blank],
      [
        { station_id: '1', name: 'S01' },
        { station_id: '2', name: 'Back yard' },
        { station_id: '3', name: null },
      ],
    );
    expect(merged.map((z) => [z.name, z.station, z.stationName])).toEqual([
      ['Front', '1', 'S01'],
      ['Back yard', '2', 'Back yard'],
      ['Zone 3', '3', ''],
    ]);
  });

  it('pre-selects a discovered Tempest hub with its serial', () => {
    const form = draftToForm(BASELINE, KINDS);
    const next = preselectDiscovered(form.sources, {
      listened_ms: 3000,
      error: null,
      gateways: [
        {
          kind: 'tempest_hub',
          serial: 'HB-00099',
          host: '192.168.1.9',
          stations: ['ST-1'],
          suggested_source: {
            kind: 'tempest_udp',
            priority: 100,
            config: { bind_addr: '0.0.0.0:50222', hub_serial: 'HB-00099' },
          },
        },
      ],
    });
    expect(next.find((s) => s.kind === 'tempest_udp')).toMatchObject({
      selected: true,
      values: { hub_serial: 'HB-00099' },
    });
    expect(formToDraft({ ...form, sources: next }, KINDS).sources).toContainEqual({
      id: 'tempest_udp',
      priority: 100,
      enabled: true,
      kind: 'tempest_udp',
      config: { hub_serial: 'HB-00099' },
    });
  });

  it('reads the zone enums from the config JSON Schema', () => {
    const schema = {
      properties: {
        deployment: { properties: { units: { type: 'string', enum: ['imperial', 'metric'] } } },
        zones: {
          additionalProperties: {
            properties: {
              species: { anyOf: [{ type: 'string', enum: ['bermuda', 'other'] }, { type: 'null' }] },
              soil_texture: { anyOf: [{ type: 'string', enum: ['loam'] }, { type: 'null' }] },
              sprinkler_type: { enum: ['rotor'] },
              sun_exposure: { anyOf: [{ type: 'null' }] },
            },
          },
        },
      },
    };
    expect(schemaEnums(schema)).toEqual({
      species: ['bermuda', 'other'],
      soil_texture: ['loam'],
      sprinkler_type: ['rotor'],
      sun_exposure: [],
      units: ['imperial', 'metric'],
    });
    expect(schemaEnums(null).species).toEqual([]);
  });

  it('lists the owner account step only while no account exists', () => {
    expect(wizardSteps(false)).toEqual(['location', 'sources', 'controller', 'zones', 'account', 'review']);
    expect(wizardSteps(true)).not.toContain('account');
  });
});

describe('discovered controllers', () => {
  /** As GET /wizard/discover lists them (server/src/wizard/mdns-records.ts). */
  const OPENSPRINKLER: DiscoveredController = {
    kind: 'opensprinkler',
    name: 'OpenSprinkler Backyard',
    host: '192.168.1.40',
    port: 80,
    source: 'mdns',
    suggested_controller: { kind: 'opensprinkler', config: { host: '192.168.1.40', port: 80 } },
  };
  const ESPHOME: DiscoveredController = {
    kind: 'esphome',
    name: 'Garden Valves',
    host: '192.168.1.50',
    port: 6053,
    source: 'mdns',
    suggested_controller: { kind: 'esphome_native', config: { base_url: 'http://192.168.1.50:8080' } },
  };

  it('names the kind from the catalog and shows host:port (IPv6 in brackets)', () => {
    expect(discoveredKind(OPENSPRINKLER).label).toBe('OpenSprinkler (direct HTTP)');
    expect(discoveredKind(ESPHOME).label).toBe('ESPHome (web_server REST)');
    expect(discoveredAddress(OPENSPRINKLER)).toBe('192.168.1.40:80');
    expect(discoveredAddress(ESPHOME)).toBe('192.168.1.50:6053');
    expect(discoveredAddress({ ...ESPHOME, host: 'fe80::1' })).toBe('[fe80::1]:6053');
  });

  it('fills a new controller with the suggested kind and fields, leaving the password to the user', () => {
    const form = draftToForm(BASELINE, KINDS);
    expect(form.controller.kind).toBe('dry_run');
    const controller = controllerFromDiscovered(form.controller, OPENSPRINKLER);
    expect(controller).toMatchObject({
      id: 'opensprinkler',
      kind: 'opensprinkler',
      values: { host: '192.168.1.40', port: '80', password_md5: '' },
      original: null,
    });
    expect(controllerEntry({ ...form, controller })).toEqual({
      enabled: true,
      id: 'opensprinkler',
      kind: 'opensprinkler',
      default: true,
      config: { host: '192.168.1.40', port: 80 },
    });
    // Next is refused until the password is typed.
    expect(validateController(controller)).toEqual({
      'controller.password_md5': 'Device password is required.',
    });
    const typed = { ...controller, values: { ...controller.values, password_md5: 'opendoor' } };
    expect(validateController(typed)).toEqual({});
    expect(controllerEntry({ ...form, controller: typed }).config).toEqual({
      host: '192.168.1.40',
      port: 80,
      password_md5: md5Hex('opendoor'),
    });
  });

  it('fills an ESPHome board as esphome_native with its web_server base URL', () => {
    const form = draftToForm(BASELINE, KINDS);
    const controller = controllerFromDiscovered(form.controller, ESPHOME);
    expect(controller.kind).toBe('esphome_native');
    expect(controller.values).toEqual({ base_url: 'http://192.168.1.50:8080', username: '', password: '' });
    expect(validateController(controller)).toEqual({});
    expect(controllerEntry({ ...form, controller }).config).toEqual({ base_url: 'http://192.168.1.50:8080' });
  });

  it('never takes a secret or a key the form has no field for from a suggestion', () => {
    const odd: DiscoveredController = {
      ...OPENSPRINKLER,
      suggested_controller: {
        kind: 'opensprinkler',
        config: { host: '10.1.1.1', password_md5: 'a6d82bced638de3def1e9bbb4983225c', poll_interval_s: 5 },
      },
    };
    expect(discoveredValues(odd)).toEqual({ host: '10.1.1.1' });
    const form = draftToForm(BASELINE, KINDS);
    const controller = controllerFromDiscovered(form.controller, odd);
    expect(controller.values.password_md5).toBe('');
    expect(controllerEntry({ ...form, controller }).config).toEqual({ host: '10.1.1.1' });
  });

  it('keeps what was typed for the same kind and tells which device is in use', () => {
    const form = draftToForm(BASELINE, KINDS);
    const os = changeControllerKind(form.controller, 'opensprinkler');
    const typed = { ...os, values: { ...os.values, host: 'old.local', password_md5: 'secret' } };
    expect(discoveredInUse(typed, OPENSPRINKLER)).toBe(false);
    const controller = controllerFromDiscovered(typed, OPENSPRINKLER);
    expect(controller.values).toEqual({ host: '192.168.1.40', port: '80', password_md5: 'secret' });
    expect(discoveredInUse(controller, OPENSPRINKLER)).toBe(true);
    expect(discoveredInUse(controller, ESPHOME)).toBe(false);
    // Switching to the other device changes the kind and starts a fresh config block.
    const esp = controllerFromDiscovered(controller, ESPHOME);
    expect(esp).toMatchObject({ id: 'esphome_native', kind: 'esphome_native' });
    expect(esp.values.password).toBe('');
  });

  it('keeps a stored controller and its secret when the same device is picked', () => {
    const form = draftToForm(SEEDED, KINDS);
    const same: DiscoveredController = {
      ...OPENSPRINKLER,
      host: '10.0.0.5',
      port: 8080,
      suggested_controller: { kind: 'opensprinkler', config: { host: '10.0.0.5', port: 8080 } },
    };
    expect(discoveredInUse(form.controller, same)).toBe(true);
    expect(controllerFromDiscovered(form.controller, same)).toBe(form.controller);
    expect(controllerEntry(form).config).toMatchObject({ password_md5: REDACTED });
  });

  it('forgets the stored secret when another device replaces a stored controller (its id stays)', () => {
    const form = draftToForm(SEEDED, KINDS);
    const controller = controllerFromDiscovered(form.controller, OPENSPRINKLER);
    expect(controller.id).toBe('os');
    expect(validateController(controller)).toEqual({
      'controller.password_md5': 'Device password is required.',
    });
    const entry = controllerEntry({ ...form, controller });
    // No redacted sentinel beside the new address (the service would refuse it); other settings kept.
    expect(entry).toMatchObject({ id: 'os', kind: 'opensprinkler', enabled: true, default: true });
    expect(entry.config).toEqual({ host: '192.168.1.40', port: 80, poll_interval_s: 30 });
    // The seeded form itself is untouched.
    expect(controllerEntry(form).config).toMatchObject({ host: '10.0.0.5', password_md5: REDACTED });
  });

  it('says what is left to type after filling', () => {
    expect(discoveredFilledNote(OPENSPRINKLER)).toBe(
      'Filled in from OpenSprinkler Backyard (OpenSprinkler (direct HTTP) at 192.168.1.40). ' +
        'Type the device password yourself (it is never discovered), then press Test controller.',
    );
    expect(discoveredFilledNote(ESPHOME)).toBe(
      'Filled in from Garden Valves (ESPHome (web_server REST) at 192.168.1.50). ' +
        'Fill in the web server password only if the device needs one, then press Test controller.',
    );
  });
});

describe('md5', () => {
  it('matches the RFC 1321 test suite and OpenSprinkler default password', () => {
    expect(md5Hex('')).toBe('d41d8cd98f00b204e9800998ecf8427e');
    expect(md5Hex('a')).toBe('0cc175b9c0f1b6a831c399e269772661');
    expect(md5Hex('abc')).toBe('900150983cd24fb0d6963f7d28e17f72');
    expect(md5Hex('message digest')).toBe('f96b697d7cb7938d525a2f31aaf161d0');
    expect(md5Hex('abcdefghijklmnopqrstuvwxyz')).toBe('c3fcd3d76192e4007dfb496cca67e13b');
    expect(md5Hex('12345678901234567890123456789012345678901234567890123456789012345678901234567890')).toBe(
      '57edf4a22be3c955ac49da2e2107b67a',
    );
    expect(md5Hex('opendoor')).toBe('a6d82bced638de3def1e9bbb4983225c');
  });

  it('hashes UTF-8 bytes', () => {
    const { createHash } = jest.requireActual<typeof import('node:crypto')>('node:crypto');
    for (const text of ['pässwörd', '日本語', '🌧️ rain']) {
      expect(md5Hex(text)).toBe(createHash('md5').update(text, 'utf8').digest('hex'));
    }
  });
});
