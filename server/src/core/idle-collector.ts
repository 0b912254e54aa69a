import { getHeapStatistics } from 'node:v8';
import { cpuShareMeter, type CpuShareClocks } from './cpu-share';

/**
 * V8 collects the old space only when it reaches the limit it set after its
 * last full collection. An idle service fills it slowly (the engine's
 * recompute, the weather ticks), so between collections up to 2 MB of its
 * resident memory is garbage waiting: the idle demo drifted from 57.9 to
 * 60.4 MB over 95 s (docs/architecture.md "Idle memory"). While the process
 * is idle this collects as soon as the heap grew GROWTH_BYTES since the last
 * collection (about 30 ms for this heap); while it is busy V8's own schedule
 * stands.
 *
 * Two moments are checked:
 * - after a burst of work (`afterBurst`, main.ts calls it for every engine
 *   recompute, an idle service's main allocator at about 1.4 MB each): its
 *   garbage is all dead then. Left to the next scavenge, part of it is still
 *   live mid-recompute: the young generation grows from one page to four and
 *   promotes into the old space, 0.8-1.1 MB of RSS for 5-15 s each time;
 * - every CHECK_EVERY_MS, for the allocation no burst announces.
 *
 * Checking on a 5 s timer for 256 KB was tried and is worse: a collection in
 * the first seconds after boot compacts into fresh pages while the ones it
 * empties stay pooled until V8's memory reducer, and the demo read 62-68 MB at
 * 15-20 s. Needs node's `--expose-gc` (bin/raincheck); without it nothing is
 * watched.
 */

export const CHECK_EVERY_MS = 15_000;
/** Heap growth since the last collection at which an idle service collects. */
export const GROWTH_BYTES = 512 * 1024;
/** CPU time over wall time in a check window below which the service counts as idle. */
export const IDLE_SHARE = 0.1;

export interface IdleCollectorDeps extends CpuShareClocks {
  gc?: () => void;
  /** Bytes of V8 heap in use. */
  heapUsed?: () => number;
  /** Default CHECK_EVERY_MS. */
  checkEveryMs?: number;
}

export interface IdleCollector {
  /**
   * A burst of work just ended: collect once the current turn of the event
   * loop is done (the burst's listeners finish their own allocation first),
   * if the service was idle since the previous burst and its heap grew.
   */
  afterBurst(): void;
  stop(): void;
}

/** Starts the idle check; null when node offers no `gc()`. */
export function collectWhileIdle(deps: IdleCollectorDeps = {}): IdleCollector | null {
  const gc = deps.gc ?? (globalThis as { gc?: () => void }).gc;
  if (!gc) return null;
  const heapUsed = deps.heapUsed ?? (() => getHeapStatistics().used_heap_size);
  let afterCollection = heapUsed();
  // Each moment measures idleness over its own window: the burst's window runs
  // from one burst to the next, so a timer check just before it cannot shrink it
  // to the burst alone.
  const collectIfIdle = (cpuShare: () => number) => () => {
    const share = cpuShare();
    const used = heapUsed();
    // V8 collected on its own since: growth counts from what it left.
    if (used < afterCollection) afterCollection = used;
    if (share >= IDLE_SHARE || used - afterCollection < GROWTH_BYTES) return;
    gc();
    afterCollection = heapUsed();
  };
  const timerCheck = collectIfIdle(cpuShareMeter(deps));
  const burstCheck = collectIfIdle(cpuShareMeter(deps));
  const timer = setInterval(timerCheck, deps.checkEveryMs ?? CHECK_EVERY_MS);
  timer.unref();
  let pending: NodeJS.Immediate | null = null;
  return {
    afterBurst: () => {
      if (pending) return;
      pending = setImmediate(() => {
        pending = null;
        burstCheck();
      });
      pending.unref();
    },
    stop: () => {
      clearInterval(timer);
      if (pending) clearImmediate(pending);
    },
  };
}
