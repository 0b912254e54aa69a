import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import {
  CHECK_EVERY_MS,
  collectWhileIdle,
  GROWTH_BYTES,
  IDLE_SHARE,
  type IdleCollector,
} from '../../server/src/core/idle-collector';

/**
 * An idle service collects V8's heap once it grew GROWTH_BYTES since the last
 * collection; a busy one leaves the schedule to V8. The heap meter, CPU meter
 * and clock are fakes here (the collection empties the fake heap back to its
 * live size); the last test runs the module in a real node with --expose-gc.
 */

function fakeProcess(liveBytes: number) {
  let used = liveBytes;
  let cpuMicros = 0;
  let wallMs = 0;
  const collections: number[] = [];
  return {
    collections,
    deps: {
      gc: () => {
        collections.push(used);
        used = liveBytes;
      },
      heapUsed: () => used,
      cpuMicros: () => cpuMicros,
      nowMs: () => wallMs,
    },
    /** One check window: the heap grows by `grownBytes`, `share` of the window on the CPU. */
    pass(grownBytes: number, share: number) {
      used += grownBytes;
      wallMs += CHECK_EVERY_MS;
      cpuMicros += CHECK_EVERY_MS * 1000 * share;
      jest.advanceTimersByTime(CHECK_EVERY_MS);
    },
    /**
     * A burst of work ends (the engine's recompute) `sinceMs` after the
     * previous one, `share` of that time on the CPU, the heap `grownBytes`
     * larger; the turn of the event loop then ends (setImmediate runs).
     */
    burst(collector: IdleCollector | null, grownBytes: number, share: number, sinceMs = 10_000) {
      used += grownBytes;
      wallMs += sinceMs;
      cpuMicros += sinceMs * 1000 * share;
      collector?.afterBurst();
      jest.advanceTimersByTime(0);
    },
    /** Allocation with no time passing. */
    grow(bytes: number) {
      used += bytes;
    },
    /** V8's own collection between checks. */
    collectedByV8(toBytes: number) {
      used = toBytes;
    },
  };
}

const MB = 1024 * 1024;

