import type { Notice } from './types';

/**
 * Drops a notice whose coalescing key was let through less than its window
 * ago: a flapping source, a retried failure or a second save do not ring the
 * owner's phone twice. Memory only: after a restart the first one is told again.
 */
export class Coalescer {
  private readonly lastSent = new Map<string, number>();

  /** True when the notice should go out (and remembers it); false for a duplicate inside the window. */
  admit(notice: Notice): boolean {
    if (notice.window_s <= 0) return true;
    const last = this.lastSent.get(notice.key);
    if (last !== undefined && notice.epoch - last < notice.window_s) return false;
    this.lastSent.set(notice.key, notice.epoch);
    this.forgetExpired(notice.epoch);
    return true;
  }

  /** Keeps the map small: a key whose longest possible window (a week) passed is forgotten. */
  private forgetExpired(now: number): void {
    if (this.lastSent.size < 256) return;
    for (const [key, epoch] of this.lastSent) if (now - epoch > 7 * 86400) this.lastSent.delete(key);
  }
}
