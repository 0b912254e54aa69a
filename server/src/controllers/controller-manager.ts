import type { AppliedConfig } from '../config/config-types';
import { copyPlain } from '../config/json-walk';
import { controllerKind } from '../config/kinds';
import type { ControllerEntry, RaincheckConfig } from '../config/schema';
import type { EventBus } from '../core/bus';
import { epochSeconds, type Clock } from '../core/clock';
import type { Module } from '../core/lifecycle';
import type { Logger } from '../core/logger';
import type { ValidationEntry } from '../config/validate';
import type {
  LoggedInterval,
  RouteResult,
  StopAllResult,
  StopScope,
  ValveDriver,
  ZoneRoute,
  ZoneRunningState,
} from '../irrigation/dispatch/driver';
import { dryRunKind, simulatedConfig } from './adapters/dry-run';
import { asControllerError, unsupported, type ControllerError } from './errors';
import { stationFor, type AnyControllerKind } from './kinds';
import type { ControllerAdapter, ControllerStatus, HaServices, StationBinding } from './types';

/**
 * Builds one adapter per enabled controller from the config, keeps them in
 * step with config changes, polls the ones with state readback and announces
 * every reading as `controller.status`. It is the irrigation domain's
 * ValveDriver: zone -> controller + station, and the commands.
 *
 * Hot reload: an unchanged controller keeps its adapter (and its connection);
 * a changed, added or removed one is rebuilt at once, unless a valve is open
 * on it through the dispatcher: swapping it then could lose the handle that
 * closes the valve, so the old adapter stays and `restart_required` names it.
 * Demo mode (`features.demo_mode`, `DEMO=1`) and `DRY_RUN=1` swap every
 * controller for the dry-run kind.
 *
 * Readback honesty: a failed reading turns every zone of that controller to
 * `running_known` false (the last good reading's epoch is kept as
 * `observed_epoch`) until a reading succeeds. Failures are announced as
 * `controller.failure` (readbacks once per new failure, commands every time).
 */

export interface ControllerManagerDeps {
  bus: EventBus;
  clock: Clock;
  logger: Logger;
  config: () => AppliedConfig | null;
  kinds: ReadonlyMap<string, AnyControllerKind>;
  fetch: typeof fetch;
  ha: () => HaServices | null;
  /** Environment-forced dry run (DEMO=1 or DRY_RUN=1). */
  forceDryRun: boolean;
  /** Controllers with a valve open through the dispatcher. */
  busyControllers: () => Set<string>;
}

interface Entry {
  entry: ControllerEntry;
  fingerprint: string;
  adapter: ControllerAdapter;
  simulated: boolean;
  stations: StationBinding[];
  status: ControllerStatus | null;
  lastError: string | null;
  /** The last readback failed: its state is unknown until one succeeds. */
  readbackFailed: boolean;
  poll: NodeJS.Timeout | null;
  reading: Promise<void> | null;
}

export interface ControllerHealth {
  id: string;
  kind: string;
  simulated: boolean;
  reachable: boolean | null;
  last_error: string | null;
  observed_epoch: number | null;
  /** `device`: every run arms a limit on the device; `software`: only Raincheck closes its valves. */
  failsafe: 'device' | 'software';
}

export class ControllerManager implements Module, ValveDriver {
  readonly name = 'controllers';
  private readonly log: Logger;
  private readonly entries = new Map<string, Entry>();
  private readonly reasons = new Set<string>();
  private off: (() => void) | null = null;
  private running = false;

  constructor(private readonly deps: ControllerManagerDeps) {
    this.log = deps.logger.child({ module: 'controllers' });
  }

  async start(): Promise<void> {
    this.running = true;
    this.off = this.deps.bus.on('config.changed', () => void this.reload());
    await this.reload();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.off?.();
    await Promise.all([...this.entries.values()].map((e) => this.dispose(e)));
    this.entries.clear();
  }

  /** Spec 2.5 `restart_required` / `restart_reasons`. */
  restartReasons(): string[] {
    return [...this.reasons];
  }

  health(): ControllerHealth[] {
    return [...this.entries.values()].map((e) => ({
      id: e.entry.id,
      kind: e.adapter.kind,
      simulated: e.simulated,
      reachable: e.lastError ? false : e.status ? true : null,
      last_error: e.lastError,
      observed_epoch: e.status?.observed_epoch ?? null,
      failsafe: e.adapter.capabilities.device_limit ? 'device' : 'software',
    }));
  }

