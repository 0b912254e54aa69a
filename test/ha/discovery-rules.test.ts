import { entityCatalog } from '../../server/src/ha/entities/catalog';
import type { CatalogView, EntityDescriptor } from '../../server/src/ha/entities/descriptor';
import { WEATHER_SENSORS } from '../../server/src/ha/entities/weather-entities';
import { discoveryPayload, type DiscoveryIdentity } from '../../server/src/ha/mqtt/discovery-payload';
import { UNKNOWN_STATE } from '../../server/src/ha/mqtt/published-entities';
import { TopicLayout } from '../../server/src/ha/mqtt/topics';
import { catalogViewFixture } from '../helpers/catalog-fixtures';
import { discoveryIssues, PLATFORMS_MODELLED, readState } from '../helpers/ha-mqtt-rules';

/**
 * Every discovery config Raincheck can publish, held to Home Assistant's own
 * MQTT discovery rules (test/helpers/ha-mqtt-rules.ts, written from HA
 * core's source): no key HA would drop, every type and enum HA checks, the
 * unit and state class each device class allows; and every state it
 * publishes, read the way HA reads it (a known value, or `None` = unknown).
 */

const IDENTITY: DiscoveryIdentity = {
  topics: new TopicLayout('3f2c9a7e', 'homeassistant'),
  version: '0.1.0',
  repository: 'https://github.com/raincheck/raincheck',
};

/** Every capability on: a controller with water level and flow, a zone in deficit, every weather field. */
function richView(): CatalogView {
  const weather = Object.fromEntries(Object.keys(WEATHER_SENSORS).map((field, i) => [field, 10 + i]));
  return catalogViewFixture({
    waterLevel: 62,
    flowGpm: 3.5,
    weather,
    pauseUntilEpoch: 1_893_553_445,
    zones: {
      front_lawn: { bucket_mm: -4.2, planned_run_seconds: 900, last_run_epoch: 1_750_000_000 },
      back_beds: { bucket_mm: 1.5, planned_run_seconds: 0, last_run_epoch: 0 },
    },
  });
}

/** Nothing known: no verdict, no pause, no run yet, no next run. */
function unknownView(): CatalogView {
  const view = catalogViewFixture({
    verdict: null,
    waterLevel: null,
    flowGpm: null,
    zones: { front_lawn: { bucket_mm: -2, last_run_epoch: 0 } },
  });
  Object.assign(view.irrigation as object, { next_run_state: 'no_water_planned', next_run_epoch: 0 });
  return view;
}

function published(view: CatalogView): { entity: EntityDescriptor; config: Record<string, unknown> }[] {
  return entityCatalog(view).map((entity) => ({ entity, config: discoveryPayload(entity, IDENTITY) }));
}

describe('discovery configs against HA MQTT discovery rules', () => {
  const entities = published(richView());

  it('covers every platform the catalog uses, the datetime included', () => {
    const platforms = new Set(entities.map((e) => e.entity.platform));
    expect([...platforms].sort()).toEqual(
      ['button', 'datetime', 'number', 'select', 'sensor', 'switch', 'valve'].sort(),
    );
    for (const platform of platforms) expect(PLATFORMS_MODELLED).toContain(platform);
  });

  it.each(entities.map((e) => [e.entity.key, e] as const))('%s: HA accepts the whole config', (_key, e) => {
    expect(discoveryIssues(e.entity.platform, e.config)).toEqual([]);
  });

  it('publishes the pause as a datetime HA can set, not a sensor that drops the command topic', () => {
    const pause = entities.find((e) => e.entity.key === 'pause_until');
    expect(pause?.entity.platform).toBe('datetime');
    expect(pause?.config).toMatchObject({
      command_topic: 'raincheck/3f2c9a7e/pause_until/set',
      state_topic: 'raincheck/3f2c9a7e/pause_until/state',
      default_entity_id: 'datetime.raincheck_pause_until',
    });
  });

  it('gives wind direction the class and state class HA keeps angle statistics for', () => {
    const wind = entities.find((e) => e.entity.key === 'weather_wind_dir_deg');
    expect(wind?.config).toMatchObject({
      device_class: 'wind_direction',
      state_class: 'measurement_angle',
      unit_of_measurement: '°',
    });
  });
});

