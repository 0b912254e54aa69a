import type { EventBus } from '../../core/bus';
import { epochSeconds, type Clock } from '../../core/clock';
import type { Module } from '../../core/lifecycle';
import type { Logger } from '../../core/logger';
import type { IrrigationSnapshot } from '../snapshot-schema';
import { DispatchError } from './dispatch-error';
import { errorText, type Dispatcher, type KeyValue } from './dispatcher';
import type { RouteResult, ValveDriver } from './driver';
import type { RunLedger } from './run-ledger';
import type { SessionPlan } from '../../store/session-plans';
import {
  inCommandPieces,
  ownWindowToday,
  sessionPlanOf,
  skipMarkers,
  soakAfter,
  zoneJobs,
  type ZoneJob,
} from './session-plan';
import { runSource, SKIP_MARKER_SOURCE } from './sources';
import { FIXED_LATE_S } from '../schedule/fixed-schedule-days';

/**
 * Runs the engine's plan at the run window (spec 2.5 `today_window`).
 *
 * - At the window start, today's zones run in sequence: per controller one
 *   zone at a time, a zone's cycle segments separated by its soak (another
 *   zone runs during the soak); controllers run side by side. Every segment
 *   of one zone shares the session id `sched-<date>-<zone>`.
 * - Dispatch rule (spec 3): a zone reported running with `running_known` is
 *   skipped (a `skipped` row says so); a failed command leaves a `skipped`
 *   row with the controller's error and the zone's later segments are dropped.
 * - Catch-up: after a restart or outage the scheduler resumes inside the
 *   window (or until the finish recorded when the day's job began) and runs
 *   only zones with no row in their day's session: never twice for one day.
 * - Stopping does not wait for a segment's valve to close: the open run stays
 *   with the dispatcher (its heartbeat) and is reconciled on the next boot.
 * - Skip markers: once per day at the window start (sunrise when nothing is
 *   planned), zones that needed water but were held back get a
 *   `smart_morning` row with the reason.
 * - A zone with its own run window runs in its own session inside that
 *   window (tickOwnWindows), never in the deployment's.
 */

const TICK_MS = 30_000;
const BUSY_RETRY_S = 30;
export { FIXED_LATE_S };
export const DAY_KEY = 'dispatch.day';
export const MARKERS_KEY = 'dispatch.skip_markers_date';

interface DayRecord {
  date: string;
  finish: number;
}

export interface SchedulerDeps {
  bus: EventBus;
  clock: Clock;
  logger: Logger;
  dispatcher: Dispatcher;
  driver: ValveDriver;
  ledger: RunLedger;
  snapshot: () => IrrigationSnapshot | null;
  state: KeyValue | null;
  /** Where each session's plan is kept (the run-cap tuning's evidence); absent or null keeps none. */
  sessionPlans?: { record(plan: SessionPlan): boolean } | null;
}

export class Scheduler implements Module {
  readonly name = 'scheduler';
  private readonly log: Logger;
  private tickTimer: NodeJS.Timeout | null = null;
  private session: Promise<void> | null = null;
  private fixedSession: Promise<void> | null = null;
  private readonly ownSessions = new Map<string, Promise<void>>();
  private stopped = false;
  private readonly sleepers = new Set<() => void>();
  /** Sessions begun without a database (the ledger cannot answer then). */
  private readonly begun = new Set<string>();
  private dayMemory: DayRecord | null = null;
  private markersMemory: string | null = null;
  private off: (() => void) | null = null;

  constructor(private readonly deps: SchedulerDeps) {
    this.log = deps.logger.child({ module: 'scheduler' });
  }

  async start(): Promise<void> {
    this.stopped = false;
    this.tickTimer = setInterval(() => this.tick(), TICK_MS);
    this.tickTimer.unref();
    this.off = this.deps.bus.on('irrigation.snapshot', () => this.tick());
    this.tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.off?.();
    if (this.tickTimer) clearInterval(this.tickTimer);
    for (const wake of this.sleepers) wake();
    await this.session;
    await this.fixedSession;
    await Promise.all(this.ownSessions.values());
  }