  /** Real controllers whose valves only Raincheck closes (no device-side limit): named in health and the snapshot. */
  softwareFailsafeControllers(): string[] {
    return [...this.entries.values()]
      .filter((e) => !e.simulated && !e.adapter.capabilities.device_limit)
      .map((e) => e.entry.id);
  }

  bootedEpoch(controllerId: string): number | null {
    return this.deviceFacts(controllerId)?.booted_epoch ?? null;
  }

  /** What the device said about itself at its last reading (firmware, masters, boot time). */
  deviceFacts(controllerId: string): ControllerStatus['device'] | null {
    return this.entries.get(controllerId)?.status?.device ?? null;
  }

  /**
   * Live validation warnings (ConfigServiceDeps.liveWarnings): a zone bound to a
   * station its device runs as a master valve, which the firmware refuses to
   * run alone (`zone_station_master`). Known once the device was read.
   */
  stationWarnings(config: RaincheckConfig): ValidationEntry[] {
    const warnings: ValidationEntry[] = [];
    const controllers = new Map(config.controllers.map((c) => [c.id, c]));
    const fallback = defaultControllerId(config);
    for (const [slug, zone] of Object.entries(config.zones)) {
      const controller = controllers.get(zone.controller_id ?? fallback ?? '');
      const entry = controller ? this.entries.get(controller.id) : undefined;
      const kind = controller ? this.deps.kinds.get(controller.kind) : undefined;
      const masters = entry?.status?.device?.master_stations ?? [];
      if (!controller || !kind || masters.length === 0 || entry?.entry.kind !== controller.kind) continue;
      const station = stationFor(kind, controller.config, slug, zone.controller_station);
      if (station === null || !masters.includes(station)) continue;
      warnings.push({
        code: 'zone_station_master',
        path: `$.zones.${slug}.controller_station`,
        message:
          `zone "${slug}": station ${station} is the master station of controller "${controller.id}" ` +
          '(it switches with the zones bound to it and cannot run alone); bind the zone to its own station',
      });
    }
    return warnings;
  }

  /** Water level and flow from the controllers that report them (spec 2.5 snapshot fields). */
  hardwareFacts(): {
    water_level_pct: number | null;
    water_level_capable: boolean;
    flow_connected: boolean;
    flow: {
      rate_gpm: number | null;
      rate_source_id: string | null;
      total_gal_today: number | null;
      total_source_id: string | null;
    };
  } {
    const real = [...this.entries.values()].filter((e) => !e.simulated);
    const level = real.find((e) => e.adapter.capabilities.water_level && e.status?.water_level_pct != null);
    const rate = real.find((e) => e.status?.flow_rate_gpm != null);
    const total = real.find((e) => e.status?.flow_total_gal_today != null);
    return {
      water_level_pct: level?.status?.water_level_pct ?? null,
      water_level_capable: real.some((e) => e.adapter.capabilities.water_level),
      flow_connected: rate !== undefined || total !== undefined,
      flow: {
        rate_gpm: rate?.status?.flow_rate_gpm ?? null,
        rate_source_id: rate?.entry.id ?? null,
        total_gal_today: total?.status?.flow_total_gal_today ?? null,
        total_source_id: total?.entry.id ?? null,
      },
    };
  }

  // --- ValveDriver -------------------------------------------------------------

  route(zone: string): RouteResult {
    const config = this.deps.config()?.config;
    const zoneConfig = config?.zones[zone];
    const controllerId = zoneConfig?.controller_id ?? defaultControllerId(config);
    if (!controllerId) {
      return { ok: false, failure: { reason: 'zone_unbound', message: `zone "${zone}" has no controller` } };
    }
    const entry = this.entries.get(controllerId);
    if (!entry) {
      return {
        ok: false,
        failure: {
          reason: 'controller_missing',
          message: `zone "${zone}" uses controller "${controllerId}", which is not configured or not enabled`,
        },
      };
    }
    const binding = entry.stations.find((s) => s.zone === zone);
    if (!binding) {
      return {
        ok: false,
        failure: {
          reason: 'station_missing',
          message: `zone "${zone}" has no station on controller "${controllerId}"`,
        },
      };
    }
    return { ok: true, route: this.routeOf(entry, controllerId, zone, binding.station) };
  }

