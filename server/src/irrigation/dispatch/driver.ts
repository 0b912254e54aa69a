/**
 * What the irrigation domain needs from the controllers, as an interface it
 * owns: data flows from irrigation to controllers, so irrigation never
 * imports them. The controller manager implements this; main.ts wires it.
 * Every method that talks to hardware rejects with an error carrying a
 * stable `code` (spec 7 controller codes) and a message fit for a run row.
 */

export type StopScope = 'zone' | 'device';

/** How a zone is reached: its controller, station and what that controller can do. */
export interface ZoneRoute {
  zone: string;
  controller_id: string;
  station: string;
  /** A dry-run controller: its runs are pretend water. */
  simulated: boolean;
  /**
   * A dry-run controller in demo mode (`features.demo_mode`): its pretend runs
   * water the demo's synthetic yard, recorded with evidence `simulated`.
   */
  synthetic_yard: boolean;
  /** Closes the valve itself after the requested seconds. */
  self_timed: boolean;
  /** The run arms a limit on the device itself; false = the failsafe is Raincheck alone. */
  device_limit: boolean;
  per_zone_stop: boolean;
  /** Reports observed state (the observer writes hardware rows from it). */
  state_readback: boolean;
  concurrent_zones: boolean;
  /** Spec 4.4 `confirm_within_s`. */
  confirm_within_s: number | null;
}

export type RouteFailure =
  | { reason: 'zone_unbound'; message: string }
  | { reason: 'controller_missing'; message: string }
  | { reason: 'station_missing'; message: string };

export type RouteResult = { ok: true; route: ZoneRoute } | { ok: false; failure: RouteFailure };

/** A zone's observed state (spec 2.5 zone `running`, `running_known`, `running_observed_epoch`). */
export interface ZoneRunningState {
  running: boolean;
  running_known: boolean;
  observed_epoch: number | null;
}

/** One controller's answer to a stop of everything. */
export interface StopAllResult {
  controller_id: string;
  /** Null when it stopped. */
  error: Error | null;
  confirm_within_s: number | null;
}

export interface ValveDriver {
  route(zone: string): RouteResult;
  /** A station no zone is bound to (a master valve or pump), keyed `key`; absent = none can be reached. */
  routeStation?(controllerId: string, station: string, key: string): RouteResult;
  /** Opens the zone's valve for `seconds` (already clamped). */
  run(route: ZoneRoute, seconds: number): Promise<void>;
  stopZone(route: ZoneRoute): Promise<StopScope>;
  /** Stops every enabled controller, each on its own; resolves with every controller's outcome. */
  stopAll(): Promise<StopAllResult[]>;
  /** Zones every controller's latest readback covers. */
  zoneStates(): ReadonlyMap<string, ZoneRunningState>;
  /** Reads the controller now (boot reconciliation); null when it cannot say. */
  readZone(route: ZoneRoute): Promise<ZoneRunningState | null>;
  /** The longest `confirm_within_s` of the controllers; null when none can report. */
  confirmWithinS(): number | null;
  /** When the controller's device last booted, when it reports that (a run begun before was cut). */
  bootedEpoch?(controllerId: string): number | null;
  /**
   * The open intervals the controller's own run log holds for the route's
   * station, ending between the two epochs; null when the controller keeps no
   * log (its kind has none, or its logging is off). Rejects like a reading.
   */
  runLog?(route: ZoneRoute, fromEpoch: number, toEpoch: number): Promise<LoggedInterval[] | null>;
}

/** A stretch the controller logged its valve open: [end - seconds, end]. */
export interface LoggedInterval {
  seconds: number;
  end_epoch: number;
}
