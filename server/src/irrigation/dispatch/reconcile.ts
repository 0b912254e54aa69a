import { epochSeconds, type Clock } from '../../core/clock';
import type { EventBus } from '../../core/bus';
import type { Logger } from '../../core/logger';
import type { ZoneConfig } from '../../config/schema';
import type { StoredRun } from '../../store/runs';
import { HEARTBEAT_KEY, type Dispatcher, type KeyValue } from './dispatcher';
import type { ValveDriver, ZoneRoute, ZoneRunningState } from './driver';
import type { RunObserver } from './observer';
import type { RunLedger } from './run-ledger';
import { recordedWater, type Pretend } from './water-amount';

/**
 * Boot: rows a crash or restart left `intended` or `running` are settled
 * before anything new is dispatched (spec: "a run interrupted by a restart is
 * reconciled on boot"). Per row, with E = start + planned seconds:
 *
 * - intended: the controller reports the zone open -> running (tracked on);
 *   otherwise skipped, the command never confirmed.
 * - running, the controller reports it open: before E, tracked to its end;
 *   past E, the valve outlived its run while the service was down: the row
 *   completes with the time it really stayed open (observed open now) and the
 *   watchdog closes it (`valve.watchdog`, by `boot`), retrying with back-off.
 * - running, the controller reports it closed -> completed when E has passed
 *   and the device did not restart meanwhile (its timer ran it out; the end
 *   itself was not seen: `commanded`), else aborted with the time proven
 *   open: up to the last heartbeat the service wrote while it was running.
 * - running, the controller cannot say (fire-and-forget or unreachable):
 *   a self-timed controller completed it at E, or is still running it (tracked
 *   on); a valve the service owns stayed open while the service was down:
 *   closed now if E has passed (the watchdog retries a failing stop), its row
 *   completed with the time it was left open.
 * - observed rows (duration 0 while open): resumed when still open, else
 *   completed with the open time the heartbeat proves.
 */

export interface ReconcileDeps {
  clock: Clock;
  logger: Logger;
  bus?: EventBus;
  ledger: RunLedger;
  driver: ValveDriver;
  dispatcher: Dispatcher;
  observer: RunObserver;
  state: KeyValue | null;
  zoneConfig: (zone: string) => ZoneConfig | undefined;
}

export async function reconcileOpenRuns(deps: ReconcileDeps): Promise<number> {
  const rows = deps.ledger.open();
  for (const row of rows) {
    try {
      await reconcileRow(deps, row);
    } catch (err) {
      deps.logger.error({ run: row.id, zone: row.zone, err }, 'could not reconcile an interrupted run');
    }
  }
  if (rows.length > 0) deps.bus?.emit('runs.changed', { zone: null });
  return rows.length;
}

async function reconcileRow(deps: ReconcileDeps, row: StoredRun): Promise<void> {
  const now = epochSeconds(deps.clock);
  const routed = deps.driver.route(row.zone);
  const route = routed.ok && routed.route.controller_id === row.controller_id ? routed.route : null;
  const observed = route ? await deps.driver.readZone(route) : null;
  const heartbeat = lastHeartbeat(deps, row);
  const log = deps.logger.child({ module: 'reconcile', run: row.id, zone: row.zone });

  if (row.duration_s === 0 && row.status === 'running') {
    if (route && observed?.running)
      deps.observer.adopt(row.zone, row.id, route.controller_id, row.start_epoch, now);
    else
      finish(
        deps,
        row,
        'completed',
        heartbeat - row.start_epoch,
        'observed until the service stopped',
        'observed',
      );
    return;
  }
  if (row.status === 'intended') {
    if (route && observed?.running) return resume(deps, row, route, now);
    deps.ledger.failed(row.id, 'interrupted by a restart before the controller confirmed the command');
    log.warn('an unconfirmed command was found at boot and marked skipped');
    return;
  }
  settleRunning(deps, row, route, observed, now, heartbeat);
}

