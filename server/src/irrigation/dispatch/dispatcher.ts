import { randomUUID } from 'node:crypto';
import type { ZoneConfig } from '../../config/schema';
import type { ControllerFailureEvent, ControllerStatusEvent, EventBus } from '../../core/bus';
import { epochSeconds, type Clock } from '../../core/clock';
import type { Logger } from '../../core/logger';
import type { JsonValue } from '../../store/json';
import type { RunSource } from '../../store/runs';
import type { StopAllResult, StopScope, ValveDriver, ZoneRoute } from './driver';
import type { GateVerdict } from '../schedule/restriction-gate';
import { MasterValves, type MasterValvesDeps } from './master-valves';
import { DispatchError, routeOrThrow } from './dispatch-error';
import { JobTally } from './job-tally';
import {
  creditedEnd,
  cutNote,
  freshEvidence,
  noteFailure,
  noteReading,
  seenOpenAt,
  type ReadbackEvidence,
} from './readback-evidence';
import type { RunLedger } from './run-ledger';
import { runSource, type Requester } from './sources';
import { ValveWatchdog, watchdogGraceS } from './valve-watchdog';
import { RUN_SECONDS_MAX } from './command-pieces';
import { pretendOf, recordedWater, type MeteredWater } from './water-amount';

/**
 * The one path every valve command takes, whoever asked (manual action,
 * the run-window session, catch-up, a flow alarm): it writes the run row
 * before the command, confirms or fails it after, owns the shutoff of
 * controllers that cannot time themselves, and finishes the row from the
 * evidence (readback-evidence.ts): on a controller that reads back, the
 * seconds it was seen open, `aborted` with who cut it when it closed early;
 * on one that cannot, the commanded seconds, marked `commanded`. At most one
 * run per zone is active; a controller that cannot run two zones at once is
 * never asked to.
 *
 * Timing: `tick()` (a timer, and tests) does what is due at the planned end:
 * finish a self-timed run that cannot report, wait for the reading that sees a
 * self-timed valve close, or send the stop of a valve the service owns. What
 * stays open past its end (a failed stop, a self-timed valve still reported
 * open a grace later) is the watchdog's (valve-watchdog.ts), which retries
 * with back-off.
 */

export { RUN_SECONDS_MAX };

export type RunEnd = 'completed' | 'aborted';

export interface ActiveRun {
  rowId: number;
  zone: string;
  route: ZoneRoute;
  sessionId: string;
  source: RunSource;
  startEpoch: number;
  seconds: number;
  /** The scheduler's cycle/soak position; absent for a single run. */
  cycle?: { index: number; count: number };
  /** Resolves when the run ends, with how. */
  done: Promise<RunEnd>;
}

interface Tracked extends ActiveRun {
  settle: (end: RunEnd) => void;
  evidence: ReadbackEvidence;
  /** `open` until the planned end; then `closing` (our shutoff) or `awaiting_close` (self-timed). */
  phase: 'open' | 'closing' | 'awaiting_close';
  /** The planned-end stop is in flight. */
  closing: boolean;
}

