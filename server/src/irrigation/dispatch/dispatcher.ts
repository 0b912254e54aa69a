import { randomUUID } from 'node:crypto';
import type { ZoneConfig } from '../../config/schema';
import type { EventBus } from '../../core/bus';
import { epochSeconds, type Clock } from '../../core/clock';
import type { Logger } from '../../core/logger';
import type { JsonValue } from '../../store/json';
import type { RunSource } from '../../store/runs';
import type { StopScope, ValveDriver, ZoneRoute } from './driver';
import { DispatchError, routeOrThrow } from './dispatch-error';
import { jobSummary } from './job-summary';
import type { RunLedger } from './run-ledger';
import { runSource, type Requester } from './sources';
import { waterAmount } from './water-amount';

/**
 * The one path every valve command takes, whoever asked (manual action,
 * the run-window session, catch-up): it writes the run row before the
 * command, confirms or fails it after, owns the shutoff of controllers that
 * cannot time themselves, and finishes the row with the seconds the valve was
 * really open. At most one run per zone is active; a controller that cannot
 * run two zones at once is never asked to.
 */

export const RUN_SECONDS_MAX = 7200;

export interface ActiveRun {
  rowId: number;
  zone: string;
  route: ZoneRoute;
  sessionId: string;
  source: RunSource;
  startEpoch: number;
  seconds: number;
  /** Which cycle segment of its job this is; absent: the whole job. */
  cycle?: { index: number; count: number } | null;
  /** Resolves when the run ends, with how. */
  done: Promise<RunEnd>;
}

export type RunEnd = 'completed' | 'aborted';

interface Tracked extends ActiveRun {
  timer: NodeJS.Timeout | null;
  settle: (end: RunEnd) => void;
}

export interface RunRequest {
  zone: string;
  seconds: number;
  requester: Requester;
  sessionId?: string;
  cycle?: { index: number; count: number };
}

export interface StartedRun {
  run: ActiveRun;
  seconds: number;
  clamped: boolean;
}

/** Small persisted values (the controls table): the heartbeat that bounds open time across a crash. */
export interface KeyValue {
  get(key: string): unknown;
  set(key: string, value: JsonValue): void;
}

export interface DispatcherDeps {
  clock: Clock;
  logger: Logger;
  bus: EventBus;
  driver: ValveDriver;
  ledger: RunLedger;
  zoneConfig: (zone: string) => ZoneConfig | undefined;
  state: KeyValue | null;
}

export const HEARTBEAT_KEY = 'dispatch.heartbeat_epoch';
/** Bounds how much open time a crash can leave unproven. */
const HEARTBEAT_MS = 5_000;
/** Attempts to close a valve the service owns before giving up and saying so. */
const STOP_ATTEMPTS = 3;

export class Dispatcher {
  private readonly log: Logger;
  private readonly active = new Map<string, Tracked>();
  private heartbeat: NodeJS.Timeout | null = null;

  constructor(private readonly deps: DispatcherDeps) {
    this.log = deps.logger.child({ module: 'dispatch' });
  }

  /** Runs in progress, by zone. */
  activeRuns(): ReadonlyMap<string, ActiveRun> {
    return this.active;
  }

  /** Controllers with a valve open through this dispatcher (hot reload waits for them). */
  busyControllers(): Set<string> {
    return new Set([...this.active.values()].map((r) => r.route.controller_id));
  }

