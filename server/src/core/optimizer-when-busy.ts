import { setFlagsFromString } from 'node:v8';
import { cpuShareMeter, type CpuShareClocks } from './cpu-share';
import type { Logger } from './logger';

/**
 * bin/raincheck starts node with V8's compilers above the interpreter off
 * (`--max-opt=0`): an idle service then never runs TurboFan, whose own
 * machine code (about 4 MB of the node binary) and optimised code would
 * otherwise stay resident, touched by boot and again by the idle ticks (the
 * engine's minute recompute tiers functions up within a minute). Once the
 * process is busy, a whole second with a quarter or more of it on the CPU
 * (HTTP load, a long backfill), this turns the compilers back on for good,
 * node's defaults, so a loaded service runs as fast as without the launcher
 * flag. Idle work stays under a tenth of any second.
 */

/** The launcher flag that holds the compilers back; without it (tests, `tsx`) nothing is watched. */
export const TIER_LIMIT_FLAG = '--max-opt=';

/** V8's defaults: `--max-opt=0` also switched Sparkplug and TurboFan off, which raising it does not undo. */
export const COMPILERS_ON_FLAGS = '--max-opt=999 --sparkplug --turbofan';

const CHECK_EVERY_MS = 1000;
/** CPU time over wall time in one check window at which the service counts as busy. */
const BUSY_SHARE = 0.25;

export interface OptimizerWatchDeps extends CpuShareClocks {
  logger: Logger;
  /** Node's flags (process.execArgv). */
  execArgv: readonly string[];
  setFlags?: (flags: string) => void;
}

export interface OptimizerWatch {
  stop(): void;
}

/** Arms the busy check when the launcher held the compilers back; returns null otherwise. */
export function enableOptimizerWhenBusy(deps: OptimizerWatchDeps): OptimizerWatch | null {
  const limit = deps.execArgv.find((arg) => arg.startsWith(TIER_LIMIT_FLAG));
  if (!limit) return null;
  const setFlags = deps.setFlags ?? setFlagsFromString;
  const log = deps.logger.child({ module: 'optimizer' });
  log.info({ launched_with: limit }, 'optimising compilers off until the service is busy');

  const cpuShare = cpuShareMeter(deps);
  const timer = setInterval(() => {
    const share = cpuShare();
    if (share < BUSY_SHARE) return;
    clearInterval(timer);
    setFlags(COMPILERS_ON_FLAGS);
    log.info({ cpu_share: Math.round(share * 100) / 100 }, 'service busy: optimising compilers on');
  }, CHECK_EVERY_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
