import fs from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import {
  entityCatalog,
  HA_DEFAULT_RUN_SECONDS,
  HA_MAX_STATE_LENGTH,
  VERDICTS,
} from '../../server/src/ha/entities/catalog';
import { catalogView } from '../../server/src/ha/entities/view';
import { computeIrrigation } from '../../server/src/irrigation/engine/engine';
import { neutralControls } from '../../server/src/irrigation/controls/types';
import { windyMorning } from '../irrigation/engine/fixtures';
import type { CatalogView, EntityDescriptor } from '../../server/src/ha/entities/descriptor';
import {
  buildManifest,
  manifestJsonSchema,
  manifestSchema,
  MANIFEST_SCHEMA_VERSION,
} from '../../server/src/ha/entities/manifest';
import { ActionExecutor } from '../../server/src/irrigation/action-executor';
import { parseControlAction } from '../../server/src/irrigation/controls/actions';
import { THRESHOLD_RANGES } from '../../server/src/irrigation/controls/types';
import type { Dispatcher } from '../../server/src/irrigation/dispatch/dispatcher';
import { systemClock } from '../../server/src/core/clock';
import { catalogViewFixture, type ViewOptions } from '../helpers/catalog-fixtures';

/**
 * The entity catalog (server/src/ha/entities): what Raincheck offers Home
 * Assistant, capability-gated, with states and the action bodies commands
 * map to; and the sensors manifest derived from it, whose JSON Schema file
 * is kept in step with the zod schema.
 */

function catalog(options: ViewOptions = {}): { view: CatalogView; entities: EntityDescriptor[] } {
  const view = catalogViewFixture(options);
  return { view, entities: entityCatalog(view) };
}

function entity(entities: readonly EntityDescriptor[], key: string): EntityDescriptor {
  const found = entities.find((e) => e.key === key);
  if (!found) throw new Error(`no entity "${key}" in ${entities.map((e) => e.key).join(', ')}`);
  return found;
}

function keys(entities: readonly EntityDescriptor[]): string[] {
  return entities.map((e) => e.key);
}

function command(entities: readonly EntityDescriptor[], key: string, payload: string) {
  const found = entity(entities, key);
  if (!found.command) throw new Error(`"${key}" takes no command`);
  return found.command(payload);
}