  /**
   * Opens a zone. Refuses (409 `controller_busy`) when another zone of a
   * one-at-a-time controller is open; a run on a zone that is already open
   * replaces it (the earlier row is aborted with the time it was open).
   */
  async run(request: RunRequest): Promise<StartedRun> {
    const route = routeOrThrow(this.deps.driver.route(request.zone));
    const seconds = Math.min(RUN_SECONDS_MAX, Math.max(1, Math.round(request.seconds)));
    this.refuseWhenControllerBusy(route);
    const previous = this.active.get(request.zone);
    if (previous) {
      await this.safeStop(previous);
      this.end(previous, 'aborted', 'replaced by a new run of the same zone');
    }
    const now = epochSeconds(this.deps.clock);
    const source = runSource(request.requester, route.simulated);
    const sessionId = request.sessionId ?? `manual-${randomUUID()}`;
    const rowId = this.deps.ledger.intend({
      session_id: sessionId,
      zone: request.zone,
      start_epoch: now,
      duration_s: seconds,
      source,
      controller_id: route.controller_id,
      cycle_index: request.cycle?.index ?? null,
      cycle_count: request.cycle?.count ?? null,
    });
    try {
      await this.deps.driver.run(route, seconds);
    } catch (err) {
      const message = errorText(err);
      this.deps.ledger.failed(rowId, message);
      this.changed(request.zone);
      throw err;
    }
    try {
      this.deps.ledger.started(rowId);
    } catch (err) {
      // The record of this run could not be saved (a full disk): water nobody can account for
      // is worse than none, so the valve closes again and the request fails.
      await this.deps.driver.stopZone(route).catch(() => undefined);
      throw err;
    }
    const run = this.track({
      rowId,
      zone: request.zone,
      route,
      sessionId,
      source,
      startEpoch: now,
      seconds,
      cycle: request.cycle ?? null,
    });
    this.changed(request.zone);
    return { run, seconds, clamped: seconds !== Math.round(request.seconds) };
  }

  /** Closes one zone; `device` scope when the controller could only stop everything. */
  async stop(zone: string): Promise<{ scope: StopScope; route: ZoneRoute }> {
    const route = routeOrThrow(this.deps.driver.route(zone));
    const scope = await this.deps.driver.stopZone(route);
    const ended = scope === 'device' ? this.onController(route.controller_id) : this.onZone(zone);
    for (const run of ended) {
      const note =
        scope === 'device' && run.zone !== zone
          ? `stopped with the whole controller (stop of zone ${zone})`
          : 'stopped on request';
      this.end(run, 'aborted', note);
    }
    this.changed(zone);
    return { scope, route };
  }

  /**
   * Stops every controller; runs on controllers that failed to stop stay
   * tracked. Answers the failures and the longest confirmation time of the
   * controllers (null when none can report) for the action response.
   */
  async stopAll(): Promise<{
    failures: { controller_id: string; error: Error }[];
    confirmWithinS: number | null;
  }> {
    const failures = await this.deps.driver.stopAll();
    const failed = new Set(failures.map((f) => f.controller_id));
    for (const run of [...this.active.values()]) {
      if (!failed.has(run.route.controller_id)) this.end(run, 'aborted', 'stopped by stop_all');
    }
    this.changed(null);
    return { failures, confirmWithinS: this.deps.driver.confirmWithinS() };
  }

  /** Continues tracking a run found open at boot (reconciliation). */
  resume(run: Omit<ActiveRun, 'done'>): ActiveRun {
    const tracked = this.track(run);
    this.changed(run.zone);
    return tracked;
  }

  /** Ends every tracked run's timers without touching rows: the process is stopping. */
  async shutdown(): Promise<void> {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    for (const run of this.active.values()) if (run.timer) clearTimeout(run.timer);
    this.writeHeartbeat();
  }

  private refuseWhenControllerBusy(route: ZoneRoute): void {
    if (route.concurrent_zones) return;
    const other = [...this.active.values()].find(
      (r) => r.route.controller_id === route.controller_id && r.zone !== route.zone,
    );
    if (other) {
      throw new DispatchError(
        409,
        'controller_busy',
        `controller "${route.controller_id}" is running zone "${other.zone}" and runs one zone at a time`,
        { running_zone: other.zone, hint: 'stop that zone first, or wait until it finishes' },
      );
    }
  }

  private track(run: Omit<ActiveRun, 'done'>): Tracked {
    let settle: (end: RunEnd) => void = () => undefined;
    const done = new Promise<RunEnd>((resolve) => (settle = resolve));
    const tracked: Tracked = { ...run, done, settle, timer: null };
    const remainingMs = Math.max(0, (run.startEpoch + run.seconds) * 1000 - this.deps.clock.nowMs());
    tracked.timer = setTimeout(() => void this.finishOnTime(tracked), remainingMs);
    this.active.set(run.zone, tracked);
    this.startHeartbeat();
    return tracked;
  }

