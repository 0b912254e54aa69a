import type { MqttClient } from 'mqtt';
import type { Logger } from '../../core/logger';
import { connectMqtt } from '../../core/mqtt-connect';
import type { HaServices } from '../types';

/**
 * The ways a flow meter's raw value reaches Raincheck. Each reader calls
 * `onValue` with a number and, when the source says, its unit; the hub
 * (meter-hub.ts) turns that into gallons per minute or gallons. A reading
 * that is not a number (`unavailable`, `unknown`, a payload without the key)
 * is skipped: no value is better than a made-up one.
 */

export type OnValue = (value: number, unit: string | null) => void;

export interface MeterReader {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** A Home Assistant sensor: its state, in its `unit_of_measurement`. */
export class HaSensorReader implements MeterReader {
  private off: (() => void) | null = null;

  constructor(
    private readonly ha: HaServices | null,
    private readonly entityId: string,
    private readonly onValue: OnValue,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    if (!this.ha) {
      this.log.warn({ entity: this.entityId }, 'a Home Assistant flow meter needs the Home Assistant link');
      return;
    }
    this.off = this.ha.subscribeStates([this.entityId], (_id, state) => {
      if (state) this.take(state);
    });
    // Events carry changes only: start from the state it has now.
    const states = await this.ha.getStates().catch(() => []);
    const current = states.find((s) => s.entity_id === this.entityId);
    if (current) this.take(current);
  }

  private take(state: { state: string; attributes: Record<string, unknown> }): void {
    const value = Number(state.state);
    const unit = state.attributes.unit_of_measurement;
    if (state.state.trim() !== '' && Number.isFinite(value)) {
      this.onValue(value, typeof unit === 'string' ? unit : null);
    }
  }

  async stop(): Promise<void> {
    this.off?.();
    this.off = null;
  }
}

export interface MqttBroker {
  host: string;
  port: number;
  tls: boolean;
  username: string | null;
  password: string | null;
}

/** An MQTT topic: the payload is the number, or a JSON object holding it under `value_key`. */
export class MqttTopicReader implements MeterReader {
  private client: MqttClient | null = null;

  constructor(
    private readonly broker: MqttBroker | null,
    private readonly topic: string,
    private readonly valueKey: string | null,
    private readonly onValue: OnValue,
    private readonly log: Logger,
    private readonly clientId: string,
  ) {}

  async start(): Promise<void> {
    if (!this.broker) {
      this.log.warn(
        { topic: this.topic },
        'an MQTT flow meter needs a broker (notifications.mqtt or the add-on)',
      );
      return;
    }
    const { host, port, tls, username, password } = this.broker;
    // The MQTT client library loads only when a meter uses it (core/mqtt-connect.ts).
    const client = connectMqtt({
      host,
      port,
      protocol: tls ? 'mqtts' : 'mqtt',
      clientId: this.clientId,
      ...(username ? { username } : {}),
      ...(password ? { password } : {}),
      reconnectPeriod: 5_000,
      // No 6 MB cache of packet-id Buffers (ha/mqtt/publisher.ts).
      writeCache: false,
    });
    this.client = client;
    client.on('connect', () => client.subscribe(this.topic, { qos: 0 }));
    client.on('error', (err) =>
      this.log.warn({ topic: this.topic, err: err.message }, 'flow meter broker error'),
    );
    client.on('message', (_topic, payload) => {
      const value = this.parse(payload.toString('utf8'));
      if (value !== null) this.onValue(value, null);
    });
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = null;
    if (client) await client.endAsync(true).catch(() => undefined);
  }

  private parse(text: string): number | null {
    let value: unknown = text.trim();
    if (this.valueKey) {
      try {
        value = (JSON.parse(text) as Record<string, unknown>)[this.valueKey];
      } catch {
        return null;
      }
    }
    const number =
      typeof value === 'number' ? value : typeof value === 'string' && value !== '' ? Number(value) : NaN;
    return Number.isFinite(number) ? number : null;
  }
}

/** A weather source's extra channel (`source:<id>:<key>`), read whenever the weather snapshot changes. */
export class SourceChannelReader implements MeterReader {
  private lastEpoch = 0;

  constructor(
    private readonly channel: () => { value: number; observed_epoch: number } | null,
    private readonly subscribe: (listener: () => void) => () => void,
    private readonly onValue: OnValue,
  ) {}

  private off: (() => void) | null = null;

  async start(): Promise<void> {
    this.off = this.subscribe(() => {
      const reading = this.channel();
      if (!reading || reading.observed_epoch <= this.lastEpoch) return;
      this.lastEpoch = reading.observed_epoch;
      this.onValue(reading.value, null);
    });
  }

  async stop(): Promise<void> {
    this.off?.();
    this.off = null;
  }
}
