import { performance } from 'node:perf_hooks';

/**
 * The share of wall time this process spent on the CPU (user + system)
 * since the previous reading: the idle checks' measure of busy
 * (optimizer-when-busy.ts, idle-collector.ts). The first reading covers the
 * time since the meter was made.
 */
export interface CpuShareClocks {
  /** Process CPU time so far, microseconds (user + system). */
  cpuMicros?: () => number;
  /** Monotonic wall time, milliseconds. */
  nowMs?: () => number;
}

export function cpuShareMeter(clocks: CpuShareClocks = {}): () => number {
  const cpuMicros = clocks.cpuMicros ?? totalCpuMicros;
  const nowMs = clocks.nowMs ?? (() => performance.now());
  let lastCpu = cpuMicros();
  let lastWall = nowMs();
  return () => {
    const cpu = cpuMicros();
    const wall = nowMs();
    const share = (cpu - lastCpu) / 1000 / Math.max(1, wall - lastWall);
    lastCpu = cpu;
    lastWall = wall;
    return share;
  };
}

function totalCpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}
