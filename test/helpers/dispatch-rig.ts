import { configSchema } from '../../server/src/config/schema';
import { ControllerManager } from '../../server/src/controllers/controller-manager';
import { builtinControllerKinds } from '../../server/src/controllers/index';
import { EventBus, type BusEventName, type BusEvents } from '../../server/src/core/bus';
import { ManualClock } from '../../server/src/core/clock';
import { silentLogger } from '../../server/src/core/logger';
import { FlowMeterHub } from '../../server/src/controllers/flow-meters/meter-hub';
import { Dispatcher, type RunMeter } from '../../server/src/irrigation/dispatch/dispatcher';
import { FlowMonitor } from '../../server/src/irrigation/flow/flow-monitor';
import type { ZoneRoute } from '../../server/src/irrigation/dispatch/driver';
import { RunObserver } from '../../server/src/irrigation/dispatch/observer';
import { RunLogReconciler } from '../../server/src/irrigation/dispatch/run-log-reconcile';
import { RunLedger } from '../../server/src/irrigation/dispatch/run-ledger';
import { restrictionGateOf } from '../../server/src/irrigation/dispatch/restriction-source';
import { isWateringEvidence, unionIntervals } from '../../server/src/irrigation/engine/applied-water';
import type { StoredRun } from '../../server/src/store/runs';
import type { Store } from '../../server/src/store/store';

/**
 * The dispatch path as main.ts wires it (controller manager, dispatcher,
 * observer, run ledger on SQLite) on a manual clock, against loopback peers
 * that share that clock. Nothing polls on its own (poll intervals of an hour):
 * a test reads the controller when it wants a reading (`read`), and calls
 * `tick` for what is due at the current time.
 */

export const RIG_TIMEZONE = 'America/New_York';
export const RIG_T0_MS = Date.UTC(2026, 6, 15, 9, 0, 0);
export const RIG_T0 = RIG_T0_MS / 1000;

export interface RigOptions {
  controllers: Record<string, unknown>[];
  zones: Record<string, Record<string, unknown>>;
  /** Builds the flow meters and the flow monitor as main.ts does (metered water, baselines, alarms). */
  flow?: boolean;
  /** The clock the peers already follow; a fresh one at T0 otherwise. */
  clock?: ManualClock;
  /** The config's `features` block (e.g. `{ demo_mode: true }`). */
  features?: Record<string, unknown>;
  /** `[[restrictions]]` rules, gating every run as main.ts wires them (time zone America/New_York). */
  restrictions?: Record<string, unknown>[];
  /** `[[masters]]` entries (master valves, pumps). */
  masters?: Record<string, unknown>[];
  /** Waits a master's lead; default: advances the manual clock by it. */
  sleep?: (seconds: number) => Promise<void>;
}

export interface DispatchRig {
  clock: ManualClock;
  bus: EventBus;
  store: Store;
  manager: ControllerManager;
  dispatcher: Dispatcher;
  observer: RunObserver;
  ledger: RunLedger;
  /** Cuts finished rows to the controller's own run log, as main.ts wires it; `settled()` awaits its reads. */
  runLog: RunLogReconciler;
  flow: FlowMonitor | null;
  /** Sets the clock to T0 + `seconds`. */
  at(seconds: number): void;
  /** Reads the zone's controller now (awaiting any read in flight), does what is due and awaits the log checks. */
  read(zone: string): Promise<void>;
  route(zone: string): ZoneRoute;
  rows(zone?: string): StoredRun[];
  /** Seconds of the zone's water the run ledger credits: the applied-water union of its watering evidence. */
  credited(zone: string): number;
  events<K extends BusEventName>(name: K): BusEvents[K][];
  stop(): Promise<void>;
}

