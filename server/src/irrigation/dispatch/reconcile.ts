import { epochSeconds, type Clock } from '../../core/clock';
import type { Logger } from '../../core/logger';
import type { ZoneConfig } from '../../config/schema';
import type { StoredRun } from '../../store/runs';
import { HEARTBEAT_KEY, type Dispatcher, type KeyValue } from './dispatcher';
import type { ValveDriver, ZoneRoute, ZoneRunningState } from './driver';
import type { RunObserver } from './observer';
import type { RunLedger } from './run-ledger';
import { waterAmount } from './water-amount';

/**
 * Boot: rows a crash or restart left `intended` or `running` are settled
 * before anything new is dispatched (spec: "a run interrupted by a restart is
 * reconciled on boot"). Per row, with E = start + planned seconds:
 *
 * - intended: the controller reports the zone open -> running (tracked on);
 *   otherwise skipped, the command never confirmed.
 * - running, the controller reports it open -> tracked to its planned end.
 * - running, the controller reports it closed -> completed when E has passed
 *   (the controller's timer ran it out), else aborted with the time actually
 *   open: up to the last heartbeat the service wrote while it was running.
 * - running, the controller cannot say (fire-and-forget):
 *   a self-timed controller completed it at E, or is still running it (tracked
 *   on); a valve the service owns stayed open while the service was down:
 *   closed now if E has passed, its row completed with the real open time.
 * - observed rows (duration 0 while open): resumed when still open, else
 *   completed with the open time the heartbeat proves.
 */

export interface ReconcileDeps {
  clock: Clock;
  logger: Logger;
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
    else finish(deps, row, 'completed', heartbeat - row.start_epoch, 'observed until the service stopped');
    return;
  }
  if (row.status === 'intended') {
    if (route && observed?.running) return resume(deps, row, route);
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
    if (observed.running) return resume(deps, row, route);
    if (now >= end)
      return finish(deps, row, 'completed', row.duration_s, 'completed while the service was down');
    return finish(
      deps,
      row,
      'aborted',
      heartbeat - row.start_epoch,
      'closed early while the service was down',
    );
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
      );
    }
    if (route) return resume(deps, row, route);
    return finish(
      deps,
      row,
      'aborted',
      heartbeat - row.start_epoch,
      'its controller is gone from the config',
    );
  }
  if (now < end && route) return resume(deps, row, route);
  // The service owns this valve's shutoff and was down: it stayed open until now.
  if (route) void deps.driver.stopZone(route).catch(() => undefined);
  finish(
    deps,
    row,
    'completed',
    now - row.start_epoch,
    'the service was down at the planned end: closed at restart',
  );
}

function resume(deps: ReconcileDeps, row: StoredRun, route: ZoneRoute): void {
  if (row.status === 'intended') deps.ledger.started(row.id);
  deps.dispatcher.resume({
    rowId: row.id,
    zone: row.zone,
    route,
    sessionId: row.session_id ?? `resumed-${row.id}`,
    source: row.source,
    startEpoch: row.start_epoch,
    seconds: row.duration_s,
  });
}

function finish(
  deps: ReconcileDeps,
  row: StoredRun,
  how: 'completed' | 'aborted',
  seconds: number,
  note: string,
): void {
  const open = Math.max(0, Math.round(seconds));
  const simulated = row.source.startsWith('dry_run');
  const amount = simulated
    ? { applied_mm: null, volume_gal: null }
    : waterAmount(deps.zoneConfig(row.zone), open);
  if (how === 'completed') deps.ledger.completed(row.id, open, amount, note);
  else deps.ledger.aborted(row.id, open, amount, note);
}

/** The last moment the service was alive and tracking runs, never before the row began. */
function lastHeartbeat(deps: ReconcileDeps, row: StoredRun): number {
  const value = deps.state?.get(HEARTBEAT_KEY);
  const beat = typeof value === 'number' ? value : row.start_epoch;
  const planned = row.duration_s > 0 ? row.start_epoch + row.duration_s : Infinity;
  return Math.min(planned, Math.max(row.start_epoch, beat));
}