describe('the catalog', () => {
  it('lists the service entities, per-zone entities and known weather fields, keys unique and topic-safe', () => {
    const { entities } = catalog({ weather: { air_temp_f: 71.3, rh_pct: 55, rain_in_last_min: 0 } });
    const all = keys(entities);
    expect(new Set(all).size).toBe(all.length);
    for (const key of all) expect(key).toMatch(/^[a-z0-9_]+$/);
    expect(all).toEqual(
      expect.arrayContaining([
        'pause',
        'pause_until',
        'global_override',
        'override_tomorrow',
        'threshold_max_wind_mph',
        'threshold_min_temp_f',
        'threshold_rain_skip_in',
        'next_run',
        'verdict',
        'reason',
        'zone_front_lawn_planned',
        'zone_front_lawn_last_run',
        'zone_front_lawn_valve',
        'zone_front_lawn_run',
        'zone_front_lawn_override',
        'zone_back_beds_planned',
        'weather_air_temp_f',
        'weather_rh_pct',
      ]),
    );
    // A fast per-minute field is not offered.
    expect(all).not.toContain('weather_rain_in_last_min');
    expect(entity(entities, 'weather_air_temp_f')).toMatchObject({
      platform: 'sensor',
      device_class: 'temperature',
      unit_of_measurement: '°F',
      state_class: 'measurement',
      requires: 'weather:air_temp_f',
    });
  });

  it('offers no weather sensors while the snapshot has no live values', () => {
    const { entities } = catalog();
    expect(keys(entities).filter((k) => k.startsWith('weather_'))).toEqual([]);
  });

  it('offers water level and flow only when a controller reports them', () => {
    const without = keys(catalog().entities);
    expect(without).not.toContain('water_level');
    expect(without).not.toContain('flow_rate');
    const { view, entities } = catalog({ waterLevel: 80, flowGpm: 3.5 });
    expect(entity(entities, 'water_level').state?.(view)).toBe('80');
    expect(entity(entities, 'water_level').requires).toBe('controller:water_level');
    expect(entity(entities, 'flow_rate').state?.(view)).toBe('3.5');
  });

  it('offers a zone bucket sensor only while the zone has a deficit (bucket_mm < 0)', () => {
    const { view, entities } = catalog({
      zones: {
        dry: { bucket_mm: -2.25 },
        full: { bucket_mm: 0 },
        wet: { bucket_mm: 3 },
        unknown: { bucket_mm: null },
      },
    });
    expect(keys(entities).filter((k) => k.endsWith('_bucket'))).toEqual(['zone_dry_bucket']);
    expect(entity(entities, 'zone_dry_bucket')).toMatchObject({
      requires: 'zone:deficit',
      unit_of_measurement: 'mm',
      zone: 'dry',
    });
    expect(entity(entities, 'zone_dry_bucket').state?.(view)).toBe('-2.25');
  });

  it('offers valve and run button only for zones with a controller, on the controller device', () => {
    const bound = catalog().entities;
    expect(entity(bound, 'zone_front_lawn_valve')).toMatchObject({
      platform: 'valve',
      device_class: 'water',
      payload_on: 'OPEN',
      payload_off: 'CLOSE',
      device: { kind: 'controller', id: 'valves', label: 'valves (dry_run)' },
    });
    expect(entity(bound, 'zone_front_lawn_run')).toMatchObject({ platform: 'button' });
    expect(entity(bound, 'zone_front_lawn_run').state).toBeUndefined();

    const unbound = catalog({ controllers: false }).entities;
    expect(unbound.filter((e) => e.platform === 'valve' || e.platform === 'button')).toEqual([]);
    expect(keys(unbound)).not.toContain('zone_front_lawn_run');
    expect(entity(unbound, 'zone_front_lawn_planned').device).toEqual({ kind: 'service' });
    expect(entity(unbound, 'zone_front_lawn_override').command?.('skip')).toEqual({
      kind: 'set_zone_override',
      zone: 'front_lawn',
      mode: 'skip',
    });
  });

  it('gives the threshold numbers the server-enforced ranges', () => {
    const { entities } = catalog();
    const ranges = Object.fromEntries(
      entities
        .filter((e) => e.platform === 'number')
        .map((e) => [e.key, { min: e.min, max: e.max, mode: e.mode }]),
    );
    expect(ranges).toEqual({
      threshold_max_wind_mph: { min: 0, max: 50, mode: 'box' },
      threshold_min_temp_f: { min: 20, max: 70, mode: 'box' },
      threshold_rain_skip_in: { min: 0, max: 10, mode: 'box' },
    });
    for (const [key, range] of Object.entries(THRESHOLD_RANGES)) {
      expect(entity(entities, `threshold_${key}`)).toMatchObject({ min: range.min, max: range.max });
    }
  });

  it('reads states from the view (null = unknown)', () => {
    const { view, entities } = catalog({
      paused: true,
      pauseUntilEpoch: 1_750_003_600,
      verdict: null,
      zones: { front_lawn: { running: true, last_run_epoch: 0, planned_run_seconds: 600 } },
    });
    const state = (key: string) => entity(entities, key).state?.(view);
    expect(state('pause')).toBe('ON');
    expect(state('pause_until')).toBe(new Date(1_750_003_600_000).toISOString());
    expect(state('verdict')).toBeNull();
    expect(state('next_run')).toBe(new Date(1_750_050_000_000).toISOString());
    expect(state('zone_front_lawn_valve')).toBe('open');
    expect(state('zone_front_lawn_last_run')).toBeNull();
    expect(state('zone_front_lawn_planned')).toBe('600');
    expect(state('global_override')).toBe('auto');
    expect(state('zone_front_lawn_override')).toBe('auto');
    // Thresholds: the control when set, else the engine's skip rule.
    expect(state('threshold_max_wind_mph')).toBe(String(view.config.engine.skip_rules.max_wind_mph));
    view.controls.thresholds.max_wind_mph = 17.5;
    expect(state('threshold_max_wind_mph')).toBe('17.5');
    expect(entity(entities, 'verdict').options).toEqual([...VERDICTS]);
  });
});

