import { getHeapStatistics } from 'node:v8';
import { cpuShareMeter, type CpuShareClocks } from './cpu-share';

/**
 * V8 collects the old space only when it reaches the limit it set after its
 * last full collection. An idle service fills it slowly (the engine's
 * recompute, the weather ticks), so between collections up to 2 MB of its
 * resident memory is garbage waiting: the idle demo drifted from 57.9 to
 * 60.4 MB over 95 s (docs/architecture.md "Idle memory"). The young
 * generation's pages count too: scavenges leave them resident, a full
 * collection of an idle heap gives them back. While the process is idle
 * this collects as soon as the heap grew GROWTH_BYTES since the last
 * collection (about 30 ms for this heap; the idle demo needs one every
 * 30-60 s); while it is busy V8's own schedule stands. Checking every 5 s
 * for 256 KB was tried and is worse: a collection in the first seconds after
 * boot compacts into fresh pages while the ones it empties stay pooled until
 * V8's memory reducer, and the demo read 62-68 MB at 15-20 s. Needs node's
 * `--expose-gc` (bin/raincheck); without it nothing is watched.
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
  stop(): void;
}

/** Starts the idle check; null when node offers no `gc()`. */
export function collectWhileIdle(deps: IdleCollectorDeps = {}): IdleCollector | null {
  const gc = deps.gc ?? (globalThis as { gc?: () => void }).gc;
  if (!gc) return null;
  const heapUsed = deps.heapUsed ?? (() => getHeapStatistics().used_heap_size);
  const cpuShare = cpuShareMeter(deps);
  let afterCollection = heapUsed();
  const timer = setInterval(() => {
    const share = cpuShare();
    const used = heapUsed();
    // V8 collected on its own since: growth counts from what it left.
    if (used < afterCollection) afterCollection = used;
    if (share >= IDLE_SHARE || used - afterCollection < GROWTH_BYTES) return;
    gc();
    afterCollection = heapUsed();
  }, deps.checkEveryMs ?? CHECK_EVERY_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
