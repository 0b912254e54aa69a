import { EventEmitter } from 'node:events';
import type { AppliedConfig } from '../config/config-types';
import type { ForecastSnapshot } from '../forecast/types';
import type { IrrigationSnapshot } from '../irrigation/snapshot-schema';
import type { SiteFacts } from '../location/site';
import type { WeatherSnapshot } from '../weather/snapshot';

/**
 * Every event that crosses a module boundary, by name. Modules talk through
 * this bus instead of importing each other; later domains add their events here.
 */
export interface BusEvents {
  /** A new config was saved (PUT, raw PUT, rollback, wizard); every subsystem hot-reloads from it. */
  'config.changed': { previous: AppliedConfig | null; next: AppliedConfig };
  /** The merged weather snapshot changed (coalesced to a few per second). */
  'weather.snapshot': WeatherSnapshot;
  /** The forecast snapshot after a refresh (success or failure). */
  'forecast.snapshot': ForecastSnapshot;
  /** The irrigation snapshot after a recompute. */
  'irrigation.snapshot': IrrigationSnapshot;
  /** A run record was written or changed (zone null: several zones). */
  'runs.changed': { zone: string | null };
  /** A controller's state was read (polled or pushed); zones keyed by slug. */
  'controller.status': ControllerStatusEvent;
  /** The Home Assistant link connected (true) or dropped (false). */
  'ha.connection': { connected: boolean };
  /** Home Assistant's location facts (get_config) were read and differ from the last ones. */
  'ha.facts': SiteFacts;
  /** The retired-helper adoption finished (or its stored records were loaded): the snapshot's `ha_adoption`. */
  'ha.adoption': { entries: HaAdoptionEntry[] };
}

/** Spec 2.5 `ha_adoption[]` entry (values as text, null when there is none). */
export interface HaAdoptionEntry {
  entity: string;
  outcome: 'adopted' | 'not_found' | 'unreadable' | 'kept_local';
  target: string;
  adopted_value: string | null;
  previous_value: string | null;
  epoch: number;
  observed_value?: string;
}

export interface ControllerStatusEvent {
  controller_id: string;
  /** Dry-run controllers report pretend valves: nothing to observe. */
  simulated: boolean;
  observed_epoch: number;
  zones: Record<string, { running: boolean; remaining_s: number | null }>;
  water_level_pct: number | null;
  flow_rate_gpm: number | null;
  flow_total_gal_today: number | null;
}

export type BusEventName = keyof BusEvents;

export class EventBus {
  private readonly emitter = new EventEmitter();

  constructor() {
    // Many SSE clients and modules may listen; the default cap of 10 is for leak detection only.
    this.emitter.setMaxListeners(0);
  }

  emit<K extends BusEventName>(name: K, payload: BusEvents[K]): void {
    this.emitter.emit(name, payload);
  }

  /** Subscribes and returns the unsubscribe function. */
  on<K extends BusEventName>(name: K, listener: (payload: BusEvents[K]) => void): () => void {
    this.emitter.on(name, listener);
    return () => this.emitter.off(name, listener);
  }
}