  /**
   * A station no zone is bound to (a master valve or pump): reached like a
   * zone's, never read back (readings cover bound zones only), so its close
   * is a command the watchdog retries until accepted.
   */
  routeStation(controllerId: string, station: string, key: string): RouteResult {
    const entry = this.entries.get(controllerId);
    if (!entry) {
      return {
        ok: false,
        failure: {
          reason: 'controller_missing',
          message: `"${key}" uses controller "${controllerId}", which is not configured or not enabled`,
        },
      };
    }
    return { ok: true, route: { ...this.routeOf(entry, controllerId, key, station), state_readback: false } };
  }

  private routeOf(entry: Entry, controllerId: string, zone: string, station: string): ZoneRoute {
    const caps = entry.adapter.capabilities;
    const route: ZoneRoute = {
      zone,
      controller_id: controllerId,
      station,
      simulated: entry.simulated,
      synthetic_yard: entry.simulated && this.deps.config()?.config.features.demo_mode === true,
      self_timed: caps.self_timed,
      device_limit: caps.device_limit,
      per_zone_stop: caps.per_zone_stop,
      state_readback: caps.state_readback,
      concurrent_zones: caps.concurrent_zones,
      confirm_within_s: entry.adapter.confirmWithinS,
    };
    return route;
  }

  async run(route: ZoneRoute, seconds: number): Promise<void> {
    const entry = this.entryFor(route);
    await this.command(entry, 'run', route.zone, () => entry.adapter.runZone(route.station, seconds));
  }

  async stopZone(route: ZoneRoute): Promise<StopScope> {
    const entry = this.entryFor(route);
    return this.command(entry, 'stop', route.zone, () => entry.adapter.stopZone(route.station));
  }

  /** Every controller on its own: one that fails never keeps the others from stopping. */
  async stopAll(): Promise<StopAllResult[]> {
    return Promise.all(
      [...this.entries.values()].map(async (entry) => {
        const confirm = entry.adapter.confirmWithinS;
        try {
          await this.command(entry, 'stop_all', null, () => entry.adapter.stopAll());
          return { controller_id: entry.entry.id, error: null, confirm_within_s: confirm };
        } catch (err) {
          return { controller_id: entry.entry.id, error: err as Error, confirm_within_s: confirm };
        }
      }),
    );
  }

  zoneStates(): ReadonlyMap<string, ZoneRunningState> {
    const states = new Map<string, ZoneRunningState>();
    for (const entry of this.entries.values()) {
      for (const { zone, station } of entry.stations) states.set(zone, this.stateOf(entry, station));
    }
    return states;
  }

  async readZone(route: ZoneRoute): Promise<ZoneRunningState | null> {
    const entry = this.entries.get(route.controller_id);
    if (!entry?.adapter.capabilities.state_readback) return null;
    await this.read(entry);
    const state = this.stateOf(entry, route.station);
    return state.running_known ? state : null;
  }

  async runLog(route: ZoneRoute, fromEpoch: number, toEpoch: number): Promise<LoggedInterval[] | null> {
    const entry = this.entries.get(route.controller_id);
    if (!entry?.adapter.readRunLog || entry.simulated) return null;
    const rows = await entry.adapter.readRunLog(route.station, fromEpoch, toEpoch);
    return rows?.map(({ seconds, end_epoch }) => ({ seconds, end_epoch })) ?? null;
  }

  /** A station's state from the last reading; unknown after a failed one (its epoch kept). */
  private stateOf(entry: Entry, station: string): ZoneRunningState {
    const seen = entry.status?.stations[station];
    const observed = entry.status?.observed_epoch ?? null;
    if (!seen || entry.readbackFailed)
      return { running: false, running_known: false, observed_epoch: observed };
    return { running: seen.running, running_known: true, observed_epoch: observed };
  }

  confirmWithinS(): number | null {
    const known = [...this.entries.values()]
      .map((e) => e.adapter.confirmWithinS)
      .filter((s): s is number => s !== null);
    return known.length > 0 ? Math.max(...known) : null;
  }

