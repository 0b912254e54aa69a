import { silentLogger } from '../../server/src/core/logger';
import { Scheduler } from '../../server/src/irrigation/dispatch/scheduler';
import type { IrrigationSnapshot } from '../../server/src/irrigation/snapshot-schema';
import { tempStore } from '../store/temp-db';
import { dispatchRig, type DispatchRig } from './dispatch-rig';

/**
 * The scheduler over the dispatch rig (dispatch-rig.ts: manual clock,
 * SQLite ledger) with one dry-run controller: built before each test of the
 * file, stopped after it. The test sets `snapshot` (the engine's answer the
 * scheduler reads; null before each test).
 */

export interface SchedulerRig {
  rig: DispatchRig;
  scheduler: Scheduler;
  snapshot: IrrigationSnapshot | null;
}

export function useSchedulerRig(zones: Record<string, Record<string, unknown>>): SchedulerRig {
  const stores = tempStore();
  const state = {} as SchedulerRig;
  beforeEach(async () => {
    state.snapshot = null;
    state.rig = await dispatchRig(stores.store(), {
      controllers: [{ id: 'dry', kind: 'dry_run', default: true }],
      zones,
    });
    state.scheduler = new Scheduler({
      bus: state.rig.bus,
      clock: state.rig.clock,
      logger: silentLogger(),
      dispatcher: state.rig.dispatcher,
      driver: state.rig.manager,
      ledger: state.rig.ledger,
      snapshot: () => state.snapshot,
      state: state.rig.store.controls,
    });
  });
  afterEach(async () => {
    await state.scheduler.stop();
    await state.rig.stop();
  });
  return state;
}

/** Lets the promises the last clock step released run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 20; i += 1) await new Promise((resolve) => setImmediate(resolve));
}
