import { z } from 'zod';
import { environmentBaseline } from '../../server/src/config/baseline';
import { demoConfig, demoSeed } from '../../server/src/config/demo-config';
import { parseEnv } from '../../server/src/config/env';
import type { JsonObject } from '../../server/src/config/json-walk';
import { registerControllerKind } from '../../server/src/config/kinds';
import { CURRENT_SCHEMA_VERSION } from '../../server/src/config/schema';
import { withoutNulls } from '../../server/src/config/toml';
import { validateDocument, type ValidationEntry } from '../../server/src/config/validate';
import { useBuiltinKinds, validDoc } from '../helpers/config-fixtures';

useBuiltinKinds();

/** Any object: the test kind's config block is not under test here. */
const anyConfigBlock = z.record(z.string(), z.unknown());

function validate(doc: unknown): { errors: ValidationEntry[]; warnings: ValidationEntry[]; ok: boolean } {
  return validateDocument(doc, {}).report;
}

function codes(entries: ValidationEntry[]): string[] {
  return entries.map((e) => e.code);
}

function withZone(zone: JsonObject, extra: (doc: JsonObject) => void = () => {}): JsonObject {
  const doc = validDoc();
  doc.zones = { front_lawn: zone };
  extra(doc);
  return doc;
}

const OPENSPRINKLER = {
  id: 'os',
  default: true,
  enabled: true,
  kind: 'opensprinkler',
  config: { host: '192.168.1.50', password_md5: '0123456789abcdef0123456789abcdef' },
};
const HA = { id: 'ha', default: true, enabled: true, kind: 'ha_service_call', config: {} };

describe('the baseline fixture', () => {
  it('validates with no errors and no warnings', () => {
    const report = validate(validDoc());
    expect(report).toEqual({ ok: true, errors: [], warnings: [] });
  });
});

