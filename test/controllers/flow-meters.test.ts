import mqtt from 'mqtt';
import { configSchema } from '../../server/src/config/schema';
import { FlowMeterHub, type FlowMeterHubDeps } from '../../server/src/controllers/flow-meters/meter-hub';
import { EventBus, type FlowReadingEvent } from '../../server/src/core/bus';
import type { WeatherSnapshot } from '../../server/src/weather/snapshot';
import { ManualClock, systemClock } from '../../server/src/core/clock';
import { silentLogger } from '../../server/src/core/logger';
import { HaLink } from '../../server/src/ha/ha-link';
import { meteredWater } from '../../server/src/irrigation/flow/metered-water';
import { HaPeer, PEER_TOKEN, waitFor } from '../helpers/ha-peer';
import { startMosquitto, type MosquittoBroker } from '../helpers/mosquitto';

/**
 * Flow meters bound in the config, read through each path a meter can take:
 * a Home Assistant sensor over the real websocket link (the loopback HA peer),
 * an MQTT topic on a real Mosquitto broker, and a weather source's extra
 * channel. Every reading reaches the bus as `flow.reading` in US gal/min or
 * US gallons; readings that are not numbers are skipped.
 */

const LITRES_PER_GALLON = 3.785411784;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function configWith(meter: Record<string, unknown>) {
  return configSchema.parse({
    schema_version: 2,
    deployment: { location: { lat: 40.7, lon: -74 } },
    controllers: [{ id: 'esp', kind: 'dry_run', default: true }],
    zones: { front_lawn: { flow_meter: meter } },
  });
}

async function hub(
  meter: Record<string, unknown>,
  deps: Partial<FlowMeterHubDeps> = {},
): Promise<{ bus: EventBus; readings: FlowReadingEvent[] }> {
  const bus = new EventBus();
  const readings: FlowReadingEvent[] = [];
  bus.on('flow.reading', (event) => readings.push(event));
  const config = configWith(meter);
  const meters = new FlowMeterHub({
    bus,
    clock: new ManualClock(Date.UTC(2026, 6, 1, 6)),
    logger: silentLogger(),
    config: () => ({ config, document: {}, appliedAtEpoch: 0, revision: 1 }),
    ha: () => null,
    mqttBroker: () => null,
    sourceChannel: () => null,
    ...deps,
  });
  await meters.start();
  cleanups.push(() => meters.stop());
  return { bus, readings };
}

describe('a Home Assistant sensor', () => {
  it("reads its state in its own unit, from its current state on, and skips 'unavailable'", async () => {
    const peer = await HaPeer.start({
      states: [
        {
          entity_id: 'sensor.irrigation_flow',
          state: '0',
          attributes: { unit_of_measurement: 'L/min', device_class: 'volume_flow_rate' },
        },
      ],
    });
    cleanups.push(() => peer.close());
    const link = new HaLink({ url: peer.url, token: PEER_TOKEN, logger: silentLogger(), clock: systemClock });
    cleanups.push(() => link.stop());
    await link.start();
    const { readings } = await hub(
      { kind: 'ha_sensor', entity_id: 'sensor.irrigation_flow' },
      { ha: () => link },
    );

    await waitFor(() => readings.length === 1, 'the current state');
    expect(readings[0]).toMatchObject({
      meter: 'zone:front_lawn',
      source_id: 'ha:sensor.irrigation_flow',
      rate_gpm: 0,
    });
    await waitFor(() => peer.subscriptionCount() > 0, 'the subscription');
    peer.emitStateChange('sensor.irrigation_flow', { state: '22.7' });
    peer.emitStateChange('sensor.irrigation_flow', { state: 'unavailable' });
    peer.emitStateChange('sensor.irrigation_flow', {
      state: '7.57',
      attributes: { unit_of_measurement: 'L/min' },
    });
    await waitFor(() => readings.length === 3, 'two readings');
    const gpm = readings.map((r) => r.rate_gpm as number);
    expect(gpm[0]).toBe(0);
    expect(gpm[1]).toBeCloseTo(22.7 / LITRES_PER_GALLON, 9); // 6 gal/min
    expect(gpm[2]).toBeCloseTo(7.57 / LITRES_PER_GALLON, 9); // 2 gal/min
    expect(readings.every((r) => r.total_gal === null)).toBe(true);
  });
});

