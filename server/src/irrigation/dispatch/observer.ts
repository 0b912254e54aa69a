import type { ControllerFailureEvent, ControllerStatusEvent, EventBus } from '../../core/bus';
import { epochSeconds, type Clock } from '../../core/clock';
import type { Logger } from '../../core/logger';
import type { ZoneConfig } from '../../config/schema';
import type { ActiveRun, RunMeter } from './dispatcher';
import {
  creditedEnd,
  cutNote,
  noteFailure,
  noteReading,
  seenOpenAt,
  type ReadbackEvidence,
} from './readback-evidence';
import type { RunLedger } from './run-ledger';
import { OBSERVED_SOURCE } from './sources';
import { recordedWater } from './water-amount';

/**
 * Records what the hardware really did: when a controller with state
 * readback reports a zone open, an observed row (`ha_refresher`, status
 * `running`, duration 0 while open) starts; when it reports the zone closed,
 * the row completes with the seconds the evidence supports
 * (readback-evidence.ts): from the run's start (the dispatcher's, when the
 * row joins one of its runs; else the first reading that saw it open) to the
 * first reading that saw it closed, capped at the planned end (our run) or
 * at what the controller said was left (`remaining_s`); to the last reading
 * that saw it open when readings failed in between or the device rebooted.
 * This catches runs started outside the service (the controller's own
 * programs, a button, an automation) and is the "observed hardware row" of a
 * manual run. Overlap with the request row is harmless: applied water is the
 * union of intervals per zone. Dry-run controllers have no hardware to observe.
 * An observation whose readings stopped for OUTAGE_CLOSE_S is closed at its
 * last open reading.
 */

export const OBSERVED_NOTE_PREFIX = 'observed';
/** An observation without a reading for this long (its controller unreachable) is closed. */
export const OUTAGE_CLOSE_S = 600;
const TICK_MS = 30_000;

interface OpenObservation {
  rowId: number;
  controllerId: string;
  start: number;
  /** Our run's planned end; null for a run started elsewhere. */
  plannedEnd: number | null;
  /** Last reading's `remaining_s` added to its time: the controller's own end. */
  reportedEnd: number | null;
  evidence: ReadbackEvidence;
}

export interface ObserverDeps {
  bus: EventBus;
  logger: Logger;
  ledger: RunLedger;
  zoneConfig: (zone: string) => ZoneConfig | undefined;
  /** The dispatcher's run on a zone, so the observed row joins its session. */
  activeRun: (zone: string) => ActiveRun | undefined;
  clock?: Clock;
  meter?: RunMeter | null;
}

export class RunObserver {
  private readonly open = new Map<string, OpenObservation>();
  private readonly offs: (() => void)[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly deps: ObserverDeps) {}

  start(): void {
    this.offs.push(this.deps.bus.on('controller.status', (event) => this.onStatus(event)));
    this.offs.push(this.deps.bus.on('controller.failure', (event) => this.onFailure(event)));
    this.timer = setInterval(() => this.tick(), TICK_MS);
    this.timer.unref();
  }

  stop(): void {
    for (const off of this.offs.splice(0)) off();
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** A row found open at boot whose zone the controller still reports open. */
  adopt(zone: string, rowId: number, controllerId: string, firstSeen: number, now: number): void {
    const evidence = seenOpenAt(now);
    evidence.firstOpen = firstSeen;
    this.open.set(zone, {
      rowId,
      controllerId,
      start: firstSeen,
      plannedEnd: null,
      reportedEnd: null,
      evidence,
    });
  }

  /** Closes observations whose readings stopped long ago (public so tests can drive it). */
  tick(): void {
    const now = this.deps.clock ? epochSeconds(this.deps.clock) : Math.floor(Date.now() / 1000);
    let changed = false;
    for (const [zone, seen] of [...this.open]) {
      const lastOpen = seen.evidence.lastOpen ?? seen.start;
      if (seen.evidence.gap && now - lastOpen >= OUTAGE_CLOSE_S) {
        this.closed(zone, seen, lastOpen);
        changed = true;
      }
    }
    if (changed) this.deps.bus.emit('runs.changed', { zone: null });
  }

  private onStatus(event: ControllerStatusEvent): void {
    if (event.simulated) return;
    let changed = false;
    const booted = event.booted_epoch ?? null;
    for (const [zone, state] of Object.entries(event.zones)) {
      const seen = this.open.get(zone);
      if (seen && seen.controllerId === event.controller_id) {
        noteReading(seen.evidence, state.running, event.observed_epoch, booted, seen.start);
        if (state.running && seen.evidence.rebootedAt === null) {
          seen.reportedEnd = state.remaining_s === null ? null : event.observed_epoch + state.remaining_s;
          continue;
        }
        this.closed(zone, seen, event.observed_epoch);
        changed = true;
      }
      if (state.running && !this.open.has(zone))
        changed = this.opened(zone, event, state.remaining_s) || changed;
    }
    if (changed) this.deps.bus.emit('runs.changed', { zone: null });
  }

  private onFailure(event: ControllerFailureEvent): void {
    // A failed reading, or a command the controller never answered: its valves' state is unknown.
    if (event.action !== 'readback' && event.code !== 'controller_unreachable') return;
    for (const seen of this.open.values()) {
      if (seen.controllerId === event.controller_id) noteFailure(seen.evidence);
    }
  }

  private opened(zone: string, event: ControllerStatusEvent, remaining: number | null): boolean {
    const run = this.deps.activeRun(zone);
    const ours = run && run.route.controller_id === event.controller_id ? run : undefined;
    const t = event.observed_epoch;
    const start = ours ? Math.min(ours.startEpoch, t) : t;
    const rowId = this.deps.ledger.observedOpen({
      session_id: ours?.sessionId ?? null,
      zone,
      start_epoch: start,
      duration_s: 0,
      source: OBSERVED_SOURCE,
      controller_id: event.controller_id,
      note: `${OBSERVED_NOTE_PREFIX} open on controller ${event.controller_id}`,
    });
    this.open.set(zone, {
      rowId,
      controllerId: event.controller_id,
      start,
      plannedEnd: ours ? ours.startEpoch + ours.seconds : null,
      reportedEnd: remaining === null ? null : t + remaining,
      evidence: seenOpenAt(t),
    });
    return true;
  }

  private closed(zone: string, seen: OpenObservation, at: number): void {
    this.open.delete(zone);
    const cap = [seen.plannedEnd, seen.reportedEnd].filter((e): e is number => e !== null);
    const plannedEnd =
      cap.length > 0 ? Math.max(Math.min(...cap), seen.evidence.lastOpen ?? seen.start) : null;
    const { end, cutBy } = creditedEnd(seen.evidence, seen.start, at, plannedEnd);
    const seconds = Math.max(0, end - seen.start);
    const metered = this.deps.meter?.measure(zone, seen.controllerId, seen.start, end) ?? null;
    const water = recordedWater(this.deps.zoneConfig(zone), seconds, 'observed', metered);
    const why = cutBy === 'restart' || cutBy === 'outage' ? `; ${cutNote(cutBy, seconds, null)}` : '';
    this.deps.ledger.completed(
      seen.rowId,
      seconds,
      water,
      `${OBSERVED_NOTE_PREFIX} on controller ${seen.controllerId}: open ${seconds} s${why}`,
    );
  }
}