describe('validation errors', () => {
  it('duplicate source id', () => {
    const doc = validDoc();
    (doc.sources as JsonObject[])[1]!.id = 'forecast';
    const { errors, ok } = validate(doc);
    expect(ok).toBe(false);
    expect(errors).toEqual([
      expect.objectContaining({ code: 'duplicate_source_id', path: '$.sources[1].id' }),
    ]);
  });

  it('duplicate controller id', () => {
    const doc = validDoc();
    doc.controllers = [
      { id: 'dry', default: true, kind: 'dry_run' },
      { id: 'dry', default: false, kind: 'dry_run' },
    ];
    expect(validate(doc).errors).toEqual([
      expect.objectContaining({ code: 'duplicate_controller_id', path: '$.controllers[1].id' }),
    ]);
  });

  it('zero default controllers when controllers exist', () => {
    const doc = validDoc();
    doc.controllers = [{ id: 'dry', default: false, kind: 'dry_run' }];
    expect(validate(doc).errors).toEqual([
      expect.objectContaining({ code: 'default_controller_count', path: '$.controllers' }),
    ]);
  });

  it('a controller without `default` is not a default', () => {
    const doc = validDoc();
    doc.controllers = [{ id: 'dry', kind: 'dry_run' }];
    expect(codes(validate(doc).errors)).toEqual(['default_controller_count']);
  });

  it('two default controllers', () => {
    const doc = validDoc();
    doc.controllers = [
      { id: 'dry', default: true, kind: 'dry_run' },
      { id: 'dry2', default: true, kind: 'dry_run' },
    ];
    const { errors } = validate(doc);
    expect(errors).toEqual([
      expect.objectContaining({ code: 'default_controller_count', path: '$.controllers' }),
    ]);
    expect(errors[0]?.message).toContain('2');
  });

  it('zero controllers (and zero sources) is valid', () => {
    const doc = validDoc();
    doc.controllers = [];
    doc.sources = [];
    doc.zones = {};
    expect(validate(doc)).toEqual({ ok: true, errors: [], warnings: [] });
  });

  it('a zone naming an unknown controller', () => {
    const doc = withZone({ controller_id: 'nope', controller_station: '1' });
    expect(validate(doc).errors).toEqual([
      expect.objectContaining({ code: 'zone_controller_unknown', path: '$.zones.front_lawn.controller_id' }),
    ]);
  });

  it('a time zone that is no IANA name is refused; a real one passes (found by the fuzz test)', () => {
    for (const bad of ['XHK', 'Not/AZone', 'America/New_Yorkk']) {
      const doc = validDoc();
      (doc.deployment as JsonObject).timezone = bad;
      expect(validate(doc).errors).toEqual([
        expect.objectContaining({ code: 'timezone_unknown', path: '$.deployment.timezone' }),
      ]);
    }
    const doc = validDoc();
    (doc.deployment as JsonObject).timezone = 'Australia/Adelaide';
    expect(validate(doc).errors).toEqual([]);
  });

  it('an llm provider without what spec 2.6 says it needs', () => {
    const doc = validDoc();
    doc.llm = { provider: 'ollama', base_url: 'http://127.0.0.1:11434' };
    expect(validate(doc).errors).toEqual([expect.objectContaining({ path: '$.llm.model' })]);
    doc.llm = { provider: 'llamacpp' };
    expect(validate(doc).errors).toEqual([expect.objectContaining({ path: '$.llm.base_url' })]);
    doc.llm = { provider: 'llamacpp', base_url: 'http://127.0.0.1:8080' };
    expect(validate(doc).errors).toEqual([]);
    doc.llm = { provider: 'auto', probe_order: ['11434', 'http://127.0.0.1:9000'] };
    expect(validate(doc).errors).toEqual([]);
  });

  it.each([
    ['lat', 90.5],
    ['lat', -91],
    ['lon', 180.01],
    ['lon', -200],
  ])('location %s = %p is out of range', (field, value) => {
    const doc = validDoc();
    ((doc.deployment as JsonObject).location as JsonObject)[field] = value;
    expect(validate(doc).errors).toEqual([
      expect.objectContaining({ code: 'location_range', path: `$.deployment.location.${field}` }),
    ]);
  });

  it('location at the exact limits is valid', () => {
    const doc = validDoc();
    (doc.deployment as JsonObject).location = { lat: -90, lon: 180 };
    expect(validate(doc).errors).toEqual([]);
  });

  it.each([
    ['sessions_per_week', 0, 'zone_sessions_per_week_range'],
    ['sessions_per_week', 8, 'zone_sessions_per_week_range'],
    ['sessions_per_week', 2.5, 'zone_sessions_per_week_range'],
    ['rain_credit_cap_in', 0.01, 'zone_rain_credit_cap_range'],
    ['rain_credit_cap_in', 5.5, 'zone_rain_credit_cap_range'],
    ['max_run_minutes', 4, 'zone_max_run_minutes_range'],
    ['max_run_minutes', 361, 'zone_max_run_minutes_range'],
    ['max_run_minutes', 30.5, 'zone_max_run_minutes_range'],
  ])('zone %s = %p is rejected as %s', (field, value, code) => {
    const doc = validDoc();
    ((doc.zones as JsonObject).back_lawn as JsonObject)[field] = value;
    const { errors } = validate(doc);
    expect(errors).toEqual([expect.objectContaining({ code, path: `$.zones.back_lawn.${field}` })]);
  });

  it.each([
    ['sessions_per_week', 1],
    ['sessions_per_week', 7],
    ['rain_credit_cap_in', 0.05],
    ['rain_credit_cap_in', 5.0],
    ['max_run_minutes', 5],
    ['max_run_minutes', 360],
    ['max_run_minutes', null],
  ])('zone %s = %p is accepted', (field, value) => {
    const doc = validDoc();
    ((doc.zones as JsonObject).back_lawn as JsonObject)[field] = value;
    expect(validate(doc).errors).toEqual([]);
  });

  it('names the range code for a zone whose slug needs quoting in the path', () => {
    const doc = validDoc();
    doc.zones = { '2nd_bed': { sessions_per_week: 9, controller_station: '1' } };
    expect(validate(doc).errors).toEqual([
      expect.objectContaining({
        code: 'zone_sessions_per_week_range',
        path: '$.zones["2nd_bed"].sessions_per_week',
      }),
    ]);
  });

  it.each([59, 3601, 90.5])('cloud controller poll_interval_s = %p is rejected', (value) => {
    const doc = validDoc();
    doc.controllers = [
      { id: 'dry', default: true, kind: 'dry_run' },
      { id: 'cloud', kind: 'rachio', config: { api_key: 'k', poll_interval_s: value } },
    ];
    const { errors } = validate(doc);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.path).toBe('$.controllers[1].config.poll_interval_s');
  });

  it.each([60, 3600, null])('cloud controller poll_interval_s = %p is accepted', (value) => {
    const doc = validDoc();
    doc.controllers = [
      { id: 'dry', default: true, kind: 'dry_run' },
      { id: 'cloud', kind: 'hydrawise', config: { poll_interval_s: value } },
    ];
    expect(validate(doc).errors).toEqual([]);
  });

  it('a per-kind config block is checked by its kind (opensprinkler password_md5)', () => {
    const doc = validDoc();
    doc.controllers = [
      { id: 'dry', default: true, kind: 'dry_run' },
      { id: 'os', kind: 'opensprinkler', config: { host: 'os.local', password_md5: 'not-a-digest' } },
    ];
    expect(validate(doc).errors).toEqual([
      expect.objectContaining({ path: '$.controllers[1].config.password_md5' }),
    ]);
  });

  it.each([
    ['species', 'kudzu'],
    ['soil_texture', 'gravel'],
    ['sun_exposure', 'bright'],
    ['sprinkler_type', 'hose'],
  ])('bad enum: zone %s = %p', (field, value) => {
    const doc = validDoc();
    ((doc.zones as JsonObject).front_lawn as JsonObject)[field] = value;
    const { errors } = validate(doc);
    expect(errors).toEqual([
      expect.objectContaining({ code: 'invalid_value', path: `$.zones.front_lawn.${field}` }),
    ]);
  });

  it('every species and soil texture the contract names is accepted', () => {
    const species = [
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
    ];
    const soils = ['sand', 'loamy_sand', 'sandy_loam', 'loam', 'silt_loam', 'clay_loam', 'clay'];
    const doc = validDoc();
    const zones: JsonObject = {};
    species.forEach((s, i) => {
      zones[`z${i}`] = { species: s, soil_texture: soils[i % soils.length]!, controller_station: '1' };
    });
    doc.zones = zones;
    expect(validate(doc).errors).toEqual([]);
  });

  it('refuses schema_version 3 with a clear message and no other noise', () => {
    const doc = validDoc();
    doc.schema_version = 3;
    doc.bogus_top_level = true;
    const { errors, warnings } = validate(doc);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: 'schema_version_unsupported', path: '$.schema_version' });
    expect(errors[0]?.message).toMatch(/schema_version 3/);
    expect(errors[0]?.message).toMatch(/upgrade/i);
    expect(warnings).toEqual([]);
  });

  it.each([undefined, '2', 0, 1.5])('refuses schema_version %p as missing or malformed', (value) => {
    const doc = validDoc();
    if (value === undefined) delete doc.schema_version;
    else doc.schema_version = value;
    expect(codes(validate(doc).errors)).toEqual(['schema_version_missing']);
  });

  it('a document that is not an object', () => {
    expect(codes(validate([]).errors)).toEqual(['not_an_object']);
    expect(codes(validate('schema_version = 2').errors)).toEqual(['not_an_object']);
  });

  it('a missing deployment is an error', () => {
    const doc = validDoc();
    delete doc.deployment;
    const { errors } = validate(doc);
    expect(errors).toEqual([expect.objectContaining({ path: '$.deployment' })]);
  });

  it('reports every error at once, not just the first', () => {
    const doc = validDoc();
    const front = (doc.zones as JsonObject).front_lawn as JsonObject;
    front.sessions_per_week = 0;
    front.max_run_minutes = 999;
    ((doc.deployment as JsonObject).location as JsonObject).lat = 100;
    expect(codes(validate(doc).errors).sort()).toEqual(
      ['location_range', 'zone_max_run_minutes_range', 'zone_sessions_per_week_range'].sort(),
    );
  });
});