describe("today's reason", () => {
  /** The catalog over the live services' view, the engine's real output behind it. */
  function liveReason(units: 'imperial' | 'metric'): string | null {
    const input = windyMorning(units);
    const output = computeIrrigation(input);
    const view = catalogView({
      config: () => ({ config: input.config, document: {}, appliedAtEpoch: 0, revision: 1 }),
      irrigation: {
        snapshot: () => output.snapshot,
        latestOutput: () => output,
        controlsState: () => neutralControls(),
      },
      weather: { currentWeather: () => null },
    });
    if (!view) throw new Error('no view');
    return entity(entityCatalog(view), 'reason').state?.(view) ?? null;
  }

  it("is the verdict's reason in the owner units", () => {
    expect(liveReason('imperial')).toBe(
      'Windy forecast: peak wind over the run window is 18 mph, above 15 mph (10 mph + 5 mph slack).',
    );
    expect(liveReason('metric')).toBe(
      'Windy forecast: peak wind over the run window is 29 km/h, above 24.1 km/h (16.1 km/h + 8 km/h slack).',
    );
  });

  it('fits in a Home Assistant state (255 characters), cut at a word; unknown without a decision', () => {
    const long = `Front lawn: ${'depletion 0.44 in would pass the trigger '.repeat(10)}`;
    const { view, entities } = catalog({ reason: long });
    const state = entity(entities, 'reason').state?.(view) ?? '';
    expect(state.length).toBeLessThanOrEqual(HA_MAX_STATE_LENGTH);
    expect(state.endsWith('…')).toBe(true);
    // Cut at a word: the original goes on with a space where the ellipsis stands.
    expect(long.charAt(state.length - 1)).toBe(' ');
    expect(long.startsWith(state.slice(0, -1))).toBe(true);
    const none = catalog({ reason: null });
    expect(entity(none.entities, 'reason').state?.(none.view)).toBeNull();
    expect(entity(entities, 'reason')).toMatchObject({ platform: 'sensor', requires: 'always' });
    expect(entity(entities, 'reason').device_class).toBeUndefined();
  });
});