export interface RunRequest {
  zone: string;
  seconds: number;
  requester: Requester;
  sessionId?: string;
  cycle?: { index: number; count: number };
  /** Recorded on the run's row (a piece of a longer run, say). */
  note?: string | null;
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

/** A flow meter's account of a run (irrigation/flow); null when no meter covers it. */
export interface RunMeter {
  measure(zone: string, controllerId: string, from: number, to: number): MeteredWater | null;
}

export interface DispatcherDeps {
  clock: Clock;
  logger: Logger;
  bus: EventBus;
  driver: ValveDriver;
  ledger: RunLedger;
  zoneConfig: (zone: string) => ZoneConfig | undefined;
  state: KeyValue | null;
  meter?: RunMeter | null;
  /** The watering restrictions' word on each run (schedule/restriction-gate.ts); absent allows all. */
  restrictions?: RestrictionGate | null;
  /** The config's `[[masters]]` (master-valves.ts); absent = no master valves. */
  masterConfig?: MasterValvesDeps['config'];
  /** Waits a master's lead (default: real time). */
  sleep?: (seconds: number) => Promise<void>;
}

/** Asked before every run with the zone, the seconds wanted and now (epoch seconds). */
export type RestrictionGate = (zone: string, seconds: number, now: number) => GateVerdict;

export const HEARTBEAT_KEY = 'dispatch.heartbeat_epoch';
/** Bounds how much open time a crash can leave unproven. */
const HEARTBEAT_MS = 5_000;
/** How often due work is looked for while anything is open or watched. */
const TICK_MS = 1_000;
/** The precise timer never spins: a due moment already past is looked at this much later. */
const MIN_TIMER_MS = 20;

export class Dispatcher {
  private readonly log: Logger;
  private readonly active = new Map<string, Tracked>();
  private readonly jobs = new JobTally();
  readonly watchdog: ValveWatchdog;
  private readonly masters: MasterValves | null;
  private heartbeat: NodeJS.Timeout | null = null;
  private ticker: NodeJS.Timeout | null = null;
  /** Fires at the next planned end or retry, so a shutoff is not a tick late. */
  private precise: NodeJS.Timeout | null = null;
  private readonly offs: (() => void)[] = [];

  constructor(private readonly deps: DispatcherDeps) {
    this.log = deps.logger.child({ module: 'dispatch' });
    this.watchdog = new ValveWatchdog({
      bus: deps.bus,
      logger: this.log,
      driver: deps.driver,
      now: () => this.now(),
    });
    this.masters = deps.masterConfig
      ? new MasterValves({
          driver: deps.driver,
          watchdog: this.watchdog,
          logger: this.log,
          config: deps.masterConfig,
          now: () => this.now(),
          sleep: deps.sleep ?? ((s) => new Promise((resolve) => setTimeout(resolve, s * 1000))),
        })
      : null;
  }

  /** Follows the controllers' readings and failed readings (the evidence of open valves). */
  start(): void {
    if (this.offs.length > 0) return;
    this.offs.push(this.deps.bus.on('controller.status', (event) => this.onStatus(event)));
    this.offs.push(this.deps.bus.on('controller.failure', (event) => this.onFailure(event)));
  }

  /** Runs in progress, by zone. */
  activeRuns(): ReadonlyMap<string, ActiveRun> {
    return this.active;
  }

  /** Controllers with a valve open through this dispatcher or its watchdog (hot reload waits for them). */
  busyControllers(): Set<string> {
    return new Set([
      ...[...this.active.values()].map((r) => r.route.controller_id),
      ...this.watchdog.busyControllers(),
    ]);
  }