describe('published states as HA reads them', () => {
  it.each([
    ['everything known', richView()],
    ['nothing known', unknownView()],
  ])('%s: every state is a value HA takes or None (unknown)', (_case, view) => {
    for (const { entity, config } of published(view)) {
      if (!entity.state) continue;
      const state = entity.state(view);
      const payload = state ?? UNKNOWN_STATE;
      const reading = readState(entity.platform, config, payload);
      expect({ key: entity.key, payload, reading: reading.kind }).toEqual({
        key: entity.key,
        payload,
        reading: state === null ? 'unknown' : 'value',
      });
    }
  });

  it('publishes unknown times as None, which HA reads as unknown (an empty payload is ignored)', () => {
    const view = unknownView();
    const byKey = new Map(published(view).map((e) => [e.entity.key, e]));
    for (const key of ['next_run', 'zone_front_lawn_last_run', 'pause_until']) {
      const e = byKey.get(key);
      expect(e?.entity.state?.(view)).toBeNull();
      expect(readState(e!.entity.platform, e!.config, UNKNOWN_STATE)).toEqual({ kind: 'unknown' });
      expect(readState(e!.entity.platform, e!.config, '').kind).toBe('ignored');
    }
    expect(UNKNOWN_STATE).toBe('None');
  });
});

describe('the rules themselves (each can fail)', () => {
  const base = {
    name: 'x',
    unique_id: 'u',
    state_topic: 'raincheck/a/x/state',
    availability: [{ topic: 'raincheck/a/status' }],
  };

  it('flags a sensor command topic as dropped, and a timestamp with a unit', () => {
    expect(
      discoveryIssues('sensor', { ...base, device_class: 'timestamp', command_topic: 'raincheck/a/x/set' }),
    ).toEqual(['command_topic is not a sensor option: HA drops it silently']);
    expect(
      discoveryIssues('sensor', { ...base, device_class: 'timestamp', unit_of_measurement: 's' }),
    ).toEqual(['device class timestamp is not numeric: no unit, state class or display precision']);
  });

  it('flags a unit or state class the device class does not allow', () => {
    expect(
      discoveryIssues('sensor', {
        ...base,
        device_class: 'wind_direction',
        unit_of_measurement: '°',
        state_class: 'measurement',
      }),
    ).toEqual(['state class measurement is impossible for device class wind_direction']);
    expect(
      discoveryIssues('sensor', { ...base, device_class: 'volume_flow_rate', unit_of_measurement: 'l/min' }),
    ).toEqual(['unit l/min is not valid together with device class volume_flow_rate']);
    expect(
      discoveryIssues('sensor', { ...base, state_class: 'measurement_angle', unit_of_measurement: 'rad' }),
    ).toEqual(['state class measurement_angle needs unit °']);
  });

  it('flags a datetime without a command topic, a select without options, a wildcard publish topic', () => {
    expect(discoveryIssues('datetime', base)).toEqual(['command_topic is required']);
    expect(discoveryIssues('select', { ...base, command_topic: 'a/b' })).toEqual(['options is required']);
    expect(discoveryIssues('switch', { ...base, command_topic: 'a/+/set' })).toEqual([
      'command_topic a publish topic has no wildcards',
    ]);
  });

  it('reads a naive or unparseable time as rejected, not unknown', () => {
    expect(readState('datetime', {}, '2030-01-02T03:04:05').kind).toBe('rejected');
    expect(readState('sensor', { device_class: 'timestamp' }, 'unknown').kind).toBe('rejected');
    expect(readState('sensor', { device_class: 'timestamp' }, '2030-01-02T03:04:05.000Z').kind).toBe('value');
  });
});