  /** Scans a configured controller's zones (wizard `scan_zones`). */
  async scanZones(controllerId: string): Promise<{ station: string; name: string }[]> {
    const entry = this.entries.get(controllerId);
    if (!entry) throw unsupported(controllerId, 'be found: it is not configured or not enabled');
    // A wizard scan is the owner at the screen: its failure is answered, not announced.
    return this.command(entry, null, null, () => entry.adapter.scanZones());
  }

  // --- building and reloading ----------------------------------------------------

  private async reload(): Promise<void> {
    if (!this.running) return;
    const config = this.deps.config()?.config ?? null;
    const wanted = new Map((config?.controllers ?? []).filter((c) => c.enabled).map((c) => [c.id, c]));
    const busy = this.deps.busyControllers();
    for (const [id, entry] of this.entries) {
      const next = wanted.get(id);
      if (next && this.fingerprint(next, config) === entry.fingerprint) continue;
      if (busy.has(id)) {
        this.reasons.add(`controller "${id}" changed while a valve was open on it: restart to apply`);
        continue;
      }
      this.entries.delete(id);
      await this.dispose(entry);
    }
    for (const [id, next] of wanted) {
      if (this.entries.has(id) || !config) continue;
      const built = this.build(next, config);
      if (built) this.entries.set(id, built);
    }
  }

  private build(controller: ControllerEntry, config: RaincheckConfig): Entry | null {
    const simulated = this.deps.forceDryRun || config.features.demo_mode || controller.kind === 'dry_run';
    const kind = simulated ? dryRunKind : this.deps.kinds.get(controller.kind);
    if (!kind) {
      this.log.warn(
        { controller: controller.id, kind: controller.kind },
        'no adapter for this controller kind',
      );
      return null;
    }
    const realKind = this.deps.kinds.get(controller.kind) ?? kind;
    const stations = bindings(realKind, controller, config, simulated);
    const validated = simulated ? undefined : validatedBlock(this.deps.config(), controller, kind);
    const parsed = simulated
      ? { success: true as const, data: simulatedConfig() }
      : validated !== undefined
        ? { success: true as const, data: copyPlain(validated) }
        : kind.configSchema.safeParse(controller.config);
    if (!parsed.success) {
      this.log.error({ controller: controller.id }, 'controller config does not parse; it stays off');
      return null;
    }
    const adapter = kind.create({
      id: controller.id,
      config: parsed.data as never,
      logger: this.deps.logger.child({ module: `controller:${controller.id}` }),
      clock: this.deps.clock,
      fetch: this.deps.fetch,
      stations,
      ha: this.deps.ha(),
      notify: () => {
        const entry = this.entries.get(controller.id);
        if (entry) void this.read(entry);
      },
    });
    const entry: Entry = {
      entry: controller,
      fingerprint: this.fingerprint(controller, config),
      adapter,
      simulated,
      stations,
      status: null,
      lastError: null,
      readbackFailed: false,
      poll: null,
      reading: null,
    };
    void this.activate(entry);
    return entry;
  }

  private async activate(entry: Entry): Promise<void> {
    try {
      await entry.adapter.start();
    } catch (err) {
      const error = asControllerError(entry.entry.id, err);
      entry.lastError = error.message;
      this.log.warn({ controller: entry.entry.id, err: entry.lastError }, 'controller did not start');
      this.announceFailure(entry, error, 'start', null);
    }
    if (!entry.adapter.capabilities.state_readback) return;
    void this.read(entry);
    const every = entry.adapter.pollIntervalMs;
    if (every) {
      entry.poll = setInterval(() => void this.read(entry), every);
      entry.poll.unref();
    }
  }

  private async dispose(entry: Entry): Promise<void> {
    if (entry.poll) clearInterval(entry.poll);
    try {
      await entry.adapter.stop();
    } catch (err) {
      this.log.warn({ controller: entry.entry.id, err: String(err) }, 'controller did not stop cleanly');
    }
  }

  /** One readback at a time per controller; announces the result. */
  private read(entry: Entry): Promise<void> {
    entry.reading ??= this.readNow(entry).finally(() => (entry.reading = null));
    return entry.reading;
  }

  private async readNow(entry: Entry): Promise<void> {
    try {
      entry.status = await entry.adapter.readStatus();
      entry.lastError = null;
      entry.readbackFailed = false;
    } catch (err) {
      const error = asControllerError(entry.entry.id, err);
      const fresh = !entry.readbackFailed || error.message !== entry.lastError;
      entry.lastError = error.message;
      entry.readbackFailed = true;
      if (fresh) this.log.warn({ controller: entry.entry.id, err: error.message }, 'readback failed');
      // Every failed reading is announced (metrics count each; notify/ coalesces repeats).
      this.announceFailure(entry, error, 'readback', null);
      return;
    }
    this.announce(entry, entry.status);
  }