  /**
   * Opens a zone. Refuses (409 `controller_busy`) when another zone of a
   * one-at-a-time controller is open; a run on a zone that is already open
   * replaces it (the earlier row is aborted with the time it was open).
   */
  async run(request: RunRequest): Promise<StartedRun> {
    const route = routeOrThrow(this.deps.driver.route(request.zone));
    const wanted = Math.max(1, Math.round(request.seconds));
    const asked = Math.min(RUN_SECONDS_MAX, wanted);
    // Never cut silently: the row says what was asked and why it is shorter.
    const clampNote =
      asked < wanted
        ? `clamped from ${wanted} s to ${asked} s: one valve command opens at most ${RUN_SECONDS_MAX} s`
        : null;
    const gate = this.deps.restrictions?.(request.zone, asked, this.now()) ?? null;
    // Local law binds every run, forced or not: 409 with the restriction's code.
    if (gate && !gate.ok) throw new DispatchError(409, gate.code, gate.message);
    const seconds = gate ? gate.seconds : asked;
    this.refuseWhenControllerBusy(route);
    const previous = this.active.get(request.zone);
    if (previous) {
      await this.stopQuietly(previous);
      this.endByRaincheck(previous, 'replaced by a new run of the same zone');
    }
    this.watchdog.release(request.zone);
    // The pump first (its lead); the row's start is when the zone itself opens.
    await this.masters?.beforeZone(request.zone, seconds);
    const now = this.now();
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
      note: joinNotes([request.note ?? null, clampNote, gate?.note ?? null]),
    });
    try {
      await this.deps.driver.run(route, seconds);
    } catch (err) {
      this.deps.ledger.failed(rowId, errorText(err));
      this.masters?.afterZone(request.zone, this.now(), 0);
      this.changed(request.zone);
      throw err;
    }
    try {
      this.deps.ledger.started(rowId);
    } catch (err) {
      // The record of this run could not be saved (a full disk): water nobody can account for
      // is worse than none, so the valve closes again and the request fails.
      await this.deps.driver.stopZone(route).catch(() => undefined);
      this.masters?.afterZone(request.zone, this.now(), 0);
      throw err;
    }
    const run = this.track(
      { rowId, zone: request.zone, route, sessionId, source, startEpoch: now, seconds, cycle: request.cycle },
      freshEvidence(),
    );
    this.changed(request.zone);
    return { run, seconds, clamped: seconds !== Math.round(request.seconds) };
  }

  /** Closes one zone; `device` scope when the controller could only stop everything. */
  async stop(zone: string, reason = 'stopped on request'): Promise<{ scope: StopScope; route: ZoneRoute }> {
    const route = routeOrThrow(this.deps.driver.route(zone));
    const scope = await this.deps.driver.stopZone(route);
    const ended = scope === 'device' ? this.onController(route.controller_id) : this.onZone(zone);
    for (const run of ended) {
      const note =
        scope === 'device' && run.zone !== zone
          ? `stopped with the whole controller (stop of zone ${zone})`
          : reason;
      this.endByRaincheck(run, note);
    }
    this.changed(zone);
    return { scope, route };
  }

  /**
   * Stops every controller, each on its own: runs on a controller that
   * stopped end, runs on one that failed stay tracked. Answers every
   * controller's outcome and the longest confirmation time of those that
   * stopped (null when none can report).
   */
  async stopAll(): Promise<{ results: StopAllResult[]; confirmWithinS: number | null }> {
    const results = await this.deps.driver.stopAll();
    const failed = new Set(results.filter((r) => r.error).map((r) => r.controller_id));
    this.masters?.afterStopAll(new Set(results.filter((r) => !r.error).map((r) => r.controller_id)));
    for (const run of [...this.active.values()]) {
      if (!failed.has(run.route.controller_id)) this.endByRaincheck(run, 'stopped by stop_all');
    }
    this.changed(null);
    const confirms = results
      .filter((r) => !r.error && r.confirm_within_s !== null)
      .map((r) => r.confirm_within_s as number);
    return { results, confirmWithinS: confirms.length > 0 ? Math.max(...confirms) : null };
  }

  /** Continues tracking a run found open at boot (reconciliation); it was seen open `seenAt`. */
  resume(run: Omit<ActiveRun, 'done'>, seenAt: number | null): ActiveRun {
    const tracked = this.track(run, seenAt === null ? freshEvidence() : seenOpenAt(seenAt));
    this.changed(run.zone);
    if (this.masters) void this.reopenMasters(tracked);
    return tracked;
  }

  /**
   * A resumed zone is open, so its pump must be too (master-valves.ts). A
   * master that cannot reopen closes the zone (no zone runs without its
   * pump); a run that ended while its master was being reopened hands it back.
   */
  private async reopenMasters(run: ActiveRun): Promise<void> {
    const stillOpen = () => this.active.get(run.zone)?.rowId === run.rowId;
    try {
      await this.masters?.resumeZone(run.zone, Math.max(0, run.startEpoch + run.seconds - this.now()));
    } catch (err) {
      this.log.error({ zone: run.zone, err: errorText(err) }, 'a resumed run could not reopen its master');
      if (stillOpen())
        await this.stop(run.zone, `closed at boot: ${errorText(err)}`).catch((e: unknown) =>
          this.log.error({ zone: run.zone, err: errorText(e) }, 'could not close the zone'),
        );
      return;
    }
    if (!stillOpen()) this.masters?.afterZone(run.zone, this.now());
    this.idleTimers(); // the ticker closes the master after its lag
  }

  /** Ends every tracked run's timers without touching rows: the process is stopping. */
  async shutdown(): Promise<void> {
    for (const off of this.offs.splice(0)) off();
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = null;
    if (this.precise) clearTimeout(this.precise);
    this.precise = null;
    this.writeHeartbeat();
  }

  /** Does what is due now (planned ends, stop retries, the watchdog); public so tests can drive it. */
  tick(): void {
    const now = this.now();
    for (const run of [...this.active.values()]) {
      const plannedEnd = run.startEpoch + run.seconds;
      if (run.phase === 'open' && now >= plannedEnd) this.atPlannedEnd(run);
      // Not `else`: a tick long after the end (a sleeping host, a test) also finds the grace gone.
      if (run.phase === 'awaiting_close' && now >= plannedEnd + watchdogGraceS(run.route)) this.overdue(run);
    }
    this.watchdog.tick();
    this.masters?.tick();
    this.idleTimers();
    this.scheduleNext();
  }

  // --- the evidence -------------------------------------------------------------

  private onStatus(event: ControllerStatusEvent): void {
    if (event.simulated) return;
    this.watchdog.onReading(event.controller_id, event.zones);
    for (const run of [...this.active.values()]) {
      if (run.route.controller_id !== event.controller_id || !run.route.state_readback) continue;
      const state = event.zones[run.zone];
      noteReading(
        run.evidence,
        state?.running,
        event.observed_epoch,
        event.booted_epoch ?? null,
        run.startEpoch,
      );
      if (run.evidence.rebootedAt !== null) this.closedAtController(run, event.observed_epoch);
      else if (state && !state.running && run.evidence.lastOpen !== null)
        this.closedAtController(run, event.observed_epoch);
    }
  }

  private onFailure(event: ControllerFailureEvent): void {
    // A failed reading, or a command the controller never answered: its valves' state is unknown.
    if (event.action !== 'readback' && event.code !== 'controller_unreachable') return;
    for (const run of this.active.values()) {
      if (run.route.controller_id === event.controller_id) noteFailure(run.evidence);
    }
  }

  /** A reading saw the valve closed (or the device rebooted): the run ended there. */
  private closedAtController(run: Tracked, at: number): void {
    const plannedEnd = run.startEpoch + run.seconds;
    const { end, cutBy } = creditedEnd(run.evidence, run.startEpoch, at, plannedEnd);
    const seconds = end - run.startEpoch;
    if (cutBy === null) {
      this.finish(run, 'completed', run.seconds, 'observed');
      return;
    }
    this.finish(run, 'aborted', seconds, 'observed', cutNote(cutBy, seconds, run.seconds));
  }

  // --- the planned end ------------------------------------------------------------

  private atPlannedEnd(run: Tracked): void {
    if (!run.route.self_timed) {
      run.phase = 'closing';
      void this.closeOwnedValve(run);
    } else if (this.readsBack(run)) {
      run.phase = 'awaiting_close';
    } else {
      this.finish(run, 'completed', run.seconds, 'commanded', run.route.simulated ? undefined : NOT_OBSERVED);
    }
  }

  /** A self-timed valve not reported closed a grace after its end. */
  private overdue(run: Tracked): void {
    const { lastOpen, gap } = run.evidence;
    if (lastOpen === null) {
      this.finish(
        run,
        'aborted',
        0,
        'observed',
        'the controller never reported the valve open (queued, or it did not start)',
      );
    } else if (gap) {
      const seconds = Math.max(0, lastOpen - run.startEpoch);
      this.finish(run, 'aborted', seconds, 'observed', cutNote('outage', seconds, run.seconds));
    } else {
      this.finish(
        run,
        'completed',
        run.seconds,
        'observed',
        "still reported open past its planned end: Raincheck's watchdog closes it",
      );
      this.watchdog.arm(run.zone, run.route, run.startEpoch + run.seconds, 'closing');
    }
  }

  /**
   * The service owns this valve's shutoff: stop it at the planned end. If the
   * stop fails, the row is recorded from the evidence anyway and the watchdog
   * keeps trying, with back-off, until a stop is accepted.
   */
  private async closeOwnedValve(run: Tracked): Promise<void> {
    if (run.closing) return;
    run.closing = true;
    const plannedEnd = run.startEpoch + run.seconds;
    const readback = this.readsBack(run);
    try {
      await this.deps.driver.stopZone(run.route);
    } catch (err) {
      if (this.active.get(run.zone) !== run) return;
      const why = `the stop at its planned end failed (${errorText(err)}): Raincheck's watchdog keeps trying to close it`;
      this.log.error({ zone: run.zone, err: errorText(err) }, 'could not close the valve at its planned end');
      if (readback && run.evidence.gap) {
        const seconds = Math.max(0, (run.evidence.lastOpen ?? run.startEpoch) - run.startEpoch);
        this.finish(
          run,
          'aborted',
          seconds,
          'observed',
          `${cutNote('outage', seconds, run.seconds)}; ${why}`,
        );
      } else {
        this.finish(run, 'completed', run.seconds, readback ? 'observed' : 'commanded', why);
      }
      this.watchdog.arm(run.zone, run.route, plannedEnd, 'closing', 'watchdog', true);
      return;
    }
    if (this.active.get(run.zone) !== run) return;
    // Open until the stop went out: a late shutoff is water too.
    const late = Math.max(0, this.now() - plannedEnd);
    this.finish(
      run,
      'completed',
      run.seconds + late,
      readback ? 'observed' : 'commanded',
      readback ? undefined : NOT_OBSERVED,
    );
    this.watchdog.arm(run.zone, run.route, plannedEnd, 'confirm');
  }

  // --- ending a run ------------------------------------------------------------------

  /** Raincheck closed it (stop, stop_all, a replacing run, a flow alarm): open until now, or what was seen. */
  private endByRaincheck(run: Tracked, note: string): void {
    const now = this.now();
    const readback = this.readsBack(run);
    const evidence = readback ? 'observed' : 'commanded';
    const end = readback && run.evidence.gap ? (run.evidence.lastOpen ?? run.startEpoch) : now;
    const seconds = Math.min(run.seconds, Math.max(0, end - run.startEpoch));
    const suffix = readback && run.evidence.gap ? ` (readback was lost: ${seconds} s observed open)` : '';
    this.finish(run, 'aborted', seconds, evidence, `${note}${suffix}`);
    this.watchdog.arm(run.zone, run.route, run.startEpoch + run.seconds, 'confirm');
  }

  /** Records the row, settles the run, and counts it into its job (`watering.finished` at the job's end). */
  private finish(
    run: Tracked,
    how: RunEnd,
    seconds: number,
    evidence: 'observed' | 'commanded',
    note?: string,
  ): void {
    if (this.active.get(run.zone) !== run) return;
    this.active.delete(run.zone);
    const open = Math.max(0, Math.round(seconds));
    const metered = run.route.simulated
      ? null
      : (this.deps.meter?.measure(run.zone, run.route.controller_id, run.startEpoch, run.startEpoch + open) ??
        null);
    const water = recordedWater(
      this.deps.zoneConfig(run.zone),
      open,
      evidence,
      metered,
      pretendOf(run.route),
    );
    if (how === 'completed') this.deps.ledger.completed(run.rowId, open, water, note);
    else this.deps.ledger.aborted(run.rowId, open, water, note ?? 'stopped early');
    run.settle(how);
    this.masters?.afterZone(run.zone, this.now());
    this.changed(run.zone);
    const finished = this.jobs.add(run, how, open, water, note ?? null, this.now());
    if (finished) this.deps.bus.emit('watering.finished', finished);
    this.idleTimers();
  }

  // --- helpers ---------------------------------------------------------------------------

  /** The controller reads this valve back (some report only some stations: an MQTT zone without a state topic). */
  private readsBack(run: Tracked): boolean {
    return run.route.state_readback && !run.route.simulated && run.evidence.covered;
  }

  private refuseWhenControllerBusy(route: ZoneRoute): void {
    if (route.concurrent_zones) return;
    const other = [...this.active.values()].find(
      (r) => r.route.controller_id === route.controller_id && r.zone !== route.zone,
    );
    // A valve the watchdog is still closing is open too.
    const stuck = this.watchdog.closingOn(route.controller_id);
    const busy = other?.zone ?? (stuck !== route.zone ? stuck : null);
    if (busy) {
      throw new DispatchError(
        409,
        'controller_busy',
        `controller "${route.controller_id}" is running zone "${busy}" and runs one zone at a time`,
        { running_zone: busy, hint: 'stop that zone first, or wait until it finishes' },
      );
    }
  }

  private track(run: Omit<ActiveRun, 'done'>, evidence: ReadbackEvidence): Tracked {
    let settle: (end: RunEnd) => void = () => undefined;
    const done = new Promise<RunEnd>((resolve) => (settle = resolve));
    const tracked: Tracked = { ...run, done, settle, evidence, phase: 'open', closing: false };
    this.active.set(run.zone, tracked);
    this.startTimers();
    this.scheduleNext();
    return tracked;
  }

  /** Closes a run's valve before it is replaced (best effort: the new command follows at once). */
  private async stopQuietly(run: ActiveRun): Promise<void> {
    if (run.route.self_timed && this.now() >= run.startEpoch + run.seconds) return;
    try {
      await this.deps.driver.stopZone(run.route);
    } catch (err) {
      this.log.error({ zone: run.zone, err: errorText(err) }, 'could not close the valve before its new run');
    }
  }

  private onZone(zone: string): Tracked[] {
    const run = this.active.get(zone);
    return run ? [run] : [];
  }

  private onController(controllerId: string): Tracked[] {
    return [...this.active.values()].filter((r) => r.route.controller_id === controllerId);
  }

  private startTimers(): void {
    this.writeHeartbeat();
    this.heartbeat ??= setInterval(() => this.writeHeartbeat(), HEARTBEAT_MS);
    this.heartbeat.unref();
    this.ticker ??= setInterval(() => this.tick(), TICK_MS);
    this.ticker.unref();
  }

  /** A timer at the earliest due moment of the active runs (planned end, grace, stop retry). */
  private scheduleNext(): void {
    if (this.precise) clearTimeout(this.precise);
    this.precise = null;
    const dues = [...this.active.values()].map((run) => {
      const end = run.startEpoch + run.seconds;
      if (run.phase === 'open') return end;
      if (run.phase === 'awaiting_close') return end + watchdogGraceS(run.route);
      return Infinity;
    });
    const next = Math.min(...dues);
    if (!Number.isFinite(next)) return;
    const delayMs = Math.max(MIN_TIMER_MS, next * 1000 - this.deps.clock.nowMs());
    this.precise = setTimeout(() => this.tick(), delayMs);
    this.precise.unref();
  }

  /** Nothing open and nothing watched: no heartbeat, no ticking. */
  private idleTimers(): void {
    if (this.active.size > 0 || this.watchdog.busyControllers().length > 0 || this.masters?.busy()) {
      if (!this.ticker) this.startTimers();
      return;
    }
    if (this.heartbeat) clearInterval(this.heartbeat);
    if (this.ticker) clearInterval(this.ticker);
    this.heartbeat = null;
    this.ticker = null;
  }

  private writeHeartbeat(): void {
    try {
      this.deps.state?.set(HEARTBEAT_KEY, this.now());
    } catch (err) {
      this.log.warn({ err: errorText(err) }, 'could not record the dispatch heartbeat');
    }
  }

  private now(): number {
    return epochSeconds(this.deps.clock);
  }

  private changed(zone: string | null): void {
    this.deps.bus.emit('runs.changed', { zone });
  }
}

/** The note of a row whose seconds nobody saw: a controller that cannot report. */
export const NOT_OBSERVED =
  'not observed: the controller does not report its valves; the commanded seconds are recorded';

export function errorText(err: unknown): string {
  const message = (err as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(err);
}

function joinNotes(notes: readonly (string | null)[]): string | null {
  const said = notes.filter((n): n is string => n !== null && n !== '');
  return said.length > 0 ? said.join('; ') : null;
}
