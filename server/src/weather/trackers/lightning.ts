import type { StrikeEvent } from '../source';

/**
 * Lightning over the last hour from two kinds of evidence: per-interval strike
 * counts (obs_st index 15) and individual strike events (evt_strike). They
 * describe the same strikes, so the hour's count is the larger of the two,
 * never their sum. Counts age out, so the hour's total decays to 0.
 */

const HOUR_S = 3600;
/** Strikes kept for `lightning_recent`. */
const RECENT_LIMIT = 20;

export interface RecentStrike {
  epoch: number;
  distance_mi: number | null;
  energy: number | null;
}

export class LightningTracker {
  private intervals: { epoch: number; count: number }[] = [];
  private strikes: StrikeEvent[] = [];
  private last: StrikeEvent | null = null;

  addInterval(epoch: number, count: number): void {
    this.intervals.push({ epoch, count });
    this.prune(epoch);
  }

  addStrike(strike: StrikeEvent): void {
    this.strikes.push(strike);
    if (!this.last || strike.epoch >= this.last.epoch) this.last = strike;
    this.prune(strike.epoch);
  }

  strikesLastHour(nowEpoch: number): number {
    const from = nowEpoch - HOUR_S;
    const counted = this.intervals.filter((i) => i.epoch > from).reduce((sum, i) => sum + i.count, 0);
    const events = this.strikes.filter((s) => s.epoch > from).length;
    return Math.max(counted, events);
  }

  /** Strike events of the last hour, newest first. */
  recent(nowEpoch: number): RecentStrike[] {
    return this.strikes
      .filter((s) => s.epoch > nowEpoch - HOUR_S)
      .slice(-RECENT_LIMIT)
      .reverse()
      .map((s) => ({ epoch: s.epoch, distance_mi: s.distanceMi, energy: s.energy }));
  }

  /** The last strike ever seen (persists between strikes). */
  lastStrike(): StrikeEvent | null {
    return this.last;
  }

  /** True once any lightning evidence arrived (a sensor that can see lightning exists). */
  get hasEvidence(): boolean {
    return this.intervals.length > 0 || this.last !== null;
  }

  private prune(nowEpoch: number): void {
    const from = nowEpoch - HOUR_S * 2;
    if (this.intervals.length > 0 && this.intervals[0]!.epoch <= from) {
      this.intervals = this.intervals.filter((i) => i.epoch > from);
    }
    if (this.strikes.length > 200) this.strikes = this.strikes.slice(-RECENT_LIMIT * 2);
  }
}
