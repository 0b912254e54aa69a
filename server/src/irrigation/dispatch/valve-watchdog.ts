import type { EventBus } from '../../core/bus';
import type { Logger } from '../../core/logger';
import type { ValveDriver, ZoneRoute } from './driver';
import { StopRetry } from './stop-retry';

/**
 * No valve left open: Raincheck's own failsafe behind the device-side limits.
 * A valve Raincheck opened is watched past its run until the controller
 * reports it closed:
 *
 * - `confirm`: the run ended (our stop was accepted, or the self-timed
 *   controller's end passed); if the valve is still reported open a grace
 *   later, the watchdog closes it.
 * - `closing`: stop commands go out with back-off (stop-retry.ts) until one is
 *   accepted, then the watch goes back to `confirm`.
 *
 * Fire-and-forget controllers cannot confirm: their watch ends when a stop is
 * accepted. Each closing is announced as `valve.watchdog` (`closed` false
 * after the first failed stop, true once the valve is reported closed or, on a
 * controller that cannot report, the stop is accepted). A watched valve keeps
 * a one-at-a-time controller busy: it is open.
 */

/** Seconds a valve may stay reported open past the end of its run before the watchdog acts. */
export function watchdogGraceS(route: ZoneRoute): number {
  return Math.max(30, 2 * (route.confirm_within_s ?? 0));
}

interface Watch {
  zone: string;
  route: ZoneRoute;
  plannedEnd: number;
  mode: 'confirm' | 'closing';
  /** `confirm`: when the grace started. */
  since: number;
  stops: StopRetry | null;
  /** The watchdog sent a stop for this valve (it is announced when it closes). */
  acted: boolean;
  /** Stops sent for this valve since it outlived its run (the dispatcher's failed one included). */
  attempts: number;
  by: 'watchdog' | 'boot';
}

export interface ValveWatchdogDeps {
  bus: EventBus;
  logger: Logger;
  driver: ValveDriver;
  now: () => number;
}

export class ValveWatchdog {
  private readonly watches = new Map<string, Watch>();

  constructor(private readonly deps: ValveWatchdogDeps) {}

  /**
   * Watches a valve whose run ended (`confirm`) or that must be closed now
   * (`closing`). `afterFailedStop`: a stop already failed just now, so the
   * first retry waits its back-off (and the failure is announced).
   */
  arm(
    zone: string,
    route: ZoneRoute,
    plannedEnd: number,
    mode: Watch['mode'],
    by: Watch['by'] = 'watchdog',
    afterFailedStop = false,
  ): void {
    if (mode === 'confirm' && !route.state_readback) return;
    const now = this.deps.now();
    const stops = mode === 'closing' ? new StopRetry(now) : null;
    const watch: Watch = {
      zone,
      route,
      plannedEnd,
      mode,
      since: now,
      stops,
      acted: mode === 'closing',
      attempts: afterFailedStop ? 1 : 0,
      by,
    };
    this.watches.set(zone, watch);
    if (stops && afterFailedStop) {
      stops.failed(now);
      this.announce(watch, false);
    } else if (stops) {
      void this.attempt(watch);
    }
  }

  /** A new run of the zone, or a stop Raincheck just sent, owns the valve now. */
  release(zone: string): void {
    this.watches.delete(zone);
  }

  /** Controllers with a watched (still open) valve. */
  busyControllers(): string[] {
    return [...this.watches.values()].map((w) => w.route.controller_id);
  }

  /** A zone of this controller whose valve the watchdog is fighting to close (it is open), if any. */
  closingOn(controllerId: string): string | null {
    const watch = [...this.watches.values()].find(
      (w) => w.route.controller_id === controllerId && w.mode === 'closing',
    );
    return watch?.zone ?? null;
  }

  /** A reading of one controller: closed valves are released, open ones past their grace closed. */
  onReading(controllerId: string, zones: Record<string, { running: boolean }>): void {
    for (const watch of [...this.watches.values()]) {
      if (watch.route.controller_id !== controllerId) continue;
      const state = zones[watch.zone];
      if (state) this.seen(watch, state.running);
    }
  }

  /** Time passes: due retries go out; pushed controllers are checked against their last state. */
  tick(): void {
    const states = this.deps.driver.zoneStates();
    for (const watch of [...this.watches.values()]) {
      const state = states.get(watch.zone);
      if (watch.mode === 'confirm' && state?.running_known) this.seen(watch, state.running);
      else if (watch.mode === 'closing' && watch.stops?.due(this.deps.now())) void this.attempt(watch);
    }
  }

  private seen(watch: Watch, running: boolean): void {
    if (!running) {
      this.watches.delete(watch.zone);
      if (watch.acted) this.announce(watch, true);
      return;
    }
    const now = this.deps.now();
    if (watch.mode === 'confirm' && now >= watch.since + watchdogGraceS(watch.route)) {
      this.deps.logger.warn(
        { zone: watch.zone, controller: watch.route.controller_id, planned_end: watch.plannedEnd },
        'a valve is still open past the end of its run: closing it',
      );
      watch.mode = 'closing';
      watch.acted = true;
      watch.stops = new StopRetry(now);
      void this.attempt(watch);
    }
  }

  private async attempt(watch: Watch): Promise<void> {
    const stops = watch.stops;
    if (!stops || stops.busy || this.watches.get(watch.zone) !== watch) return;
    stops.busy = true;
    watch.attempts += 1;
    try {
      await this.deps.driver.stopZone(watch.route);
      stops.busy = false;
      if (this.watches.get(watch.zone) !== watch) return;
      if (!watch.route.state_readback) {
        this.watches.delete(watch.zone);
        this.announce(watch, true);
        return;
      }
      watch.mode = 'confirm';
      watch.since = this.deps.now();
    } catch (err) {
      stops.busy = false;
      stops.failed(this.deps.now());
      this.deps.logger.error(
        { zone: watch.zone, attempts: watch.attempts, err: String((err as Error).message ?? err) },
        'the watchdog could not close the valve; retrying',
      );
      if (stops.failures === 1) this.announce(watch, false);
    }
  }

  private announce(watch: Watch, closed: boolean): void {
    this.deps.bus.emit('valve.watchdog', {
      controller_id: watch.route.controller_id,
      zone: watch.zone,
      planned_end_epoch: watch.plannedEnd,
      epoch: this.deps.now(),
      closed,
      attempts: watch.attempts,
      by: watch.by,
    });
  }
}
