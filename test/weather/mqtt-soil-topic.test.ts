import mqtt from 'mqtt';
import request from 'supertest';
import { mqttTopicConfigSchema, mqttTopicKind } from '../../server/src/weather/sources/mqtt/mqtt-topic';
import type { WeatherSource } from '../../server/src/weather/source';
import { startMosquitto, type MosquittoBroker } from '../helpers/mosquitto';
import { serviceTracker } from '../helpers/service';
import { extraOf, makeContext, type RecordingSink } from './ecowitt/helpers';

/**
 * The `mqtt_topic` soil source on a real Mosquitto broker: a raw percent
 * payload, a JSON payload read at a path (with its battery), payloads without
 * a number, a retained message (skipped), and the channel bound to a zone
 * over the running service.
 */

let broker: MosquittoBroker;
let publisher: mqtt.MqttClient;
const started: WeatherSource[] = [];
const services = serviceTracker();

beforeAll(async () => {
  broker = await startMosquitto();
  publisher = await mqtt.connectAsync(broker.url);
});

afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.stop()));
});

afterAll(async () => {
  await publisher.endAsync();
  await broker.stop();
});

function brokerConfig(topic: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { broker_host: broker.host, broker_port: broker.port, topic, ...extra };
}

async function startSource(config: Record<string, unknown>): Promise<RecordingSink> {
  const { ctx, sink } = makeContext(config, { id: 'bed_probe' });
  const source = mqttTopicKind.create(ctx);
  started.push(source);
  await source.start();
  return sink;
}

/** Publishes `payload` until the sink has `count` batches (the source subscribes after connecting). */
async function publishUntilSeen(sink: RecordingSink, topic: string, payload: string): Promise<void> {
  const before = sink.batches.length;
  const timer = setInterval(() => void publisher.publishAsync(topic, payload), 100);
  try {
    await sink.until(() => sink.batches.length > before);
  } finally {
    clearInterval(timer);
  }
}

describe('an mqtt_topic soil source (real Mosquitto)', () => {
  it('publishes a raw percent payload as soil_moisture_pct:<channel>', async () => {
    const sink = await startSource(brokerConfig('garden/bed/moisture'));
    await publishUntilSeen(sink, 'garden/bed/moisture', ' 33.5 ');
    const reading = extraOf(sink.batches[0]!, 'soil_moisture_pct:1');
    expect(reading).toMatchObject({ value: 33.5, label: 'Soil moisture 1' });
    expect(sink.contacts.at(-1)).toEqual({ ok: true });
  });

  it('reads a JSON payload at value_path, with its battery; a payload without the number publishes nothing', async () => {
    const topic = 'zigbee2mqtt/bed_probe';
    const sink = await startSource(
      brokerConfig(topic, { value_path: 'soil_moisture', battery_path: 'battery', channel: 'bed' }),
    );
    await publishUntilSeen(sink, topic, '{"soil_moisture": 41, "battery": 87, "linkquality": 120}');
    expect(sink.batches[0]!.extras).toEqual([
      expect.objectContaining({ key: 'soil_moisture_pct:bed', value: 41 }),
      expect.objectContaining({ key: 'battery:probe:bed', value: 87 }),
    ]);
    const batches = sink.batches.length;
    for (const bad of ['{"battery": 80}', 'not json', '{"soil_moisture": "wet"}']) {
      await publisher.publishAsync(topic, bad);
    }
    await sink.until(() => sink.contacts.filter((c) => !c.ok).length >= 3);
    expect(sink.batches.length).toBe(batches);
    expect(sink.contacts.at(-1)).toEqual({ ok: false, note: `a payload on ${topic} held no number` });
  });

  it('skips a retained message: it has no time of its own', async () => {
    const topic = 'garden/retained/moisture';
    await publisher.publishAsync(topic, '55', { retain: true, qos: 1 });
    const sink = await startSource(brokerConfig(topic));
    await publishUntilSeen(sink, topic, '30');
    expect(sink.batches.flatMap((b) => b.extras ?? []).map((e) => e.value)).not.toContain(55);
    await publisher.publishAsync(topic, '', { retain: true, qos: 1 });
  });

  it('refuses a wildcard topic and a missing broker in its config', () => {
    expect(mqttTopicConfigSchema.safeParse({ broker_host: 'x', topic: 'garden/+/moisture' }).success).toBe(
      false,
    );
    expect(mqttTopicConfigSchema.safeParse({ topic: 'garden/bed' }).success).toBe(false);
    expect(mqttTopicConfigSchema.parse({ broker_host: 'x', topic: 'garden/bed' })).toMatchObject({
      broker_port: 1883,
      channel: '1',
    });
  });
});

describe('an mqtt_topic probe over the service', () => {
  it('lists the channel as a probe a zone binds, and the zone shows its reading', async () => {
    const topic = 'garden/front/moisture';
    const configToml = [
      'schema_version = 2',
      '[deployment]',
      'timezone = "America/Denver"',
      '[deployment.location]',
      'lat = 39.7',
      'lon = -105.0',
      '[[sources]]',
      'id = "front_probe"',
      'priority = 100',
      'kind = "mqtt_topic"',
      '[sources.config]',
      `broker_host = "${broker.host}"`,
      `broker_port = ${broker.port}`,
      `topic = "${topic}"`,
      'value_path = "moisture"',
      'battery_path = "battery"',
      '[zones.front_lawn]',
      'display_name = "Front lawn"',
      'target_min_pct_soil = 20',
      'saturation_pct_soil = 80',
      '',
    ].join('\n');
    const { service } = await services.boot({ configToml });
    const server = service.server;
    const id = 'source:front_probe:soil_moisture_pct:1';
    const deadline = Date.now() + 10_000;
    let probe: Record<string, unknown> | undefined;
    while (!probe && Date.now() < deadline) {
      await publisher.publishAsync(topic, '{"moisture": 36.5, "battery": 3.0}');
      await new Promise((resolve) => setTimeout(resolve, 200));
      const res = await request(server).get('/api/v1/sensors/soil/probes').expect(200);
      probe = (res.body.probes as Record<string, unknown>[]).find((p) => p['id'] === id);
    }
    expect(probe).toMatchObject({ source_id: 'front_probe', raw_pct: 36.5, battery: 3, zone: null });
    await request(server)
      .put('/api/v1/sensors/soil/binding')
      .send({ sensor_id: id, zone: 'front_lawn' })
      .expect(200);
    const snapshot = await request(server).get('/api/v1/irrigation/snapshot').expect(200);
    const front = (snapshot.body.soil_forecasts as Record<string, unknown>[]).find(
      (f) => f['zone'] === 'front_lawn',
    );
    expect(front).toMatchObject({ status: 'uncalibrated', sensor_id: id, raw_pct: 36.5, reading_pct: 36.5 });
  });
});