  /** The planned end: close the valve when the service owns the shutoff, then complete the row. */
  private async finishOnTime(run: Tracked): Promise<void> {
    if (this.active.get(run.zone) !== run) return;
    let note: string | undefined;
    if (!run.route.self_timed && !(await this.safeStop(run))) {
      note = `the stop command failed ${STOP_ATTEMPTS} times: the valve may still be open`;
    }
    if (this.active.get(run.zone) !== run) return;
    this.end(run, 'completed', note);
    this.changed(run.zone);
  }

  /** Tries to close a valve the service owns; false when every attempt failed. */
  private async safeStop(run: ActiveRun): Promise<boolean> {
    if (run.route.self_timed && epochSeconds(this.deps.clock) >= run.startEpoch + run.seconds) return true;
    for (let attempt = 1; attempt <= STOP_ATTEMPTS; attempt++) {
      try {
        await this.deps.driver.stopZone(run.route);
        return true;
      } catch (err) {
        this.log.error({ zone: run.zone, attempt, err: errorText(err) }, 'could not close the valve');
      }
    }
    return false;
  }

  private end(run: Tracked, how: RunEnd, note?: string): void {
    if (run.timer) clearTimeout(run.timer);
    if (this.active.get(run.zone) === run) this.active.delete(run.zone);
    const open = Math.max(0, epochSeconds(this.deps.clock) - run.startEpoch);
    // A self-timed controller closed the valve at its planned end; a valve the
    // service owns was open until the stop went out (longer if that was late).
    // Timers may fire a millisecond before the wall clock's whole second, so a
    // run completed on time never counts less than its planned seconds.
    const onTime = run.route.self_timed ? run.seconds : Math.max(open, run.seconds);
    const seconds = how === 'completed' ? onTime : Math.min(open, run.seconds);
    const amount = run.route.simulated
      ? { applied_mm: null, volume_gal: null }
      : waterAmount(this.deps.zoneConfig(run.zone), seconds);
    if (how === 'completed') this.deps.ledger.completed(run.rowId, seconds, amount, note);
    else this.deps.ledger.aborted(run.rowId, seconds, amount, note ?? 'stopped early');
    // The job ends with its last cycle segment, or with any segment that did not complete (the rest is dropped).
    if (how === 'aborted' || !run.cycle || run.cycle.index >= run.cycle.count) {
      this.announceFinished(
        run,
        how,
        seconds,
        amount,
        how === 'aborted' ? (note ?? 'stopped early') : (note ?? null),
      );
    }
    run.settle(how);
    if (this.active.size === 0 && this.heartbeat) {
      clearInterval(this.heartbeat);
      this.heartbeat = null;
    }
  }

  private announceFinished(
    run: Tracked,
    how: RunEnd,
    seconds: number,
    amount: { applied_mm: number | null; volume_gal: number | null },
    note: string | null,
  ): void {
    const event = jobSummary(this.deps.ledger.session(run.sessionId), {
      zone: run.zone,
      session_id: run.sessionId,
      source: run.source,
      status: how,
      start_epoch: run.startEpoch,
      end_epoch: epochSeconds(this.deps.clock),
      duration_s: seconds,
      applied_mm: amount.applied_mm,
      volume_gal: amount.volume_gal,
      note,
    });
    this.deps.bus.emit('watering.finished', event);
  }

  private onZone(zone: string): Tracked[] {
    const run = this.active.get(zone);
    return run ? [run] : [];
  }

  private onController(controllerId: string): Tracked[] {
    return [...this.active.values()].filter((r) => r.route.controller_id === controllerId);
  }

  private startHeartbeat(): void {
    this.writeHeartbeat();
    if (this.heartbeat) return;
    this.heartbeat = setInterval(() => this.writeHeartbeat(), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  private writeHeartbeat(): void {
    try {
      this.deps.state?.set(HEARTBEAT_KEY, epochSeconds(this.deps.clock));
    } catch (err) {
      this.log.warn({ err: errorText(err) }, 'could not record the dispatch heartbeat');
    }
  }

  private changed(zone: string | null): void {
    this.deps.bus.emit('runs.changed', { zone });
  }
}

export function errorText(err: unknown): string {
  const message = (err as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(err);
}