describe('collectWhileIdle', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('watches nothing when node offers no gc()', () => {
    expect(collectWhileIdle({ gc: undefined, heapUsed: () => 0 })).toBeNull();
  });

  it('collects once the idle heap grew GROWTH_BYTES, and measures the next growth from what it left', () => {
    const proc = fakeProcess(11 * MB);
    const collector = collectWhileIdle(proc.deps);
    proc.pass(GROWTH_BYTES / 2, 0.02);
    expect(proc.collections).toEqual([]);
    proc.pass(GROWTH_BYTES / 2, 0.02);
    expect(proc.collections).toEqual([11 * MB + GROWTH_BYTES]);
    proc.pass(GROWTH_BYTES - 1, 0.02);
    expect(proc.collections).toHaveLength(1);
    proc.pass(1, 0.02);
    expect(proc.collections).toHaveLength(2);
    collector?.stop();
  });

  it('leaves a busy service to V8, and collects in the first idle window after', () => {
    const proc = fakeProcess(11 * MB);
    const collector = collectWhileIdle(proc.deps);
    proc.pass(4 * MB, IDLE_SHARE);
    proc.pass(4 * MB, 0.8);
    expect(proc.collections).toEqual([]);
    proc.pass(0, IDLE_SHARE - 0.01);
    expect(proc.collections).toEqual([19 * MB]);
    collector?.stop();
  });

  it("counts growth from V8's own collection when V8 collected in between", () => {
    const proc = fakeProcess(11 * MB);
    const collector = collectWhileIdle(proc.deps);
    proc.pass(GROWTH_BYTES / 2, 0);
    proc.collectedByV8(10 * MB);
    proc.pass(0, 0);
    proc.pass(GROWTH_BYTES - 1, 0);
    expect(proc.collections).toEqual([]);
    proc.pass(1, 0);
    expect(proc.collections).toEqual([10 * MB + GROWTH_BYTES]);
    collector?.stop();
  });

  it('collects right after a burst of work once the idle heap grew GROWTH_BYTES', () => {
    const proc = fakeProcess(11 * MB);
    const collector = collectWhileIdle(proc.deps);
    proc.burst(collector, GROWTH_BYTES - 1, 0.01);
    expect(proc.collections).toEqual([]);
    proc.burst(collector, 1, 0.01);
    expect(proc.collections).toEqual([11 * MB + GROWTH_BYTES]);
    proc.burst(collector, GROWTH_BYTES, 0.01);
    expect(proc.collections).toEqual([11 * MB + GROWTH_BYTES, 11 * MB + GROWTH_BYTES]);
    collector?.stop();
  });

  it('leaves the garbage of a burst to V8 when the service was busy since the previous burst', () => {
    const proc = fakeProcess(11 * MB);
    const collector = collectWhileIdle(proc.deps);
    proc.burst(collector, 2 * MB, IDLE_SHARE);
    expect(proc.collections).toEqual([]);
    proc.burst(collector, 0, IDLE_SHARE - 0.01);
    expect(proc.collections).toEqual([13 * MB]);
    collector?.stop();
  });

  it('waits for the turn of the event loop to end: the burst’s listeners allocate too', () => {
    const proc = fakeProcess(11 * MB);
    const collector = collectWhileIdle(proc.deps);
    proc.grow(GROWTH_BYTES);
    collector?.afterBurst();
    expect(proc.collections).toEqual([]);
    jest.advanceTimersByTime(0);
    expect(proc.collections).toEqual([11 * MB + GROWTH_BYTES]);
    collector?.stop();
  });

  it('collects once for bursts that end in the same turn of the event loop', () => {
    const proc = fakeProcess(11 * MB);
    const collector = collectWhileIdle(proc.deps);
    collector?.afterBurst();
    collector?.afterBurst();
    proc.burst(collector, GROWTH_BYTES, 0);
    expect(proc.collections).toEqual([11 * MB + GROWTH_BYTES]);
    collector?.stop();
  });

  it('measures a burst’s idleness from the previous burst, whatever the timer checked in between', () => {
    const proc = fakeProcess(11 * MB);
    const collector = collectWhileIdle(proc.deps);
    proc.burst(collector, 0, 0.01);
    // A timer check lands just before the next burst: 30 ms of the 40 ms since are the burst itself.
    proc.pass(0, 0.01);
    proc.burst(collector, GROWTH_BYTES, 0.75, 40);
    expect(proc.collections).toEqual([11 * MB + GROWTH_BYTES]);
    collector?.stop();
  });

  it('stops checking when stopped', () => {
    const proc = fakeProcess(11 * MB);
    const collector = collectWhileIdle(proc.deps);
    collector?.afterBurst();
    collector?.stop();
    proc.pass(8 * MB, 0);
    jest.advanceTimersByTime(0);
    expect(proc.collections).toEqual([]);
  });

  it('finds node’s gc() under --expose-gc and frees real garbage with it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'idle-collector-'));
    try {
      for (const name of ['idle-collector', 'cpu-share']) {
        const source = readFileSync(join(__dirname, `../../server/src/core/${name}.ts`), 'utf8');
        const compiled = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS } });
        writeFileSync(join(dir, `${name}.js`), compiled.outputText);
      }
      // Garbage made after the collector started: 200,000 objects, dropped; nothing allocates after.
      const script = `
        const { collectWhileIdle } = require(${JSON.stringify(join(dir, 'idle-collector.js'))});
        const { getHeapStatistics } = require('node:v8');
        const collector = collectWhileIdle({ cpuMicros: () => 0, checkEveryMs: 200 });
        let garbage = Array.from({ length: 200000 }, (_, i) => ({ i, s: 'x' + i }));
        const full = getHeapStatistics().used_heap_size;
        garbage = null;
        setTimeout(() => {
          collector?.stop();
          const freed = full - getHeapStatistics().used_heap_size;
          process.stdout.write(JSON.stringify({ watching: collector !== null, freed }));
        }, 500);
      `;
      const run = (flags: string[]) =>
        JSON.parse(execFileSync(process.execPath, [...flags, '-e', script], { encoding: 'utf8' })) as {
          watching: boolean;
          freed: number;
        };
      const withGc = run(['--expose-gc']);
      expect(withGc.watching).toBe(true);
      expect(withGc.freed).toBeGreaterThan(4 * MB);
      // Without --expose-gc nothing is watched, and the garbage is still there.
      const without = run([]);
      expect(without.watching).toBe(false);
      expect(without.freed).toBeLessThan(MB);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