describe('command mapping', () => {
  const { entities } = catalog();

  it('pause switch: ON / OFF toggle irrigation_pause; anything else is not understood', () => {
    expect(command(entities, 'pause', 'ON')).toEqual({ kind: 'toggle', key: 'irrigation_pause', on: true });
    expect(command(entities, 'pause', 'OFF')).toEqual({ kind: 'toggle', key: 'irrigation_pause', on: false });
    for (const bad of ['on', 'true', '', 'PRESS']) expect(command(entities, 'pause', bad)).toBeNull();
  });

  it('pause_until: an ISO time or epoch seconds; 0 clears; other text is not understood', () => {
    expect(command(entities, 'pause_until', '2030-01-02T03:04:05Z')).toEqual({
      kind: 'set_pause_until',
      epoch: Date.UTC(2030, 0, 2, 3, 4, 5) / 1000,
    });
    expect(command(entities, 'pause_until', '1893553445')).toEqual({
      kind: 'set_pause_until',
      epoch: 1893553445,
    });
    expect(command(entities, 'pause_until', '0')).toEqual({ kind: 'set_pause_until', epoch: 0 });
    // What HA's MQTT datetime entity sends: `value.isoformat()`, with its offset and microseconds.
    expect(command(entities, 'pause_until', '2030-01-02T04:04:05.250000+01:00')).toEqual({
      kind: 'set_pause_until',
      epoch: Date.UTC(2030, 0, 2, 3, 4, 5) / 1000,
    });
    // Without an offset the moment depends on whose clock reads it: refused, not guessed.
    expect(command(entities, 'pause_until', '2030-01-02T03:04:05')).toBeNull();
    expect(command(entities, 'pause_until', 'next tuesday')).toBeNull();
    expect(command(entities, 'pause_until', '')).toBeNull();
  });

  it('selects accept exactly their options', () => {
    expect(command(entities, 'global_override', 'skip')).toEqual({
      kind: 'set_global_override',
      mode: 'skip',
    });
    expect(command(entities, 'global_override', 'SKIP')).toBeNull();
    expect(command(entities, 'override_tomorrow', 'run')).toEqual({
      kind: 'set_override_tomorrow',
      mode: 'run',
    });
    // `auto` is a global/zone mode, not a tomorrow mode.
    expect(command(entities, 'override_tomorrow', 'auto')).toBeNull();
    expect(command(entities, 'zone_back_beds_override', 'run')).toEqual({
      kind: 'set_zone_override',
      zone: 'back_beds',
      mode: 'run',
    });
    expect(command(entities, 'zone_back_beds_override', 'sometimes')).toBeNull();
  });

  it('numbers take a finite number (the range is the executor’s check)', () => {
    expect(command(entities, 'threshold_max_wind_mph', '25')).toEqual({
      kind: 'set_threshold',
      key: 'max_wind_mph',
      value: 25,
    });
    expect(command(entities, 'threshold_rain_skip_in', '0.25')).toMatchObject({ value: 0.25 });
    expect(command(entities, 'threshold_min_temp_f', '99')).toMatchObject({ value: 99 });
    for (const bad of ['', '  ', 'abc', 'NaN', 'Infinity']) {
      expect(command(entities, 'threshold_min_temp_f', bad)).toBeNull();
    }
  });

  it('valve: OPEN runs for the default time, CLOSE (or STOP) stops; lower case is not understood', () => {
    expect(command(entities, 'zone_front_lawn_valve', 'OPEN')).toEqual({
      kind: 'run',
      zone: 'front_lawn',
      seconds: HA_DEFAULT_RUN_SECONDS,
    });
    expect(command(entities, 'zone_front_lawn_valve', 'CLOSE')).toEqual({ kind: 'stop', zone: 'front_lawn' });
    expect(command(entities, 'zone_front_lawn_valve', 'STOP')).toEqual({ kind: 'stop', zone: 'front_lawn' });
    expect(command(entities, 'zone_front_lawn_valve', 'open')).toBeNull();
  });

  it('run button: PRESS runs the planned time, or the default with nothing planned', () => {
    expect(command(entities, 'zone_front_lawn_run', 'PRESS')).toEqual({
      kind: 'run',
      zone: 'front_lawn',
      seconds: 900,
    });
    expect(command(entities, 'zone_back_beds_run', 'PRESS')).toEqual({
      kind: 'run',
      zone: 'back_beds',
      seconds: HA_DEFAULT_RUN_SECONDS,
    });
    expect(command(entities, 'zone_back_beds_run', 'ON')).toBeNull();
  });

  it('read-only sensors take no command', () => {
    const readOnly = catalog({ weather: { air_temp_f: 70 } }).entities.filter(
      (e) => e.platform === 'sensor' && e.key !== 'pause_until',
    );
    expect(readOnly.length).toBeGreaterThan(4);
    for (const e of readOnly) expect(e.command).toBeUndefined();
  });

  it('every body a command maps to is a valid action, and the executor refuses out-of-range values', async () => {
    // Mid-2029: the pause datetime below (2030-01-01) lies within the accepted 366 days.
    const context = { mappedZones: ['front_lawn', 'back_beds'], nowEpoch: Date.UTC(2029, 6, 1) / 1000 };
    const controls = entities.filter((e) => e.command && e.platform !== 'valve' && e.platform !== 'button');
    const payloads = (e: EntityDescriptor): string[] => {
      if (e.platform === 'number') return [String(e.min), String(e.max)];
      if (e.platform === 'select') return e.options ?? [];
      if (e.platform === 'switch') return ['ON', 'OFF'];
      return ['2030-01-01T00:00:00Z', '0'];
    };
    let checked = 0;
    for (const e of controls) {
      for (const payload of payloads(e)) {
        const body = e.command?.(payload);
        expect([e.key, payload, parseControlAction(body, context).ok]).toEqual([e.key, payload, true]);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(20);

    const applied: unknown[] = [];
    const executor = new ActionExecutor({
      irrigation: {
        zoneSlugs: () => context.mappedZones,
        applyControl: (a) => (applied.push(a), null),
        refresh: () => null,
        timezone: () => 'UTC',
      },
      dispatcher: {} as Dispatcher,
      clock: systemClock,
    });
    const outcome = await executor.execute(command(entities, 'threshold_max_wind_mph', '51'));
    expect(outcome).toMatchObject({ ok: false, status: 400, code: 'threshold_out_of_range' });
    expect(applied).toEqual([]);
    expect(await executor.execute(command(entities, 'threshold_max_wind_mph', '50'))).toMatchObject({
      ok: true,
    });
    expect(applied).toEqual([{ kind: 'set_threshold', key: 'max_wind_mph', value: 50 }]);
  });
});

describe('the sensors manifest', () => {
  const SCHEMA_FILE = path.join(__dirname, '..', '..', 'integration-manifest', 'manifest.schema.json');

  it('is derived from the catalog and validates against its schema', () => {
    const { view, entities } = catalog({ weather: { air_temp_f: 70.1 }, waterLevel: 55 });
    const manifest = buildManifest(entities, view, 1_750_000_123);
    const parsed = manifestSchema.safeParse(manifest);
    expect(parsed.success ? [] : parsed.error.issues.slice(0, 3)).toEqual([]);
    expect(manifest.schema_version).toBe(MANIFEST_SCHEMA_VERSION);
    expect(manifest.generated_epoch).toBe(1_750_000_123);
    expect(manifest.entities.map((e) => e.key)).toEqual(keys(entities));
    const byKey = new Map(manifest.entities.map((e) => [e.key, e]));
    expect(byKey.get('pause')).toMatchObject({ commands: true, state: 'OFF', platform: 'switch' });
    expect(byKey.get('next_run')).toMatchObject({ commands: false });
    expect(byKey.get('zone_front_lawn_run')).toMatchObject({ commands: true, state: null });
    expect(byKey.get('weather_air_temp_f')).toMatchObject({ state: '70.1', requires: 'weather:air_temp_f' });
    expect(byKey.get('threshold_min_temp_f')).toMatchObject({ min: 20, max: 70, step: 1 });
    // Functions never leak into the wire form.
    expect(JSON.parse(JSON.stringify(manifest))).toEqual(manifest);
  });

  it('refuses an entity with a key that is not topic-safe', () => {
    const { view, entities } = catalog();
    const manifest = buildManifest([{ ...entity(entities, 'pause'), key: 'Pause-Now' }], view, 1);
    expect(manifestSchema.safeParse(manifest).success).toBe(false);
  });

  it('integration-manifest/manifest.schema.json is the zod schema as JSON Schema', () => {
    // Compared as JSON: the file is prettier-formatted (npm run lint checks every .json file).
    const expected = JSON.parse(JSON.stringify(manifestJsonSchema())) as unknown;
    const actual: unknown = fs.existsSync(SCHEMA_FILE)
      ? JSON.parse(fs.readFileSync(SCHEMA_FILE, 'utf8'))
      : null;
    if (!isDeepStrictEqual(actual, expected)) {
      throw new Error(
        'integration-manifest/manifest.schema.json differs from manifestJsonSchema() in ' +
          'server/src/ha/entities/manifest.ts. Regenerate it with:\n' +
          `  npm run build && node -e "require('fs').writeFileSync('integration-manifest/manifest.schema.json', ` +
          `JSON.stringify(require('./dist/server/src/ha/entities/manifest').manifestJsonSchema(), null, 2) + '\\n')" ` +
          '&& npx prettier --write integration-manifest/manifest.schema.json',
      );
    }
    expect(actual).toMatchObject({
      type: 'object',
      properties: { schema_version: { const: MANIFEST_SCHEMA_VERSION } },
    });
  });
});

describe('metered zones', () => {
  function metered(flowZones: unknown[]): { view: CatalogView; entities: EntityDescriptor[] } {
    const view = catalogViewFixture({
      config: {
        controllers: [
          {
            id: 'valves',
            default: true,
            kind: 'dry_run',
            config: {},
            flow_meter: { kind: 'ha_sensor', entity_id: 'sensor.flow' },
          },
        ],
      },
    });
    (view.irrigation as unknown as { flow: Record<string, unknown> }).flow = {
      rate_gpm: null,
      zones: flowZones,
    };
    return { view, entities: entityCatalog(view) };
  }

  it('offers a flow state and the learnt baseline for each zone a meter measures, none without one', () => {
    const plain = catalog();
    expect(keys(plain.entities).filter((k) => k.includes('flow'))).toEqual([]);

    const { view, entities } = metered([
      { zone: 'front_lawn', baseline_gpm: 6.1, learning: false, alarm: { kind: 'high' } },
      { zone: 'back_beds', baseline_gpm: null, learning: true, alarm: null },
    ]);
    expect(entity(entities, 'zone_front_lawn_flow')).toMatchObject({
      platform: 'sensor',
      device_class: 'enum',
      options: ['normal', 'high', 'low', 'no_flow', 'learning'],
      requires: 'zone:flow_meter',
    });
    expect(entity(entities, 'zone_front_lawn_flow').state?.(view)).toBe('high');
    expect(entity(entities, 'zone_back_beds_flow').state?.(view)).toBe('learning');
    expect(entity(entities, 'zone_front_lawn_flow_baseline')).toMatchObject({
      device_class: 'volume_flow_rate',
      unit_of_measurement: 'gal/min',
    });
    expect(entity(entities, 'zone_front_lawn_flow_baseline').state?.(view)).toBe('6.1');
    expect(entity(entities, 'zone_back_beds_flow_baseline').state?.(view)).toBeNull();
  });

  it('names no flow as no_flow and a quiet zone with a baseline as normal', () => {
    const { view, entities } = metered([
      { zone: 'front_lawn', baseline_gpm: 6, learning: false, alarm: { kind: 'none' } },
      { zone: 'back_beds', baseline_gpm: 2, learning: false, alarm: null },
    ]);
    expect(entity(entities, 'zone_front_lawn_flow').state?.(view)).toBe('no_flow');
    expect(entity(entities, 'zone_back_beds_flow').state?.(view)).toBe('normal');
  });
});
