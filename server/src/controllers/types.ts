import type { z } from 'zod';
import type { Clock } from '../core/clock';
import type { Logger } from '../core/logger';

/**
 * The one interface every controller kind implements (spec 2.6
 * `controllers[]`). The controller manager builds one adapter per configured
 * controller; the dispatcher only ever talks to this interface. Stations are
 * the controller's own addresses for a zone (a 1-based OpenSprinkler station,
 * an HA entity id, a Rachio zone id...), already resolved from the zone's
 * `controller_station` or the controller's zone map.
 */

export interface ControllerCapabilities {
  /** Stops one zone; false = only a whole-device stop exists (stop answers scope `device`). */
  per_zone_stop: boolean;
  /** Reports observed per-zone running state (polled or pushed). False = fire-and-forget. */
  state_readback: boolean;
  /** Lists its zones (wizard `scan_zones`). */
  zone_scan: boolean;
  /** Reports a water level / seasonal adjustment percentage. */
  water_level: boolean;
  /** Reports a flow meter. */
  flow: boolean;
  /** May run two zones at once. False: the dispatcher runs its zones strictly one after another. */
  concurrent_zones: boolean;
  /** Closes the valve itself after the requested seconds; false = the service owns the shutoff. */
  self_timed: boolean;
  /**
   * Every run arms a limit on the device itself (a station timer, a run
   * duration, a pulse time), so a valve closes even when Raincheck is gone.
   * False: the failsafe is software-only (Raincheck's stop and watchdog).
   */
  device_limit: boolean;
}

export interface StationState {
  running: boolean;
  /** Seconds left on the controller's timer, when it says. */
  remaining_s: number | null;
}

export interface ControllerStatus {
  /** When this state was read (epoch seconds). */
  observed_epoch: number;
  /** Per station, as the controller reported it. Stations missing here are unknown. */
  stations: Record<string, StationState>;
  /** null when the controller reports no level. */
  water_level_pct: number | null;
  flow_rate_gpm: number | null;
  /** Cumulative gallons today when the meter says; a rate never implies a total. */
  flow_total_gal_today: number | null;
  /** What the device says about itself, when it does (OpenSprinkler). */
  device?: DeviceFacts;
}

export interface DeviceFacts {
  /** Firmware version as the vendor writes it (`2.2.1(3)`); null when not reported. */
  firmware: string | null;
  /** Operation enabled on the device (OpenSprinkler `en`); null when not reported. */
  enabled: boolean | null;
  /** Stations the device runs as master valves (pumps); they cannot be run as zones. */
  master_stations: string[];
  /** When the device last booted (epoch seconds); null when not reported. */
  booted_epoch: number | null;
}

export interface ScannedZone {
  station: string;
  name: string;
}

export type StopScope = 'zone' | 'device';

export interface ControllerAdapter {
  readonly id: string;
  readonly kind: string;
  readonly capabilities: ControllerCapabilities;
  /**
   * Seconds the controller can take to report a change (spec 4.4
   * `confirm_within_s`); null when its state is read on demand or never.
   */
  readonly confirmWithinS: number | null;
  /** How often the manager polls `readStatus` (ms); null = never polled (pushed or no readback). */
  readonly pollIntervalMs: number | null;
  /** Opens connections (MQTT, HA subscriptions). HTTP kinds do nothing. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Opens `station` for `seconds` (1..7200, already clamped). Throws ControllerError. */
  runZone(station: string, seconds: number): Promise<void>;
  /** Closes one station, or the whole device when `per_zone_stop` is false. Throws ControllerError. */
  stopZone(station: string): Promise<StopScope>;
  /** Closes every station. Throws ControllerError. */
  stopAll(): Promise<void>;
  /** Reads state now. Throws ControllerError (`controller_unsupported` without readback). */
  readStatus(): Promise<ControllerStatus>;
  /** Throws ControllerError (`controller_unsupported` without zone scan). */
  scanZones(): Promise<ScannedZone[]>;
  /**
   * The controller's own log of `station`'s runs that ended between the two
   * epochs (UTC seconds), for kinds that keep one (OpenSprinkler `/jl`); null
   * when its logging is switched off. Absent on kinds without a log.
   * Throws ControllerError.
   */
  readRunLog?(station: string, fromEpoch: number, toEpoch: number): Promise<LoggedRun[] | null>;
}

/** One run in a controller's own log: the valve was open `seconds`, closing at `end_epoch` (UTC). */
export interface LoggedRun {
  station: string;
  seconds: number;
  end_epoch: number;
}

/** A station this controller drives, for adapters that subscribe or map by zone. */
export interface StationBinding {
  zone: string;
  station: string;
}

/** The Home Assistant calls the `ha_service_call` kind needs (implemented by the HA link). */
export interface HaServices {
  callService(
    domain: string,
    service: string,
    data?: Record<string, unknown>,
    target?: { entity_id?: string | string[] },
  ): Promise<unknown>;
  getStates(): Promise<{ entity_id: string; state: string; attributes: Record<string, unknown> }[]>;
  subscribeStates(
    entityIds: readonly string[],
    onState: (entityId: string, state: { state: string; attributes: Record<string, unknown> } | null) => void,
  ): () => void;
  /** The link dropped (false) or came back (true); optional for test doubles. */
  onConnectionChange?(listener: (connected: boolean) => void): () => void;
}

/** Everything an adapter's constructor may use. */
export interface AdapterContext<C = Record<string, unknown>> {
  id: string;
  /** The controller's `config` block, parsed by the kind's schema (defaults applied). */
  config: C;
  logger: Logger;
  clock: Clock;
  /** Every outgoing HTTP call goes through this (tests point it at loopback peers). */
  fetch: typeof fetch;
  /** The zones bound to this controller. */
  stations: readonly StationBinding[];
  /** Null when Home Assistant is not configured. */
  ha: HaServices | null;
  /**
   * Pushed-state adapters (MQTT state topics, HA state events) call this when
   * a station's state changed; the manager then calls `readStatus()` again.
   */
  notify(): void;
}

/** One controller kind: its config schema (also the validator's) and how to build its adapter. */
export interface ControllerKindDefinition<C = Record<string, unknown>> {
  kind: string;
  label: string;
  configSchema: z.ZodType<C>;
  create(ctx: AdapterContext<C>): ControllerAdapter;
  /** Human description of a valid station, for config warnings. */
  stationExpectation?: string;
  /** True when the station string is usable by this kind. */
  parseStation?: (station: string) => boolean;
  /** The config key of the kind's own slug -> station map (`zone_map` by default). */
  zoneMapKey?: string;
  /** The kind accepts any zone without a station (dry run). */
  acceptsAnyZone?: boolean;
  /**
   * When the zone has no station, the slug itself is the station (dry run).
   * Secrets in the config block are found by key name (config/secrets.ts):
   * name them `api_key`, `password`, `password_md5`, `bearer_token`, `token`.
   */
  slugIsStation?: boolean;
}

/** Default bound on one controller call. */
export const DEFAULT_CONTROLLER_TIMEOUT_MS = 10_000;
