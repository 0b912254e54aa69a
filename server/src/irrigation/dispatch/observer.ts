import type { ControllerStatusEvent, EventBus } from '../../core/bus';
import type { Logger } from '../../core/logger';
import type { ZoneConfig } from '../../config/schema';
import type { ActiveRun } from './dispatcher';
import type { RunLedger } from './run-ledger';
import { OBSERVED_SOURCE } from './sources';
import { waterAmount } from './water-amount';

/**
 * Records what the hardware really did: when a controller with state
 * readback reports a zone open, an observed row (`ha_refresher`, status
 * `running`, duration 0 while open) starts; when it reports the zone closed,
 * the row completes with the seconds between the first and the last reading
 * that saw it open (a lower bound: nothing is credited that was not seen).
 * This catches runs started outside the service (the controller's own
 * programs, a button, an automation) and is the "observed hardware row" of a
 * manual run. Overlap with the request row is harmless: applied water is the
 * union of intervals per zone. Dry-run controllers have no hardware to observe.
 */

export const OBSERVED_NOTE_PREFIX = 'observed';

interface OpenObservation {
  rowId: number;
  controllerId: string;
  firstSeen: number;
  lastSeen: number;
}

export interface ObserverDeps {
  bus: EventBus;
  logger: Logger;
  ledger: RunLedger;
  zoneConfig: (zone: string) => ZoneConfig | undefined;
  /** The dispatcher's run on a zone, so the observed row joins its session. */
  activeRun: (zone: string) => ActiveRun | undefined;
}

export class RunObserver {
  private readonly open = new Map<string, OpenObservation>();
  private off: (() => void) | null = null;

  constructor(private readonly deps: ObserverDeps) {}

  start(): void {
    this.off = this.deps.bus.on('controller.status', (event) => this.onStatus(event));
  }

  stop(): void {
    this.off?.();
    this.off = null;
  }

  /** A row found open at boot whose zone the controller still reports open. */
  adopt(zone: string, rowId: number, controllerId: string, firstSeen: number, now: number): void {
    this.open.set(zone, { rowId, controllerId, firstSeen, lastSeen: now });
  }

  private onStatus(event: ControllerStatusEvent): void {
    if (event.simulated) return;
    let changed = false;
    for (const [zone, state] of Object.entries(event.zones)) {
      const seen = this.open.get(zone);
      if (state.running && !seen) changed = this.opened(zone, event) || changed;
      else if (state.running && seen) seen.lastSeen = event.observed_epoch;
      else if (!state.running && seen && seen.controllerId === event.controller_id) {
        this.closed(zone, seen);
        changed = true;
      }
    }
    if (changed) this.deps.bus.emit('runs.changed', { zone: null });
  }

  private opened(zone: string, event: ControllerStatusEvent): boolean {
    const run = this.deps.activeRun(zone);
    const rowId = this.deps.ledger.observedOpen({
      session_id: run?.sessionId ?? null,
      zone,
      start_epoch: event.observed_epoch,
      duration_s: 0,
      source: OBSERVED_SOURCE,
      controller_id: event.controller_id,
      note: `${OBSERVED_NOTE_PREFIX} open on controller ${event.controller_id}`,
    });
    const t = event.observed_epoch;
    this.open.set(zone, { rowId, controllerId: event.controller_id, firstSeen: t, lastSeen: t });
    return true;
  }

  private closed(zone: string, seen: OpenObservation): void {
    this.open.delete(zone);
    const seconds = Math.max(0, seen.lastSeen - seen.firstSeen);
    this.deps.ledger.completed(
      seen.rowId,
      seconds,
      waterAmount(this.deps.zoneConfig(zone), seconds),
      `${OBSERVED_NOTE_PREFIX} on controller ${seen.controllerId}: open at least ${seconds} s`,
    );
  }
}
