import type { AppliedConfig } from '../../config/config-types';
import { meterBindings, type MeterBinding } from '../../config/flow-meter-binding';
import type { ControllerStatusEvent, EventBus } from '../../core/bus';
import { epochSeconds, type Clock } from '../../core/clock';
import type { Module } from '../../core/lifecycle';
import type { Logger } from '../../core/logger';
import type { HaServices } from '../types';
import {
  HaSensorReader,
  MqttTopicReader,
  SourceChannelReader,
  type MeterReader,
  type MqttBroker,
  type OnValue,
} from './meter-readers';
import { toGallons, toGpm } from './units';

/**
 * Every configured flow meter (config `flow_meter` on a controller or a
 * zone), read and announced as `flow.reading` in one unit: US gal/min for a
 * rate, US gallons for a cumulative total. The irrigation domain's flow
 * monitor takes it from there (volumes, baselines, alarms). Readers:
 *
 * - `controller`: the controller's own sensor, from its readings
 *   (`controller.status` flow fields; OpenSprinkler with `flow_pulse_unit`);
 * - `ha_sensor`: a Home Assistant sensor's state events;
 * - `mqtt`: a topic on the notifications.mqtt broker (or the add-on's);
 * - `source`: a weather source's extra channel, whenever the weather changes.
 *
 * Rebuilt on every config change (meters are few and cheap).
 */

export interface FlowMeterHubDeps {
  bus: EventBus;
  clock: Clock;
  logger: Logger;
  config: () => AppliedConfig | null;
  ha: () => HaServices | null;
  mqttBroker: () => MqttBroker | null;
  /** The latest value of a weather source's extra channel. */
  sourceChannel: (sourceId: string, key: string) => { value: number; observed_epoch: number } | null;
}

interface Running {
  binding: MeterBinding;
  reader: MeterReader | null;
}

export class FlowMeterHub implements Module {
  readonly name = 'flow-meters';
  private readonly log: Logger;
  private running: Running[] = [];
  private readonly offs: (() => void)[] = [];

  constructor(private readonly deps: FlowMeterHubDeps) {
    this.log = deps.logger.child({ module: 'flow-meters' });
  }

  async start(): Promise<void> {
    this.offs.push(this.deps.bus.on('config.changed', () => void this.rebuild()));
    this.offs.push(this.deps.bus.on('controller.status', (event) => this.fromController(event)));
    await this.rebuild();
  }

  async stop(): Promise<void> {
    for (const off of this.offs.splice(0)) off();
    await this.stopAll();
  }

  /** The bound meters, by key (`controller:<id>`, `zone:<slug>`), with where their readings come from. */
  meters(): { key: string; source_id: string }[] {
    return this.running.map(({ binding }) => ({ key: binding.key, source_id: sourceLabel(binding) }));
  }

  private async rebuild(): Promise<void> {
    await this.stopAll();
    const config = this.deps.config()?.config;
    if (!config) return;
    this.running = meterBindings(config).map((binding) => ({ binding, reader: this.readerFor(binding) }));
    for (const { reader, binding } of this.running) {
      await reader?.start().catch((err: unknown) => {
        this.log.warn({ meter: binding.key, err: String(err) }, 'a flow meter did not start');
      });
    }
  }

  private async stopAll(): Promise<void> {
    const running = this.running;
    this.running = [];
    for (const { reader } of running) await reader?.stop().catch(() => undefined);
  }

  private readerFor(binding: MeterBinding): MeterReader | null {
    const { meter } = binding;
    const onValue: OnValue = (value, unit) => this.emit(binding, value, unit);
    switch (meter.kind) {
      case 'ha_sensor':
        return new HaSensorReader(this.deps.ha(), meter.entity_id ?? '', onValue, this.log);
      case 'mqtt':
        return new MqttTopicReader(
          this.deps.mqttBroker(),
          meter.topic ?? '',
          meter.value_key ?? null,
          onValue,
          this.log,
          `raincheck-flow-${binding.key.replace(/[^A-Za-z0-9_-]/g, '_')}`,
        );
      case 'source':
        return new SourceChannelReader(
          () => this.deps.sourceChannel(meter.source_id ?? '', meter.key ?? ''),
          (listener) => this.deps.bus.on('weather.snapshot', listener),
          onValue,
        );
      default:
        return null; // `controller`: read from controller.status below
    }
  }

  /** `controller` meters take their controller's flow fields. */
  private fromController(event: ControllerStatusEvent): void {
    if (event.simulated) return;
    for (const { binding } of this.running) {
      if (binding.meter.kind !== 'controller' || binding.controllerId !== event.controller_id) continue;
      const total = binding.meter.reading === 'total';
      const value = total ? event.flow_total_gal_today : event.flow_rate_gpm;
      if (value !== null) this.emit(binding, value, total ? 'gal' : 'gal/min');
    }
  }

  private emit(binding: MeterBinding, value: number, reportedUnit: string | null): void {
    const { meter } = binding;
    const total = meter.reading === 'total';
    const unit = meter.unit ?? reportedUnit ?? (total ? 'gal' : 'gal/min');
    const converted = total ? toGallons(value, unit) : toGpm(value, unit);
    if (converted === null) {
      this.log.warn({ meter: binding.key, unit }, 'a flow meter reading in a unit this build does not know');
      return;
    }
    this.deps.bus.emit('flow.reading', {
      meter: binding.key,
      source_id: sourceLabel(binding),
      epoch: epochSeconds(this.deps.clock),
      rate_gpm: total ? null : converted,
      total_gal: total ? converted : null,
    });
  }
}

/** Where a meter's readings come from, as the snapshot's `flow.rate_source_id` names it. */
function sourceLabel(binding: MeterBinding): string {
  const { meter } = binding;
  switch (meter.kind) {
    case 'ha_sensor':
      return `ha:${meter.entity_id}`;
    case 'mqtt':
      return `mqtt:${meter.topic}`;
    case 'source':
      return `source:${meter.source_id}:${meter.key}`;
    default:
      return binding.controllerId ?? binding.key;
  }
}