export async function dispatchRig(store: Store, options: RigOptions): Promise<DispatchRig> {
  const clock = options.clock ?? new ManualClock(RIG_T0_MS);
  const bus = new EventBus();
  const logger = silentLogger();
  const config = configSchema.parse({
    schema_version: 2,
    deployment: { location: { lat: 40.7, lon: -74 } },
    controllers: options.controllers,
    zones: options.zones,
    ...(options.features ? { features: options.features } : {}),
    restrictions: options.restrictions ?? [],
    masters: options.masters ?? [],
  });
  const seen = new Map<string, unknown[]>();
  const record = (name: string) => (payload: unknown) => seen.set(name, [...(seen.get(name) ?? []), payload]);
  for (const name of [
    'watering.finished',
    'controller.failure',
    'valve.watchdog',
    'flow.alarm',
    'flow.reading',
  ] as const) {
    bus.on(name, record(name));
  }
  let dispatcher: Dispatcher | null = null;
  const manager = new ControllerManager({
    bus,
    clock,
    logger,
    config: () => ({ config, document: {}, appliedAtEpoch: 0, revision: 1 }),
    kinds: builtinControllerKinds(),
    fetch,
    ha: () => null,
    forceDryRun: false,
    busyControllers: () => dispatcher?.busyControllers() ?? new Set(),
  });
  const ledger = new RunLedger(store.runs);
  const zoneConfig = (zone: string) => config.zones[zone];
  const applied = () => ({ config, document: {}, appliedAtEpoch: 0, revision: 1 });
  const flow = options.flow
    ? new FlowMonitor({
        bus,
        clock,
        logger,
        config: applied,
        runs: store.runs,
        alarms: store.flowAlarms,
        activeRuns: () => dispatcher?.activeRuns() ?? new Map(),
        stopZone: (zone, reason) => dispatcher?.stop(zone, reason) ?? Promise.resolve(),
      })
    : null;
  const meters = options.flow
    ? new FlowMeterHub({
        bus,
        clock,
        logger,
        config: applied,
        ha: () => null,
        mqttBroker: () => null,
        sourceChannel: () => null,
      })
    : null;
  const meter: RunMeter | null = flow;
  dispatcher = new Dispatcher({
    clock,
    logger,
    bus,
    driver: manager,
    ledger,
    zoneConfig,
    state: store.controls,
    meter,
    restrictions: restrictionGateOf({
      config: () => config,
      runs: store.runs,
      timezone: () => RIG_TIMEZONE,
    }),
    masterConfig: () => config,
    sleep: options.sleep ?? (async (seconds) => clock.set(clock.nowMs() + seconds * 1000)),
  });
  const observer = new RunObserver({
    bus,
    logger,
    ledger,
    zoneConfig,
    clock,
    meter,
    activeRun: (zone) => dispatcher?.activeRuns().get(zone),
  });
  const runLog = new RunLogReconciler({ driver: manager, ledger, zoneConfig, logger, bus });
  runLog.start();
  observer.start();
  dispatcher.start();
  await flow?.start();
  await meters?.start();
  await manager.start();
  const route = (zone: string): ZoneRoute => {
    const result = manager.route(zone);
    if (!result.ok) throw new Error(`no route to ${zone}: ${result.failure.message}`);
    return result.route;
  };
  const rows = (zone?: string) => store.runs.listWindow(0, 4_102_444_800, zone);
  const rig: DispatchRig = {
    clock,
    bus,
    store,
    manager,
    dispatcher,
    observer,
    ledger,
    runLog,
    flow,
    at: (seconds) => clock.set(RIG_T0_MS + seconds * 1000),
    read: async (zone) => {
      await manager.readZone(route(zone));
      dispatcher?.tick();
      await runLog.settled();
    },
    route,
    rows,
    credited: (zone) =>
      unionIntervals(
        rows(zone)
          .filter(isWateringEvidence)
          .map((r) => [r.start_epoch, r.start_epoch + r.duration_s] as const),
      ).reduce((sum, [a, b]) => sum + (b - a), 0),
    events: <K extends BusEventName>(name: K) => (seen.get(name) ?? []) as BusEvents[K][],
    stop: async () => {
      await runLog.settled();
      await meters?.stop();
      await flow?.stop();
      observer.stop();
      await dispatcher?.shutdown();
      await manager.stop();
    },
  };
  // The manager reads each controller once as it starts: let that land at T0.
  for (const zone of Object.keys(options.zones)) await manager.readZone(route(zone)).catch(() => undefined);
  return rig;
}

/** Seconds in the window of one row, for assertions. */
export function span(row: StoredRun | undefined): [number, number] | null {
  return row ? [row.start_epoch - RIG_T0, row.start_epoch - RIG_T0 + row.duration_s] : null;
}