  /** The fixed schedules' session in progress (tests await it). */
  fixedRuns(): Promise<void> | null {
    return this.fixedSession;
  }

  /**
   * Fixed schedules (`water_plan[0].schedule_runs`): each run is due from its
   * start for FIXED_LATE_S (a restart inside that catches it up, never twice:
   * its session id is its own). A held one (a skip rule, restrictions, a
   * floor already met, no size) leaves one `skipped` row with its reason at
   * its start. Nothing dispatches while paused or with `master_enable` off.
   */
  private tickFixed(snapshot: IrrigationSnapshot, date: string, now: number): void {
    if (this.fixedSession || snapshot.skip_check.is_paused === true || snapshot.master_enable === false)
      return;
    const due = (snapshot.water_plan[0]?.schedule_runs ?? []).filter(
      (r) =>
        r.start_epoch !== null &&
        now >= r.start_epoch &&
        now < r.start_epoch + FIXED_LATE_S &&
        !this.sessionBegun(r.session_id),
    );
    const jobs: ZoneJob[] = [];
    for (const run of due) {
      if (run.planned_seconds <= 0) {
        this.skip(run.zone, date, `${run.reason_code}: ${run.reason}`, false, run.session_id);
        continue;
      }
      jobs.push(
        inCommandPieces({
          zone: run.zone,
          name: run.zone,
          segments: [run.planned_seconds],
          soak_s: 0,
          session_id: run.session_id,
        }),
      );
    }
    if (jobs.length === 0) return;
    this.log.info({ date, runs: jobs.map((j) => j.session_id) }, 'fixed schedules: dispatching');
    this.fixedSession = this.runSession(jobs, date).finally(() => (this.fixedSession = null));
  }

  /** One look at the clock and the plan; public so tests can drive it. */
  tick(): Promise<void> | null {
    if (this.stopped) return null;
    const snapshot = this.deps.snapshot();
    const today = snapshot?.water_plan[0];
    if (!snapshot || !today) return null;
    const now = epochSeconds(this.deps.clock);
    this.writeSkipMarkers(snapshot, today.date_local, now);
    this.tickFixed(snapshot, today.date_local, now);
    const pending = zoneJobs(snapshot).filter((job) => !this.alreadyBegun(today.date_local, job.zone));
    this.tickOwnWindows(snapshot, pending, today.date_local, now);
    if (this.session || !this.mayDispatch(snapshot, today.date_local, now)) return this.session;
    const jobs = pending.filter((job) => ownWindowToday(snapshot, job.zone) === null);
    if (jobs.length === 0) return null;
    this.rememberDay(today.date_local, snapshot.today_window.finish);
    this.recordPlans(snapshot, jobs, today.date_local, now);
    this.log.info({ date: today.date_local, zones: jobs.map((j) => j.zone) }, 'run window: dispatching');
    this.session = this.runSession(jobs, today.date_local).finally(() => (this.session = null));
    return this.session;
  }

  /**
   * Zones with their own run window (`[zones.<slug>.run_window]`): each runs
   * in its own session, alone, from its own window's start until its finish
   * (a restart inside it catches up, never twice: the session id is the day's).
   */
  private tickOwnWindows(snapshot: IrrigationSnapshot, pending: ZoneJob[], date: string, now: number): void {
    if (snapshot.skip_check.is_paused === true || snapshot.master_enable === false) return;
    for (const job of pending) {
      const own = ownWindowToday(snapshot, job.zone);
      if (!own || this.ownSessions.has(job.zone)) continue;
      if (now < own.start_epoch || now >= own.finish_epoch) continue;
      this.recordPlans(snapshot, [job], date, now);
      this.log.info({ date, zone: job.zone }, 'own run window: dispatching');
      const session = this.runSession([job], date).finally(() => this.ownSessions.delete(job.zone));
      this.ownSessions.set(job.zone, session);
    }
  }

  /** The own-window sessions in progress (tests await them). */
  ownWindowRuns(): Promise<void>[] {
    return [...this.ownSessions.values()];
  }