describe('unknown keys are warnings, not errors', () => {
  it('an unknown top-level key', () => {
    const doc = validDoc();
    doc.shedule = { nightly: true };
    const result = validateDocument(doc, {});
    expect(result.report.ok).toBe(true);
    expect(result.report.errors).toEqual([]);
    expect(result.report.warnings).toEqual([
      expect.objectContaining({ code: 'unknown_field', path: '$.shedule' }),
    ]);
    expect(result.config).not.toBeNull();
    expect(result.config).not.toHaveProperty('shedule');
  });

  it('an unknown zone key, alongside unknown keys in a source entry and a nested table', () => {
    const doc = validDoc();
    ((doc.zones as JsonObject).front_lawn as JsonObject).speces = 'bermuda';
    (doc.sources as JsonObject[])[0]!.priorty = 5;
    doc.engine = { skip_rules: { max_wnd_mph: 5 } };
    const result = validateDocument(doc, {});
    expect(result.report.errors).toEqual([]);
    expect(result.report.warnings.map((w) => [w.code, w.path]).sort()).toEqual(
      [
        ['unknown_field', '$.zones.front_lawn.speces'],
        ['unknown_field', '$.sources[0].priorty'],
        ['unknown_field', '$.engine.skip_rules.max_wnd_mph'],
      ].sort(),
    );
    expect(result.config?.zones.front_lawn?.species).toBe('bermuda');
    expect(result.config?.engine.skip_rules.max_wind_mph).toBe(10);
  });

  it('an unknown key does not hide a real error', () => {
    const doc = validDoc();
    const front = (doc.zones as JsonObject).front_lawn as JsonObject;
    front.typo_field = 1;
    front.sessions_per_week = 8;
    const { errors, warnings } = validate(doc);
    expect(codes(errors)).toEqual(['zone_sessions_per_week_range']);
    expect(warnings).toEqual([
      expect.objectContaining({ code: 'unknown_field', path: '$.zones.front_lawn.typo_field' }),
    ]);
  });
});

