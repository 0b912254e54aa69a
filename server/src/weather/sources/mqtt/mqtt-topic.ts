import type { IClientOptions, MqttClient } from 'mqtt';
import type { z } from 'zod';
import { epochSeconds } from '../../../core/clock';
import type { Logger } from '../../../core/logger';
import { lazySchema } from '../../../core/zod-lazy';
import {
  parseSourceConfig,
  type ExtraReading,
  type SourceContext,
  type SourceKindDefinition,
  type WeatherSource,
} from '../../source';
import { numeric, resolvePath } from '../webhook/webhook-source';

/**
 * The `mqtt_topic` source: one soil probe fed from one MQTT topic (a
 * Zigbee2MQTT or ESPHome moisture sensor, a DIY probe). The payload is the
 * reading itself ("33.5"), or, with `value_path`, a JSON object holding it at
 * that dot path ({"soil_moisture": 33.5} with value_path "soil_moisture").
 * Each reading is published as the extra `soil_moisture_pct:<channel>` (the
 * key an Ecowitt WH51 channel has), so a zone binds it as
 * `source:<source id>:soil_moisture_pct:<channel>` and its history is kept
 * like a gateway's; `battery_path` adds `battery:probe:<channel>` from the
 * same JSON payload.
 *
 * A payload without a number publishes nothing (never a 0). A retained
 * message is skipped: the broker replays it on every subscribe with no time
 * of its own, so it would make a probe that died days ago look fresh. Like
 * the other MQTT clients here, nothing is queued while offline and the
 * subscription is made again on every connect.
 */

export const MQTT_TOPIC_KIND = 'mqtt_topic';
const RECONNECT_MS = 5_000;
const CONNECT_TIMEOUT_MS = 10_000;
const DOT_PATH = /^[^.\s]+(?:\.[^.\s]+)*$/;

export const mqttTopicConfigSchema = lazySchema((z) =>
  z.looseObject({
    broker_host: z.string().min(1),
    broker_port: z.number().int().min(1).max(65535).default(1883),
    tls: z.boolean().default(false),
    username: z.string().nullish(),
    /** A secret by its key name. */
    password: z.string().nullish(),
    client_id: z.string().min(1).nullish().describe('null = raincheck-<source id>'),
    topic: z
      .string()
      .min(1)
      .regex(/^[^+#]+$/, 'one topic, without the wildcards + and #'),
    value_path: z
      .string()
      .regex(DOT_PATH, 'expected a dot path such as "soil_moisture"')
      .nullish()
      .describe('null = the payload is the number'),
    channel: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,32}$/, 'a channel name of letters, digits, - or _')
      .default('1'),
    label: z.string().max(80).nullish(),
    battery_path: z.string().regex(DOT_PATH, 'expected a dot path').nullish(),
  }),
);

export type MqttTopicConfig = z.output<typeof mqttTopicConfigSchema>;

/** The extras one payload gives; empty when it holds no number where the config looks. Pure. */
export function mqttSoilExtras(text: string, config: MqttTopicConfig, observedEpoch: number): ExtraReading[] {
  let body: unknown = text;
  if (config.value_path || config.battery_path) {
    try {
      body = JSON.parse(text) as unknown;
    } catch {
      if (config.value_path) return [];
    }
  }
  const value = config.value_path ? numeric(resolvePath(body, config.value_path).value) : numeric(text);
  if (value === null) return [];
  const out: ExtraReading[] = [
    {
      key: `soil_moisture_pct:${config.channel}`,
      value,
      observedEpoch,
      label: config.label ?? `Soil moisture ${config.channel}`,
    },
  ];
  const battery = config.battery_path ? numeric(resolvePath(body, config.battery_path).value) : null;
  if (battery !== null) {
    out.push({
      key: `battery:probe:${config.channel}`,
      value: battery,
      observedEpoch,
      label: `Soil probe ${config.channel} battery`,
    });
  }
  return out;
}

export class MqttTopicSource implements WeatherSource {
  readonly kind = MQTT_TOPIC_KIND;
  readonly id: string;
  private readonly log: Logger;
  private client: MqttClient | null = null;

  constructor(
    private readonly ctx: SourceContext,
    private readonly config: MqttTopicConfig,
  ) {
    this.id = ctx.id;
    this.log = ctx.logger.child({ module: 'weather.mqtt_topic', source: ctx.id });
  }

  async start(): Promise<void> {
    // The MQTT client library loads only when a source uses it.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mqtt = require('mqtt') as typeof import('mqtt');
    const client = mqtt.connect(this.clientOptions());
    this.client = client;
    client.on('connect', () => {
      client.subscribe(this.config.topic, { qos: 0 }, (err) => {
        if (err) this.failed(`subscribe ${this.config.topic}: ${err.message}`);
      });
    });
    client.on('error', (err) => this.failed(err.message));
    client.on('message', (_topic, payload, packet) => {
      if (packet.retain) return;
      this.take(payload.toString('utf8'));
    });
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = null;
    if (client) await client.endAsync(true).catch(() => undefined);
  }

  private take(text: string): void {
    const extras = mqttSoilExtras(text, this.config, epochSeconds(this.ctx.clock));
    if (extras.length === 0) {
      this.ctx.sink.contact(false, `a payload on ${this.config.topic} held no number`);
      return;
    }
    this.ctx.sink.publish({ extras });
    this.ctx.sink.contact(true);
  }

  private failed(message: string): void {
    // The client's errors name the broker, never the credentials.
    this.log.warn({ err: message }, 'MQTT soil topic broker error');
    this.ctx.sink.contact(false, `broker: ${message}`);
  }

  private clientOptions(): IClientOptions {
    const { config } = this;
    return {
      host: config.broker_host,
      port: config.broker_port,
      protocol: config.tls ? 'mqtts' : 'mqtt',
      clientId: config.client_id ?? `raincheck-${this.id}`,
      ...(config.username ? { username: config.username } : {}),
      ...(config.password ? { password: config.password } : {}),
      clean: true,
      connectTimeout: CONNECT_TIMEOUT_MS,
      reconnectPeriod: RECONNECT_MS,
      reconnectOnConnackError: true,
      // Never queue while offline, and subscribe again on every connect (above).
      queueQoSZero: false,
      resubscribe: false,
    };
  }
}

export const mqttTopicKind: SourceKindDefinition = {
  kind: MQTT_TOPIC_KIND,
  label: 'MQTT topic (soil probe)',
  provides: [],
  configSchema: mqttTopicConfigSchema,
  create(ctx: SourceContext): MqttTopicSource {
    return new MqttTopicSource(ctx, parseSourceConfig(mqttTopicConfigSchema, ctx));
  },
};