  /** Whether a session may start now: inside today's window, or catching up a day already begun. */
  private mayDispatch(snapshot: IrrigationSnapshot, date: string, now: number): boolean {
    if (snapshot.skip_check.is_paused === true || snapshot.master_enable === false) return false;
    const { start, finish } = snapshot.today_window;
    const inWindow = finish > start && now >= start && now < finish;
    const day = this.day();
    return inWindow || (day?.date === date && now < day.finish);
  }

  private async runSession(jobs: ZoneJob[], date: string): Promise<void> {
    const byController = new Map<string, ZoneJob[]>();
    for (const job of jobs) {
      const route = this.deps.driver.route(job.zone);
      if (!route.ok) {
        this.skip(job.zone, date, `no_route: ${route.failure.message}`, false);
        continue;
      }
      const list = byController.get(route.route.controller_id) ?? [];
      list.push(job);
      byController.set(route.route.controller_id, list);
    }
    await Promise.all([...byController.values()].map((list) => this.runQueue(list, date)));
  }

  /** One controller's zones: one segment at a time, soaks interleaved. */
  private async runQueue(jobs: ZoneJob[], date: string): Promise<void> {
    const pending = jobs.map((job) => ({ job, next: 0, readyAt: 0, lastEnd: 0 }));
    while (pending.length > 0 && !this.stopped) {
      const now = epochSeconds(this.deps.clock);
      const item = pending.find((p) => p.readyAt <= now);
      if (!item) {
        await this.sleep(Math.min(...pending.map((p) => p.readyAt)) - now);
        continue;
      }
      const outcome = await this.runSegment(item.job, item.next, date, item.lastEnd);
      if (outcome === 'retry') item.readyAt = now + BUSY_RETRY_S;
      else if (outcome === 'completed' && item.next + 1 < item.job.segments.length) {
        const soak = soakAfter(item.job, item.next);
        item.next += 1;
        item.lastEnd = epochSeconds(this.deps.clock);
        item.readyAt = item.lastEnd + soak;
      } else pending.splice(pending.indexOf(item), 1);
    }
  }

  /**
   * `previousEnd`: when this session's previous segment of the zone ended (0
   * for the first). A readback older than that saw our own segment running
   * (a self-timed controller closes its valve without a command, so nothing
   * reads it again): it does not make the zone someone else's.
   */
  private async runSegment(
    job: ZoneJob,
    index: number,
    date: string,
    previousEnd: number,
  ): Promise<'completed' | 'dropped' | 'retry'> {
    const route = this.deps.driver.route(job.zone);
    if (await this.reportedRunning(job.zone, route, index, previousEnd)) {
      const simulated = route.ok && route.route.simulated;
      this.skip(
        job.zone,
        date,
        'zone_running: the controller reports the zone already running',
        simulated,
        job.session_id,
      );
      return 'dropped';
    }
    const count = job.segments.length;
    try {
      const started = await this.deps.dispatcher.run({
        zone: job.zone,
        seconds: job.segments[index] ?? 0,
        requester: 'schedule',
        sessionId: jobSession(job, date),
        ...(count > 1 ? { cycle: { index: index + 1, count } } : {}),
        note: job.notes?.[index] ?? null,
      });
      this.begun.add(jobSession(job, date));
      // Stopping the service must not wait for an open valve to close: the run stays
      // with the dispatcher's heartbeat and is reconciled on the next boot.
      const stopped = this.untilStopped();
      const end = await Promise.race([started.run.done, stopped.promise]).finally(stopped.cancel);
      return end === 'completed' ? 'completed' : 'dropped';
    } catch (err) {
      if (err instanceof DispatchError && err.code === 'controller_busy') return 'retry';
      if (err instanceof DispatchError) {
        const why = err.code === 'zone_unbound' ? 'no_route' : err.code;
        this.skip(job.zone, date, `${why}: ${err.message}`, false, job.session_id);
      }
      this.begun.add(jobSession(job, date));
      this.log.warn({ zone: job.zone, err: errorText(err) }, 'scheduled run failed');
      return 'dropped';
    }
  }