describe('an MQTT topic (real Mosquitto)', () => {
  let broker: MosquittoBroker;
  beforeAll(async () => {
    broker = await startMosquitto();
  });
  afterAll(async () => {
    await broker.stop();
  });

  async function publish(topic: string, payloads: string[]): Promise<void> {
    const client = await mqtt.connectAsync(broker.url);
    for (const payload of payloads) await client.publishAsync(topic, payload);
    await client.endAsync();
  }

  it('takes a JSON payload key, in the configured unit', async () => {
    const { readings } = await hub(
      { kind: 'mqtt', topic: 'garden/flow', value_key: 'flow', unit: 'gal/h' },
      {
        mqttBroker: () => ({
          host: broker.host,
          port: broker.port,
          tls: false,
          username: null,
          password: null,
        }),
      },
    );
    // Let the meter subscribe before the publishes.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await publish('garden/flow', ['{"flow": 360}', '{"other": 1}', 'not json', '{"flow": "120"}']);
    await waitFor(() => readings.length === 2, 'two readings');
    expect(readings).toEqual([
      expect.objectContaining({ meter: 'zone:front_lawn', source_id: 'mqtt:garden/flow', rate_gpm: 6 }),
      expect.objectContaining({ rate_gpm: 2 }),
    ]);
  });

  it('reads a cumulative total (a counter in m3) as gallons', async () => {
    const { readings } = await hub(
      { kind: 'mqtt', topic: 'house/water/total', reading: 'total', unit: 'm3' },
      {
        mqttBroker: () => ({
          host: broker.host,
          port: broker.port,
          tls: false,
          username: null,
          password: null,
        }),
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    await publish('house/water/total', ['1234.5']);
    await waitFor(() => readings.length === 1, 'a reading');
    expect(readings[0]?.total_gal).toBeCloseTo((1234.5 * 1000) / LITRES_PER_GALLON, 6);
    expect(readings[0]?.rate_gpm).toBeNull();
  });
});

describe('a weather source channel', () => {
  it('reads a source extra when the weather changes, once per new observation', async () => {
    let channel: { value: number; observed_epoch: number } | null = { value: 4, observed_epoch: 100 };
    const { bus, readings } = await hub(
      { kind: 'source', source_id: 'gw', key: 'water_flow' },
      { sourceChannel: (id, key) => (id === 'gw' && key === 'water_flow' ? channel : null) },
    );
    const changed = () => bus.emit('weather.snapshot', {} as WeatherSnapshot);
    changed();
    changed();
    channel = { value: 5, observed_epoch: 160 };
    changed();
    expect(readings.map((r) => [r.source_id, r.rate_gpm])).toEqual([
      ['source:gw:water_flow', 4],
      ['source:gw:water_flow', 5],
    ]);
  });
});

describe('config', () => {
  it('requires what each kind needs and a unit that fits the reading', () => {
    const check = (meter: Record<string, unknown>) =>
      configSchema.safeParse({
        schema_version: 2,
        deployment: { location: { lat: 0, lon: 0 } },
        zones: { z: { flow_meter: meter } },
      }).success;
    expect(check({ kind: 'controller' })).toBe(true);
    expect(check({ kind: 'ha_sensor' })).toBe(false);
    expect(check({ kind: 'ha_sensor', entity_id: 'switch.x' })).toBe(false);
    expect(check({ kind: 'mqtt', topic: 'a/+/b' })).toBe(false);
    expect(check({ kind: 'source', source_id: 'gw' })).toBe(false);
    expect(check({ kind: 'mqtt', topic: 'a/b', reading: 'total', unit: 'gal/min' })).toBe(false);
    expect(check({ kind: 'mqtt', topic: 'a/b', reading: 'total', unit: 'L' })).toBe(true);
    expect(check({ kind: 'controller', low_factor: 1.2 })).toBe(false);
    expect(configWith({ kind: 'controller' }).zones.front_lawn?.flow_meter).toEqual({
      kind: 'controller',
      reading: 'rate',
      high_factor: 1.3,
      low_factor: 0.7,
      leak_stop_factor: 2,
      no_flow_gpm: 0.1,
      settle_s: 60,
      baseline_runs: 5,
    });
  });
});

describe('metered water from readings', () => {
  it('integrates rates as steps, takes a counter difference, and holds a change-only sensor steady', () => {
    const rate = (epoch: number, gpm: number) => ({ epoch, rate_gpm: gpm, total_gal: null });
    expect(meteredWater([rate(100, 6), rate(160, 9), rate(220, 0)], 100, 220)).toEqual({
      volume_gal: 15,
      mean_flow_gpm: 7.5,
    });
    // A sensor that changed to 6 before the valve opened and said nothing since.
    expect(meteredWater([rate(40, 6)], 100, 220)).toEqual({ volume_gal: 12, mean_flow_gpm: 6 });
    const total = (epoch: number, gal: number) => ({ epoch, rate_gpm: null, total_gal: gal });
    expect(meteredWater([total(90, 1000), total(150, 1004), total(230, 1010)], 100, 220)).toEqual({
      volume_gal: 10,
      mean_flow_gpm: 5,
    });
    expect(meteredWater([total(90, 1000), total(230, 3)], 100, 220)).toBeNull(); // the counter was reset
    expect(meteredWater([], 100, 220)).toBeNull();
  });
});
