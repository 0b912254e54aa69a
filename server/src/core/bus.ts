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
  /** Days of the daily weather record were written outside the regular refresh (the start-up backfill). */
  'weather.record': { dates: string[] };
  /** The irrigation snapshot after a recompute. */
  'irrigation.snapshot': IrrigationSnapshot;
  /** A run record was written or changed (zone null: several zones). */
  'runs.changed': { zone: string | null };
  /** A controller's state was read (polled or pushed); zones keyed by slug. */
  'controller.status': ControllerStatusEvent;
  /** A flow meter reported (controllers/flow-meters): a rate or a cumulative total, in US units. */
  'flow.reading': FlowReadingEvent;
  /** The Home Assistant link connected (true) or dropped (false). */
  'ha.connection': { connected: boolean };
  /** Home Assistant's location facts (get_config) were read and differ from the last ones. */
  'ha.facts': SiteFacts;
  /** The retired-helper adoption finished (or its stored records were loaded): the snapshot's `ha_adoption`. */
  'ha.adoption': { entries: HaAdoptionEntry[] };
  /** A credential stopped being valid (an API token revoked, a session logged out): streams it opened end. */
  'auth.revoked': { kind: 'token' | 'session' };

  // ---- Announcements the owner may be told about (notify/ subscribes; producers never import notify/). ----

  /** A zone's watering job (all its cycle segments) ended: what the run ledger credits, not what was asked. */
  'watering.finished': WateringFinishedEvent;
  /** A controller command or readback failed; `code` is the spec 7 controller code. */
  'controller.failure': ControllerFailureEvent;
  /** Raincheck's watchdog (or boot reconciliation) closed a valve that outlived its planned end. */
  'valve.watchdog': ValveWatchdogEvent;
  /** A zone's metered flow left its learned baseline (or showed no flow with the valve open). */
  'flow.alarm': FlowAlarmEvent;
  /** An anomaly detector found something new (announced once while it persists). */
  'anomaly.new': AnomalyEvent;
  /** The weekly tuning digest: the recommendations that are not silenced. */
  'tuning.digest': TuningDigestEvent;
  /** A weather source's health status changed (offline past the hard-offline window included). */
  'source.status': SourceStatusEvent;
}

export interface WateringFinishedEvent {
  zone: string;
  session_id: string | null;
  /** Run record source (spec 3): `ha_refresher`, `manual`, `manual:<id>`, `dry_run`, ... */
  source: string;
  status: 'completed' | 'aborted';
  start_epoch: number;
  end_epoch: number;
  /** Seconds the ledger credits (observed where the controller reads back). */
  duration_s: number;
  applied_mm: number | null;
  volume_gal: number | null;
  note: string | null;
}

export interface ControllerFailureEvent {
  controller_id: string;
  kind: string;
  /** `controller_auth_failed`, `controller_unreachable`, `controller_rate_limited`, `controller_unsupported`, ... */
  code: string;
  message: string;
  zone: string | null;
  /** What was being done: `run`, `stop`, `stop_all`, `readback`, `scheduled_run`, ... */
  action: string;
  epoch: number;
}

export interface ValveWatchdogEvent {
  controller_id: string;
  zone: string;
  planned_end_epoch: number;
  epoch: number;
  /** False while the stop keeps failing (it retries with back-off). */
  closed: boolean;
  attempts: number;
  /** `watchdog` while running, `boot` when reconciliation found it open after a restart. */
  by: 'watchdog' | 'boot';
}

export interface FlowAlarmEvent {
  zone: string;
  controller_id: string | null;
  kind: 'high' | 'low' | 'none';
  rate_gpm: number | null;
  baseline_gpm: number | null;
  /** True when the alarm stopped the zone (a leak above the configured factor). */
  stopped: boolean;
  epoch: number;
}

export interface AnomalyEvent {
  severity: 'info' | 'warning' | 'critical';
  type: string;
  description: string;
  epoch: number;
  /** What it is about (a source id, zone slug, controller id or `site`); absent from older announcers. */
  subject?: string;
}

export interface TuningDigestEvent {
  window_days: number;
  epoch: number;
  recommendations: { zone: string; field: string; id: string; headline: string }[];
}

export interface SourceStatusEvent {
  id: string;
  kind: string;
  status: string;
  previous: string | null;
  epoch: number;
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

export interface FlowReadingEvent {
  /** The binding: `controller:<id>` (its zones share it) or `zone:<slug>`. */
  meter: string;
  /** Where the readings come from: a controller id, `ha:<entity>`, `mqtt:<topic>`, `source:<id>:<key>`. */
  source_id: string;
  epoch: number;
  /** US gal/min; null when the meter reports a total. */
  rate_gpm: number | null;
  /** Cumulative US gallons; null when the meter reports a rate. */
  total_gal: number | null;
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
  /** When the device last booted, when it says (a boot after a run began means the run was cut). */
  booted_epoch?: number | null;
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
