import { configSchema } from '../../server/src/config/schema';
import { REPOSITORY } from '../../server/src/core/version';
import { entityCatalog } from '../../server/src/ha/entities/catalog';
import type { CatalogView } from '../../server/src/ha/entities/descriptor';
import { discoveryPayload, type DiscoveryIdentity } from '../../server/src/ha/mqtt/discovery-payload';
import { PublishedEntities, type RetainedMessage } from '../../server/src/ha/mqtt/published-entities';
import { connectionKey, mqttSettingsFrom } from '../../server/src/ha/mqtt/settings';
import { TopicLayout } from '../../server/src/ha/mqtt/topics';
import { catalogViewFixture, type ViewOptions } from '../helpers/catalog-fixtures';

/**
 * The MQTT publication without a broker: where the settings come from, the
 * topic layout, one entity's discovery config, and the diff that keeps the
 * broker in step with the catalog (what appears, changes and is removed).
 * The broker-level behaviour is in mqtt-discovery.test.ts.
 */

const INSTALL = '0f8fad5b-d9cb-469f-a165-70867728950e';
const topics = new TopicLayout(INSTALL, 'homeassistant');
const identity: DiscoveryIdentity = { topics, version: '9.8.7', repository: REPOSITORY };

function baseConfig(extra: Record<string, unknown> = {}) {
  return configSchema.parse({ schema_version: 2, deployment: { location: { lat: 1, lon: 2 } }, ...extra });
}

describe('settings', () => {
  const env = {
    MQTT_HOST: 'core-mosquitto',
    MQTT_PORT: '1884',
    MQTT_USERNAME: 'addons',
    MQTT_PASSWORD: 'pw-env',
    MQTT_DISCOVERY_PREFIX: 'ha',
  };

  it('are null without a broker in the config or the environment', () => {
    expect(mqttSettingsFrom(baseConfig(), {})).toBeNull();
    expect(mqttSettingsFrom(null, { MQTT_HOST: '  ' })).toBeNull();
  });

  it('come from notifications.mqtt with its schema defaults', () => {
    const config = baseConfig({ notifications: { mqtt: { host: 'broker.lan' } } });
    expect(mqttSettingsFrom(config, env)).toEqual({
      host: 'broker.lan',
      port: 1883,
      tls: false,
      username: null,
      password: null,
      discoveryPrefix: 'homeassistant',
      publish: true,
      subscribe: false,
      origin: 'config',
    });
  });

  it('come from the add-on environment when the config has no mqtt block', () => {
    expect(mqttSettingsFrom(baseConfig(), env)).toEqual({
      host: 'core-mosquitto',
      port: 1884,
      tls: false,
      username: 'addons',
      password: 'pw-env',
      discoveryPrefix: 'ha',
      publish: true,
      subscribe: true,
      origin: 'environment',
    });
    expect(mqttSettingsFrom(null, { MQTT_HOST: 'b', MQTT_TLS: '1' })).toMatchObject({
      tls: true,
      port: 8883,
      discoveryPrefix: 'homeassistant',
    });
    expect(mqttSettingsFrom(null, { MQTT_HOST: 'b', MQTT_PORT: 'x' })?.port).toBe(1883);
  });

  it('publish only when both publish_enabled and features.enable_mqtt_publish allow it', () => {
    const off = baseConfig({ features: { enable_mqtt_publish: false } });
    expect(mqttSettingsFrom(off, env)?.publish).toBe(false);
    const block = baseConfig({
      notifications: { mqtt: { host: 'b', publish_enabled: false, subscribe_enabled: true } },
    });
    expect(mqttSettingsFrom(block, {})).toMatchObject({ publish: false, subscribe: true });
  });

  it('connect only when something is enabled; any connection field changes the key', () => {
    const on = mqttSettingsFrom(baseConfig(), env);
    expect(connectionKey(on)).not.toBeNull();
    expect(connectionKey(on && { ...on, publish: false, subscribe: false })).toBeNull();
    expect(connectionKey(on && { ...on, password: 'other' })).not.toBe(connectionKey(on));
    expect(connectionKey(on && { ...on, origin: 'config' })).toBe(connectionKey(on));
  });
});

