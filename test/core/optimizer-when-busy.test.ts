import { execFileSync } from 'node:child_process';
import pino from 'pino';
import type { Logger } from '../../server/src/core/logger';
import { COMPILERS_ON_FLAGS, enableOptimizerWhenBusy } from '../../server/src/core/optimizer-when-busy';

/**
 * bin/raincheck boots node with `--max-opt=0`; the service turns V8's
 * compilers back on the first second it is busy (a quarter of the second or
 * more on the CPU), never while idle. The clock and the CPU meter are fakes
 * here; the last test checks in a real node that the flags it sets do turn
 * TurboFan on again.
 */

function capturingLogger(): { logger: Logger; messages: () => string[] } {
  const lines: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
  return { logger, messages: () => lines.map((line) => (JSON.parse(line) as { msg: string }).msg) };
}

/** A process whose CPU meter the test advances, second by second. */
function fakeProcess() {
  let cpuMicros = 0;
  let wallMs = 0;
  const flagsSet: string[] = [];
  return {
    flagsSet,
    deps: {
      cpuMicros: () => cpuMicros,
      nowMs: () => wallMs,
      setFlags: (flags: string) => void flagsSet.push(flags),
    },
    /** One check window of `seconds` with `share` of it spent on the CPU. */
    pass(seconds: number, share: number) {
      wallMs += seconds * 1000;
      cpuMicros += seconds * share * 1_000_000;
      jest.advanceTimersByTime(seconds * 1000);
    },
  };
}

describe('enableOptimizerWhenBusy', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('watches nothing when node was not started with the launcher tier limit', () => {
    const { logger, messages } = capturingLogger();
    const proc = fakeProcess();
    const watch = enableOptimizerWhenBusy({ logger, execArgv: ['--expose-gc'], ...proc.deps });
    proc.pass(1, 1);
    expect(watch).toBeNull();
    expect(proc.flagsSet).toEqual([]);
    expect(messages()).toEqual([]);
  });

  it('keeps the compilers off through idle seconds and turns them on the first busy second, once', () => {
    const { logger, messages } = capturingLogger();
    const proc = fakeProcess();
    const watch = enableOptimizerWhenBusy({ logger, execArgv: ['--expose-gc', '--max-opt=0'], ...proc.deps });
    expect(messages()).toEqual(['optimising compilers off until the service is busy']);

    // Idle ticks: a minute tick's recompute, SSE keepalives; and a second just under the threshold.
    for (const share of [0.05, 0, 0.1, 0.24]) proc.pass(1, share);
    expect(proc.flagsSet).toEqual([]);

    proc.pass(1, 0.25);
    expect(proc.flagsSet).toEqual([COMPILERS_ON_FLAGS]);
    expect(messages()).toContain('service busy: optimising compilers on');

    proc.pass(1, 1);
    proc.pass(1, 0);
    expect(proc.flagsSet).toHaveLength(1);
    watch?.stop();
  });

  it('measures the share over the time that really passed when the event loop ran late', () => {
    const { logger } = capturingLogger();
    const late = fakeProcess();
    const watch = enableOptimizerWhenBusy({ logger, execArgv: ['--max-opt=0'], ...late.deps });
    // A 4 s gap with 0.8 s of CPU is 20% busy: still idle, though 0.8 s exceeds a quarter of the 1 s period.
    late.pass(4, 0.2);
    expect(late.flagsSet).toEqual([]);
    late.pass(3, 0.9);
    expect(late.flagsSet).toEqual([COMPILERS_ON_FLAGS]);
    watch?.stop();
  });
});

describe('COMPILERS_ON_FLAGS in a node started with --max-opt=0', () => {
  it('turns TurboFan back on (raising --max-opt alone would not)', () => {
    const script = [
      "const v8 = require('node:v8');",
      'function hot(n) { let s = 0; for (let i = 0; i < n; i += 1) s += i % 7; return s; }',
      'const work = () => { let t = 0; for (let k = 0; k < 3000; k += 1) t += hot(1000); return t; };',
      "work(); console.log('-- flags: ' + process.argv[1]);",
      'v8.setFlagsFromString(process.argv[1]); work(); work();',
    ].join('\n');
    const traced = (flags: string) =>
      execFileSync(process.execPath, ['--max-opt=0', '--trace-opt', '-e', script, '--', flags], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH },
      });
    const optimisedAfterFlip = (output: string) => {
      const at = output.indexOf('-- flags:');
      expect(at).toBeGreaterThan(-1);
      const optimised = (text: string) => /completed optimizing/.test(text);
      return { before: optimised(output.slice(0, at)), after: optimised(output.slice(at)) };
    };

    expect(optimisedAfterFlip(traced(COMPILERS_ON_FLAGS))).toEqual({ before: false, after: true });
    expect(optimisedAfterFlip(traced('--max-opt=999'))).toEqual({ before: false, after: false });
  });
});
