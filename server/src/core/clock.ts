/**
 * The injected clock. Pure domains (agronomy, engine) receive one and never call
 * Date.now() themselves, so tests can pin time of day, sunrise and DST edges.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  nowMs(): number;
}

export const systemClock: Clock = { nowMs: () => Date.now() };

export function epochSeconds(clock: Clock): number {
  return Math.floor(clock.nowMs() / 1000);
}

/** A settable clock for tests and the demo replay. */
export class ManualClock implements Clock {
  constructor(private ms: number) {}
  nowMs(): number {
    return this.ms;
  }
  set(ms: number): void {
    this.ms = ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}