describe('topic layout', () => {
  it('names config, state, command and status topics', () => {
    expect(topics.config('valve', 'zone_front_valve')).toBe(
      `homeassistant/valve/raincheck_${INSTALL}/zone_front_valve/config`,
    );
    expect(topics.state('pause')).toBe(`raincheck/${INSTALL}/pause/state`);
    expect(topics.command('pause')).toBe(`raincheck/${INSTALL}/pause/set`);
    expect(topics.status).toBe(`raincheck/${INSTALL}/status`);
    expect(topics.birth).toBe('homeassistant/status');
    expect(topics.allCommands).toBe(`raincheck/${INSTALL}/+/set`);
  });

  it('parses its own command and config topics only', () => {
    expect(topics.commandKey(`raincheck/${INSTALL}/zone_a_valve/set`)).toBe('zone_a_valve');
    expect(topics.commandKey(`raincheck/other/zone_a_valve/set`)).toBeNull();
    expect(topics.commandKey(`raincheck/${INSTALL}/a/b/set`)).toBeNull();
    expect(topics.commandKey(`raincheck/${INSTALL}/pause/state`)).toBeNull();
    expect(topics.configEntry(topics.config('sensor', 'zone_a_bucket'))).toEqual({
      platform: 'sensor',
      key: 'zone_a_bucket',
    });
    expect(topics.configEntry(`homeassistant/sensor/raincheck_other/zone_a_bucket/config`)).toBeNull();
    const nested = new TopicLayout(INSTALL, 'site/ha');
    expect(nested.configEntry(nested.config('switch', 'pause'))).toEqual({
      platform: 'switch',
      key: 'pause',
    });
    expect(nested.configEntry(topics.config('switch', 'pause'))).toBeNull();
  });
});

describe('discovery payload', () => {
  const view = catalogViewFixture({ weather: { air_temp_f: 70 } });
  const entities = entityCatalog(view);
  const payload = (key: string) => {
    const entity = entities.find((e) => e.key === key);
    if (!entity) throw new Error(key);
    return discoveryPayload(entity, identity);
  };

  it('identifies the entity, its device, origin and availability', () => {
    expect(payload('pause')).toEqual({
      name: 'Pause watering',
      unique_id: `raincheck_${INSTALL}_pause`,
      default_entity_id: 'switch.raincheck_pause',
      object_id: 'raincheck_pause',
      state_topic: `raincheck/${INSTALL}/pause/state`,
      command_topic: `raincheck/${INSTALL}/pause/set`,
      device: {
        identifiers: [`raincheck_${INSTALL}`],
        name: 'Raincheck',
        manufacturer: 'Raincheck',
        model: 'Raincheck service',
        sw_version: '9.8.7',
      },
      origin: { name: 'Raincheck', sw: '9.8.7', url: REPOSITORY },
      availability: [
        {
          topic: `raincheck/${INSTALL}/status`,
          payload_available: 'online',
          payload_not_available: 'offline',
        },
      ],
      icon: 'mdi:pause-circle',
      payload_on: 'ON',
      payload_off: 'OFF',
      state_on: 'ON',
      state_off: 'OFF',
    });
  });

  it('puts zone valves on the controller device, via the service device', () => {
    expect(payload('zone_front_lawn_valve')).toMatchObject({
      device_class: 'water',
      payload_open: 'OPEN',
      payload_close: 'CLOSE',
      state_open: 'open',
      state_closed: 'closed',
      reports_position: false,
      device: {
        identifiers: [`raincheck_${INSTALL}_controller_valves`],
        name: 'valves (dry_run)',
        via_device: `raincheck_${INSTALL}`,
      },
    });
  });

  it('gives buttons a press payload and no state topic; sensors no command topic', () => {
    const button = payload('zone_front_lawn_run');
    expect(button).toMatchObject({ payload_press: 'PRESS', command_topic: expect.any(String) });
    expect(button.state_topic).toBeUndefined();
    const sensor = payload('weather_air_temp_f');
    expect(sensor).toMatchObject({
      device_class: 'temperature',
      unit_of_measurement: '°F',
      state_class: 'measurement',
      suggested_display_precision: 1,
    });
    expect(sensor.command_topic).toBeUndefined();
    expect(payload('threshold_min_temp_f')).toMatchObject({
      min: 20,
      max: 70,
      step: 1,
      mode: 'box',
      entity_category: 'config',
    });
    expect(payload('global_override').options).toEqual(['auto', 'skip', 'run']);
  });
});