function settleRunning(
  deps: ReconcileDeps,
  row: StoredRun,
  route: ZoneRoute | null,
  observed: ZoneRunningState | null,
  now: number,
  heartbeat: number,
): void {
  const end = row.start_epoch + row.duration_s;
  if (observed?.running_known && route) {
    if (observed.running && now < end) return resume(deps, row, route, now);
    if (observed.running) return closeOverdue(deps, row, route, now, 'observed');
    const bootedAt = deps.driver.bootedEpoch?.(route.controller_id) ?? null;
    const booted = bootedAt !== null && bootedAt > row.start_epoch;
    if (now >= end && !booted)
      return finish(
        deps,
        row,
        'completed',
        row.duration_s,
        'completed while the service was down (its end not observed)',
        'commanded',
      );
    const why = booted
      ? 'cut short by a controller restart while the service was down'
      : 'closed early while the service was down';
    return finish(deps, row, 'aborted', heartbeat - row.start_epoch, why, 'observed');
  }
  const selfTimed = route?.self_timed ?? true;
  if (selfTimed) {
    if (now >= end) {
      return finish(
        deps,
        row,
        'completed',
        row.duration_s,
        "completed by the controller's own timer while the service was down (not observed)",
        'commanded',
      );
    }
    if (route) return resume(deps, row, route, null);
    return finish(
      deps,
      row,
      'aborted',
      heartbeat - row.start_epoch,
      'its controller is gone from the config',
      'commanded',
    );
  }
  if (now < end && route) return resume(deps, row, route, null);
  if (route) return closeOverdue(deps, row, route, now, 'commanded');
  finish(
    deps,
    row,
    'completed',
    now - row.start_epoch,
    'the service was down at the planned end',
    'commanded',
  );
}

/** The valve outlived its run while the service was down: record the time it stayed open, close it now. */
function closeOverdue(
  deps: ReconcileDeps,
  row: StoredRun,
  route: ZoneRoute,
  now: number,
  evidence: 'observed' | 'commanded',
): void {
  const seen = evidence === 'observed' ? 'reported open at restart' : 'left open while the service was down';
  finish(
    deps,
    row,
    'completed',
    now - row.start_epoch,
    `${seen}, ${now - (row.start_epoch + row.duration_s)} s past its planned end: closed by the watchdog at restart`,
    evidence,
  );
  deps.dispatcher.watchdog.arm(row.zone, route, row.start_epoch + row.duration_s, 'closing', 'boot');
}

function resume(deps: ReconcileDeps, row: StoredRun, route: ZoneRoute, seenAt: number | null): void {
  if (row.status === 'intended') deps.ledger.started(row.id);
  deps.dispatcher.resume(
    {
      rowId: row.id,
      zone: row.zone,
      route,
      sessionId: row.session_id ?? `resumed-${row.id}`,
      source: row.source,
      startEpoch: row.start_epoch,
      seconds: row.duration_s,
    },
    seenAt,
  );
}

function finish(
  deps: ReconcileDeps,
  row: StoredRun,
  how: 'completed' | 'aborted',
  seconds: number,
  note: string,
  evidence: 'observed' | 'commanded',
): void {
  const open = Math.max(0, Math.round(seconds));
  const water = recordedWater(deps.zoneConfig(row.zone), open, evidence, null, pretendOfRow(deps, row));
  if (how === 'completed') deps.ledger.completed(row.id, open, water, note);
  else deps.ledger.aborted(row.id, open, water, note);
}

/** A dry-run row waters the synthetic yard when its zone's route (the config in force) is the demo's. */
function pretendOfRow(deps: ReconcileDeps, row: StoredRun): Pretend {
  if (!row.source.startsWith('dry_run')) return 'real';
  const routed = deps.driver.route(row.zone);
  return routed.ok && routed.route.synthetic_yard ? 'synthetic_yard' : 'dry_run';
}

/** The last moment the service was alive and tracking runs, never before the row began. */
function lastHeartbeat(deps: ReconcileDeps, row: StoredRun): number {
  const value = deps.state?.get(HEARTBEAT_KEY);
  const beat = typeof value === 'number' ? value : row.start_epoch;
  const planned = row.duration_s > 0 ? row.start_epoch + row.duration_s : Infinity;
  return Math.min(planned, Math.max(row.start_epoch, beat));
}
