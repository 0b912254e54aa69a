/**
 * When to try again to close a valve whose stop command failed: 5 s, then
 * doubling, at most 5 minutes apart, for as long as the valve may be open.
 * A watchdog that gives up leaves water running; one that hammers a
 * struggling controller every second does not help it answer.
 */

const FIRST_RETRY_S = 5;
const MAX_RETRY_S = 300;

export class StopRetry {
  failures = 0;
  /** When the next attempt is due (epoch seconds). */
  nextAt: number;
  /** An attempt is in flight. */
  busy = false;

  constructor(now: number) {
    this.nextAt = now;
  }

  due(now: number): boolean {
    return !this.busy && now >= this.nextAt;
  }

  failed(now: number): void {
    this.failures += 1;
    this.nextAt = now + Math.min(MAX_RETRY_S, FIRST_RETRY_S * 2 ** (this.failures - 1));
  }
}