describe('validation warnings', () => {
  it('flow_meter_no_sensor and flow_meter_source_unknown: a meter that cannot report', () => {
    const doc = withZone(
      {
        display_name: 'Front',
        controller_station: '1',
        flow_meter: { kind: 'source', source_id: 'gw', key: 'flow' },
      },
      (d) => {
        d.controllers = [{ ...OPENSPRINKLER, flow_meter: { kind: 'controller' } }];
      },
    );
    expect(validate(doc).warnings).toEqual([
      expect.objectContaining({ code: 'flow_meter_no_sensor', path: '$.controllers[0].flow_meter' }),
      expect.objectContaining({ code: 'flow_meter_source_unknown', path: '$.zones.front_lawn.flow_meter' }),
    ]);
    (doc.controllers as JsonObject[])[0]!.config = { ...OPENSPRINKLER.config, flow_pulse_unit: 'gal' };
    doc.sources = [{ id: 'gw', kind: 'ecowitt_local', config: {} }];
    expect(codes(validate(doc).warnings).filter((c) => c.startsWith('flow_meter'))).toEqual([]);
  });

  it('zone_unbound: a zone with no controllers configured at all', () => {
    const doc = withZone({ display_name: 'Front' }, (d) => {
      d.controllers = [];
    });
    const { ok, errors, warnings } = validate(doc);
    expect(ok).toBe(true);
    expect(errors).toEqual([]);
    expect(warnings).toEqual([expect.objectContaining({ code: 'zone_unbound', path: '$.zones.front_lawn' })]);
  });

  it('zone_unbound: a zone on a drivable station-based controller without a station', () => {
    // Only dry_run is drivable in this build and it accepts any zone, so a
    // test kind stands in for a station-based controller whose adapter exists.
    registerControllerKind({
      kind: 'test_valves',
      label: 'Test valves',
      configSchema: anyConfigBlock,
      adapterBuilt: true,
      parseStation: (s) => /^v\d+$/.test(s),
      stationExpectation: 'v<n>',
    });
    const doc = withZone({ display_name: 'Front' }, (d) => {
      d.controllers = [{ id: 'valves', default: true, kind: 'test_valves' }];
    });
    expect(validate(doc).warnings).toEqual([
      expect.objectContaining({ code: 'zone_unbound', path: '$.zones.front_lawn.controller_station' }),
    ]);

    // A whitespace-only station is no station.
    ((doc.zones as JsonObject).front_lawn as JsonObject).controller_station = '   ';
    expect(codes(validate(doc).warnings)).toEqual(['zone_unbound']);

    ((doc.zones as JsonObject).front_lawn as JsonObject).controller_station = 'v3';
    expect(validate(doc).warnings).toEqual([]);
    ((doc.zones as JsonObject).front_lawn as JsonObject).controller_station = '3';
    expect(codes(validate(doc).warnings)).toEqual(['zone_station_unparseable']);
  });

  it('zone_unbound: an opensprinkler zone without a station', () => {
    const doc = withZone({ display_name: 'Front' }, (d) => {
      d.controllers = [OPENSPRINKLER];
    });
    expect(validate(doc).warnings.map((w) => [w.code, w.path])).toEqual([
      ['zone_unbound', '$.zones.front_lawn.controller_station'],
    ]);
  });

  it("a controller's zone map binds a zone without a station", () => {
    const doc = withZone({ display_name: 'Front' }, (d) => {
      d.controllers = [
        { ...OPENSPRINKLER, config: { ...OPENSPRINKLER.config, zone_map: { front_lawn: '2' } } },
      ];
    });
    expect(validate(doc).warnings).toEqual([]);
  });

  it('a dry_run controller never leaves a zone unbound, whatever the station', () => {
    for (const station of [undefined, '', 'abc', '0', 'switch.x']) {
      const zone: JsonObject = { display_name: 'Front' };
      if (station !== undefined) zone.controller_station = station;
      expect(validate(withZone(zone)).warnings).toEqual([]);
    }
  });

  it.each(['0', 'abc', '1000', '-1'])('zone_station_unparseable: opensprinkler station %p', (station) => {
    const doc = withZone({ controller_id: 'os', controller_station: station }, (d) => {
      d.controllers = [OPENSPRINKLER];
    });
    const { ok, warnings } = validate(doc);
    expect(ok).toBe(true);
    expect(warnings).toContainEqual(
      expect.objectContaining({
        code: 'zone_station_unparseable',
        path: '$.zones.front_lawn.controller_station',
      }),
    );
    expect(codes(warnings)).not.toContain('zone_unbound');
  });

  it.each(['1', '12', ' 7 '])('opensprinkler station %p parses', (station) => {
    const doc = withZone({ controller_id: 'os', controller_station: station }, (d) => {
      d.controllers = [OPENSPRINKLER];
    });
    expect(validate(doc).warnings).toEqual([]);
  });

  it('zone_station_unparseable: ha_service_call station "3"; an entity id parses', () => {
    const doc = withZone({ controller_station: '3' }, (d) => {
      d.controllers = [HA];
    });
    expect(codes(validate(doc).warnings)).toEqual(['zone_station_unparseable']);
    ((doc.zones as JsonObject).front_lawn as JsonObject).controller_station = 'switch.front_lawn';
    expect(validate(doc).warnings).toEqual([]);
  });

  it('zone_controller_not_built: a zone on a kind without an adapter (hydrawise), named or by default', () => {
    const HYDRAWISE = { id: 'hw', default: true, enabled: true, kind: 'hydrawise', config: {} };
    const named = withZone({ controller_id: 'hw', controller_station: '1' }, (d) => {
      d.controllers = [
        { id: 'dry', default: true, kind: 'dry_run' },
        { ...HYDRAWISE, default: false },
      ];
    });
    expect(validate(named).warnings).toEqual([
      expect.objectContaining({ code: 'zone_controller_not_built', path: '$.zones.front_lawn' }),
    ]);
    const byDefault = withZone({ controller_station: '1' }, (d) => {
      d.controllers = [HYDRAWISE];
    });
    expect(codes(validate(byDefault).warnings)).toEqual(['zone_controller_not_built']);
    // A kind with an adapter never warns so.
    const built = withZone({ controller_station: '1' }, (d) => {
      d.controllers = [OPENSPRINKLER];
    });
    expect(codes(validate(built).warnings)).not.toContain('zone_controller_not_built');
  });

  it('zone_controller_not_built: a zone on a controller of an unknown kind', () => {
    const doc = withZone({ controller_station: '1' }, (d) => {
      d.controllers = [{ id: 'mystery', default: true, kind: 'sprinkle_o_matic' }];
    });
    const { ok, warnings } = validate(doc);
    expect(ok).toBe(true);
    expect(warnings.map((w) => [w.code, w.path])).toEqual([
      ['controller_kind_unknown', '$.controllers[0].kind'],
      ['zone_controller_not_built', '$.zones.front_lawn'],
    ]);
  });

  it('an unknown source kind is a warning', () => {
    const doc = validDoc();
    (doc.sources as JsonObject[])[1]!.kind = 'weather_rock';
    const { ok, warnings } = validate(doc);
    expect(ok).toBe(true);
    expect(warnings).toEqual([
      expect.objectContaining({ code: 'source_kind_unknown', path: '$.sources[1].kind' }),
    ]);
  });

  it.each([
    [9, 7],
    [0, 1],
    [-3, 1],
  ])('source_past_days_clamped: open_meteo past_days %p is clamped to %p', (days, clamped) => {
    const doc = validDoc();
    (doc.sources as JsonObject[])[0]!.config = { past_days: days };
    const { ok, warnings } = validate(doc);
    expect(ok).toBe(true);
    expect(warnings).toEqual([
      expect.objectContaining({ code: 'source_past_days_clamped', path: '$.sources[0].config.past_days' }),
    ]);
    expect(warnings[0]?.message).toContain(`clamped to ${clamped}`);
  });

  it.each([1, 7, null])('open_meteo past_days %p is not clamped', (days) => {
    const doc = validDoc();
    (doc.sources as JsonObject[])[0]!.config = { past_days: days };
    expect(validate(doc).warnings).toEqual([]);
  });

  it('override_source_unknown: a pin and a chain entry naming a source that is not configured', () => {
    const doc = validDoc();
    doc.engine = {
      overrides: { temp_f: 'tempest', rain_in: 'ghost' },
      field_source_chains: { wind_mph: ['forecast', 'phantom'] },
    };
    const { ok, warnings } = validate(doc);
    expect(ok).toBe(true);
    expect(warnings.map((w) => [w.code, w.path])).toEqual([
      ['override_source_unknown', '$.engine.overrides.rain_in'],
      ['override_source_unknown', '$.engine.field_source_chains.wind_mph[1]'],
    ]);
  });
});