  private announce(entry: Entry, status: ControllerStatus): void {
    const zones: Record<string, { running: boolean; remaining_s: number | null }> = {};
    for (const { zone, station } of entry.stations) {
      const seen = status.stations[station];
      if (seen) zones[zone] = seen;
    }
    this.deps.bus.emit('controller.status', {
      controller_id: entry.entry.id,
      simulated: entry.simulated,
      observed_epoch: status.observed_epoch || epochSeconds(this.deps.clock),
      zones,
      water_level_pct: status.water_level_pct,
      flow_rate_gpm: status.flow_rate_gpm,
      flow_total_gal_today: status.flow_total_gal_today,
      booted_epoch: status.device?.booted_epoch ?? null,
    });
  }

  /**
   * Runs a command, maps its failure to a ControllerError (announced as
   * `controller.failure` unless `action` is null) and reads state back soon after.
   */
  private async command<T>(
    entry: Entry,
    action: string | null,
    zone: string | null,
    call: () => Promise<T>,
  ): Promise<T> {
    let result: T;
    try {
      result = await call();
    } catch (err) {
      const error = asControllerError(entry.entry.id, err);
      entry.lastError = error.message;
      if (action !== null) this.announceFailure(entry, error, action, zone);
      throw error;
    }
    if (entry.adapter.capabilities.state_readback) void this.read(entry);
    return result;
  }

  /** Every failure is announced (metrics count them; notify/ coalesces repeats before telling the owner). */
  private announceFailure(entry: Entry, error: ControllerError, action: string, zone: string | null): void {
    this.deps.bus.emit('controller.failure', {
      controller_id: entry.entry.id,
      kind: entry.adapter.kind,
      code: error.code,
      message: error.message,
      zone,
      action,
      epoch: epochSeconds(this.deps.clock),
    });
  }

  private entryFor(route: ZoneRoute): Entry {
    const entry = this.entries.get(route.controller_id);
    if (!entry) throw unsupported(route.controller_id, 'be reached: it is no longer configured');
    return entry;
  }

  private fingerprint(controller: ControllerEntry, config: RaincheckConfig | null): string {
    const kind = this.deps.kinds.get(controller.kind);
    const stations = kind && config ? bindings(kind, controller, config, false) : [];
    const forced = this.deps.forceDryRun || config?.features.demo_mode === true;
    return JSON.stringify([controller.kind, controller.config, controller.default, stations, forced]);
  }
}

function defaultControllerId(config: RaincheckConfig | undefined): string | null {
  const controllers = config?.controllers ?? [];
  return (
    controllers.find((c) => c.default)?.id ?? (controllers.length === 1 ? (controllers[0]?.id ?? null) : null)
  );
}

/** The zones a controller drives and their stations (a simulated controller takes any zone by slug). */
function bindings(
  kind: AnyControllerKind,
  controller: ControllerEntry,
  config: RaincheckConfig,
  simulated: boolean,
): StationBinding[] {
  const fallback = defaultControllerId(config);
  const out: StationBinding[] = [];
  for (const [slug, zone] of Object.entries(config.zones)) {
    if ((zone.controller_id ?? fallback) !== controller.id) continue;
    const station =
      stationFor(kind, controller.config, slug, zone.controller_station) ?? (simulated ? slug : null);
    if (station) out.push({ zone: slug, station });
  }
  return out;
}

/**
 * The controller's block as validation parsed it (AppliedConfig.kindConfigs), when that
 * parse used this kind's own schema and the entry is the applied config's own; undefined
 * otherwise (then the block is parsed here). Saves loading zod at boot.
 */
function validatedBlock(
  applied: AppliedConfig | null,
  controller: ControllerEntry,
  kind: AnyControllerKind,
): unknown {
  if (!applied?.kindConfigs || !applied.config.controllers.includes(controller)) return undefined;
  if (controllerKind(controller.kind)?.configSchema !== kind.configSchema) return undefined;
  return applied.kindConfigs.controllers[controller.id];
}