  /**
   * The dispatch rule (spec 3) on a reading that is still true. The cached
   * reading can be old: nothing reads a self-timed valve again after it
   * closes itself, so a zone that ran alone yesterday still reads "running".
   * A cached "running" is therefore read again before the zone is skipped;
   * only when that fresh reading cannot be had does the cached one stand.
   */
  private async reportedRunning(
    zone: string,
    route: RouteResult,
    index: number,
    previousEnd: number,
  ): Promise<boolean> {
    const cached = this.deps.driver.zoneStates().get(zone);
    const current = index === 0 || (cached?.observed_epoch ?? 0) > previousEnd;
    if (!cached?.running || !cached.running_known || !current) return false;
    if (this.deps.dispatcher.activeRuns().has(zone)) return false;
    if (!route.ok) return true;
    const fresh = await this.deps.driver.readZone(route.route).catch(() => null);
    return fresh ? fresh.running : true;
  }

  /** The plan each session starts from; a catch-up of the same session keeps the first. */
  private recordPlans(snapshot: IrrigationSnapshot, jobs: ZoneJob[], date: string, now: number): void {
    const plans = this.deps.sessionPlans;
    if (!plans) return;
    for (const job of jobs) {
      const plan = sessionPlanOf(snapshot, job.zone, sessionId(date, job.zone), now);
      try {
        if (plan) plans.record(plan);
      } catch (err) {
        this.log.warn({ zone: job.zone, err: errorText(err) }, 'could not record the session plan');
      }
    }
  }

  private writeSkipMarkers(snapshot: IrrigationSnapshot, date: string, now: number): void {
    const start = snapshot.today_window.start;
    if (start <= 0 || now < start || this.markersDate() === date) return;
    this.setMarkersDate(date);
    for (const marker of skipMarkers(snapshot)) {
      this.deps.ledger.skipped(
        {
          session_id: `skip-${date}-${marker.zone}`,
          zone: marker.zone,
          start_epoch: now,
          duration_s: 0,
          source: SKIP_MARKER_SOURCE,
          controller_id: null,
        },
        marker.reason,
      );
    }
    this.deps.bus.emit('runs.changed', { zone: null });
  }

  private skip(zone: string, date: string, reason: string, simulated: boolean, session?: string): void {
    const id = session ?? sessionId(date, zone);
    this.begun.add(id);
    this.deps.ledger.skipped(
      {
        session_id: id,
        zone,
        start_epoch: epochSeconds(this.deps.clock),
        duration_s: 0,
        source: runSource('schedule', simulated),
        controller_id: null,
      },
      reason,
    );
  }

  private alreadyBegun(date: string, zone: string): boolean {
    return this.sessionBegun(sessionId(date, zone));
  }

  private sessionBegun(id: string): boolean {
    return this.begun.has(id) || this.deps.ledger.session(id).length > 0;
  }

  private day(): DayRecord | null {
    const stored = this.deps.state?.get(DAY_KEY) as DayRecord | undefined;
    return stored ?? this.dayMemory;
  }

  private rememberDay(date: string, finish: number): void {
    const previous = this.day();
    const record = { date, finish: previous?.date === date ? Math.max(previous.finish, finish) : finish };
    this.dayMemory = record;
    this.deps.state?.set(DAY_KEY, { ...record });
  }

  private markersDate(): string | null {
    return (this.deps.state?.get(MARKERS_KEY) as string | undefined) ?? this.markersMemory;
  }

  private setMarkersDate(date: string): void {
    this.markersMemory = date;
    this.deps.state?.set(MARKERS_KEY, date);
  }

  /** A promise that resolves when `stop()` is called; `cancel` forgets it once it is not needed. */
  private untilStopped(): { promise: Promise<'stopped'>; cancel: () => void } {
    let wake: () => void = () => undefined;
    const promise = new Promise<'stopped'>((resolve) => {
      wake = () => resolve('stopped');
      if (this.stopped) wake();
      else this.sleepers.add(wake);
    });
    return { promise, cancel: () => this.sleepers.delete(wake) };
  }

  private sleep(seconds: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, Math.max(0, seconds) * 1000);
      this.sleepers.add(wake);
    });
  }
}

export function sessionId(date: string, zone: string): string {
  return `sched-${date}-${zone}`;
}

function jobSession(job: ZoneJob, date: string): string {
  return job.session_id ?? sessionId(date, job.zone);
}