describe('the demo config and the environment baseline', () => {
  it.each([
    [null, null],
    [47.6, -122.3],
  ])('demoConfig(%p, %p) validates with zero errors and zero warnings', (lat, lon) => {
    const { report, config } = validateDocument(demoConfig(lat, lon), {});
    expect(report).toEqual({ ok: true, errors: [], warnings: [] });
    expect(config?.features.demo_mode).toBe(true);
    expect(Object.keys(config?.zones ?? {})).toHaveLength(6);
    if (lat !== null) expect(config?.deployment.location).toMatchObject({ lat, lon });
  });

  it.each([
    [null, null],
    [47.6, -122.3],
    [-33.9, 151.2],
  ])(
    'demoSeed(%p, %p) is the stored demo document and what validating it gives, key order included',
    (lat, lon) => {
      const { document, config } = demoSeed(lat, lon);
      expect(document).toStrictEqual(withoutNulls(demoConfig(lat, lon)));
      const validated = validateDocument(document, {});
      expect(validated.report).toEqual({ ok: true, errors: [], warnings: [] });
      expect(config).toStrictEqual(validated.config);
      expect(JSON.stringify(config)).toBe(JSON.stringify(validated.config));
    },
  );

  it('the baseline carries the environment location, the default forecast source and no controllers', () => {
    const env = parseEnv({ RAINCHECK_DATA_DIR: '/tmp/x', LAT: '40.5', LON: '-105.25' });
    const baseline = environmentBaseline(env);
    expect(baseline).toEqual({
      schema_version: CURRENT_SCHEMA_VERSION,
      deployment: { location: { lat: 40.5, lon: -105.25 }, units: 'imperial' },
      sources: [
        { id: 'open_meteo', priority: 50, enabled: true, kind: 'open_meteo', config: { past_days: 3 } },
      ],
      controllers: [],
      zones: {},
    });
    expect(validateDocument(baseline, {}).report).toEqual({ ok: true, errors: [], warnings: [] });
  });

  it('the baseline never guesses a missing location', () => {
    const baseline = environmentBaseline(parseEnv({ RAINCHECK_DATA_DIR: '/tmp/x' }));
    expect(baseline.deployment).toEqual({ location: { lat: null, lon: null }, units: 'imperial' });
    // Saving it as is would be refused: the wizard has to supply a location.
    const { errors } = validate(baseline);
    expect(errors.map((e) => [e.code, e.path]).sort()).toEqual([
      ['location_range', '$.deployment.location.lat'],
      ['location_range', '$.deployment.location.lon'],
    ]);
  });
});