describe('keeping the broker in step with the catalog', () => {
  function step(published: PublishedEntities, options: ViewOptions, sync = {}) {
    const view: CatalogView = catalogViewFixture(options);
    return published.sync(entityCatalog(view), view, sync);
  }
  const on = (messages: RetainedMessage[], topic: string) => messages.filter((m) => m.topic === topic);
  const removed = (messages: RetainedMessage[]) =>
    messages.filter((m) => m.payload === '').map((m) => m.topic);

  it('publishes every config before its state, states retained as text, null as None', () => {
    const published = new PublishedEntities(identity);
    const first = step(published, { verdict: null });
    const view = catalogViewFixture({ verdict: null });
    const entities = entityCatalog(view);
    const configs = first.filter((m) => m.topic.endsWith('/config'));
    expect(configs.map((m) => m.topic).sort()).toEqual(
      entities.map((e) => topics.config(e.platform, e.key)).sort(),
    );
    const lastConfig = first.map((m) => m.topic.endsWith('/config')).lastIndexOf(true);
    const firstState = first.findIndex((m) => m.topic.endsWith('/state'));
    expect(lastConfig).toBeLessThan(firstState);
    expect(on(first, topics.state('verdict'))).toEqual([{ topic: topics.state('verdict'), payload: 'None' }]);
    expect(on(first, topics.state('pause'))[0]?.payload).toBe('OFF');
    expect(on(first, topics.state('zone_front_lawn_run'))).toEqual([]);
    expect(published.keys()).toEqual(entities.map((e) => e.key).sort());
  });

  it('sends nothing when nothing changed, and only the changed state when one did', () => {
    const published = new PublishedEntities(identity);
    step(published, {});
    expect(step(published, {})).toEqual([]);
    expect(step(published, { paused: true })).toEqual([{ topic: topics.state('pause'), payload: 'ON' }]);
  });

  it('removes the bucket sensor (config and state) when the deficit is gone, and adds it back', () => {
    const published = new PublishedEntities(identity);
    const bucketConfig = topics.config('sensor', 'zone_front_lawn_bucket');
    const bucketState = topics.state('zone_front_lawn_bucket');
    const dry = { zones: { front_lawn: { bucket_mm: -3.5 } } };
    const first = step(published, dry);
    expect(on(first, bucketState)).toEqual([{ topic: bucketState, payload: '-3.5' }]);

    const wet = step(published, { zones: { front_lawn: { bucket_mm: 0.4 } } });
    expect(removed(wet)).toEqual([bucketConfig, bucketState]);
    expect(wet).toHaveLength(2);
    expect(published.keys()).not.toContain('zone_front_lawn_bucket');

    const again = step(published, dry);
    expect(on(again, bucketConfig)).toHaveLength(1);
    expect(on(again, bucketConfig)[0]?.payload).not.toBe('');
    expect(on(again, bucketState)).toEqual([{ topic: bucketState, payload: '-3.5' }]);
  });

  it('removes every entity of a deleted zone and a vanished weather field', () => {
    const published = new PublishedEntities(identity);
    step(published, { weather: { air_temp_f: 70, rh_pct: 40 } });
    const after = step(
      published,
      { zones: { front_lawn: { bucket_mm: -4.2, planned_run_seconds: 900 } }, weather: { air_temp_f: 70 } },
      { scope: 'irrigation' },
    );
    expect(removed(after).sort()).toEqual(
      [
        topics.config('sensor', 'zone_back_beds_planned'),
        topics.state('zone_back_beds_planned'),
        topics.config('sensor', 'zone_back_beds_last_run'),
        topics.state('zone_back_beds_last_run'),
        topics.config('valve', 'zone_back_beds_valve'),
        topics.state('zone_back_beds_valve'),
        topics.config('button', 'zone_back_beds_run'),
        topics.config('select', 'zone_back_beds_override'),
        topics.state('zone_back_beds_override'),
        topics.config('sensor', 'weather_rh_pct'),
        topics.state('weather_rh_pct'),
      ].sort(),
    );
  });

  it('limits states to the scope, except for entities that just appeared', () => {
    const published = new PublishedEntities(identity);
    step(published, { weather: { air_temp_f: 70 } });
    const weatherOnly = step(
      published,
      { paused: true, weather: { air_temp_f: 71, rh_pct: 40 } },
      { scope: 'weather' },
    );
    expect(weatherOnly.filter((m) => m.topic.endsWith('/state')).map((m) => m.topic)).toEqual([
      topics.state('weather_air_temp_f'),
      topics.state('weather_rh_pct'),
    ]);
    const irrigationOnly = step(
      published,
      { paused: true, weather: { air_temp_f: 72, rh_pct: 40 } },
      {
        scope: 'irrigation',
      },
    );
    expect(irrigationOnly).toEqual([{ topic: topics.state('pause'), payload: 'ON' }]);
  });

  it('a full sync republishes everything; adopted leftovers of an earlier run are removed', () => {
    const published = new PublishedEntities(identity);
    published.adopt('sensor', 'zone_gone_bucket');
    published.adopt('switch', 'pause');
    const full = step(published, {}, { full: true });
    expect(removed(full)).toEqual([
      topics.config('sensor', 'zone_gone_bucket'),
      topics.state('zone_gone_bucket'),
    ]);
    expect(on(full, topics.config('switch', 'pause'))[0]?.payload).toContain('"unique_id"');
    const again = step(published, {}, { full: true });
    expect(again.length).toBe(full.length - 2);
    expect(removed(again)).toEqual([]);
  });

  it('clear() empties every config and state it published', () => {
    const published = new PublishedEntities(identity);
    const first = step(published, {});
    const cleared = published.clear();
    expect(cleared.every((m) => m.payload === '')).toBe(true);
    expect(cleared.map((m) => m.topic).sort()).toEqual(first.map((m) => m.topic).sort());
    expect(published.size).toBe(0);
  });
});
