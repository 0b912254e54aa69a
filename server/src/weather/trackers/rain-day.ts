import { LocalTime } from '../../core/tz/local-time';
import { timeZone } from '../../core/tz/time-zone';

/**
 * Today's rain from per-interval increments (Tempest UDP carries no daily
 * total: spec fixtures). Totals are kept per local calendar day in the
 * deployment's time zone, so the reset happens at local midnight, DST days
 * included, whether or not a packet arrives at that moment.
 */
export class RainDayAccumulator {
  private day: string | null = null;
  private totalIn = 0;
  private lastObservedEpoch: number | null = null;

  constructor(private readonly timezone: string) {}

  /** Adds rain that fell in the interval ending at `epoch`. A null amount is no evidence and adds nothing. */
  add(epoch: number, inches: number | null): void {
    const day = localDay(epoch, this.timezone);
    if (day !== this.day) {
      this.day = day;
      this.totalIn = 0;
    }
    if (inches !== null && Number.isFinite(inches) && inches > 0) this.totalIn += inches;
    if (inches !== null) this.lastObservedEpoch = Math.max(this.lastObservedEpoch ?? epoch, epoch);
  }

  /**
   * Rain so far on the local day of `nowEpoch`, or null before any interval
   * was observed. After midnight it reads 0 until new rain is added.
   */
  todayAt(nowEpoch: number): { inches: number; observedEpoch: number } | null {
    if (this.lastObservedEpoch === null) return null;
    const inches = localDay(nowEpoch, this.timezone) === this.day ? this.totalIn : 0;
    return { inches, observedEpoch: this.lastObservedEpoch };
  }
}

export function localDay(epoch: number, timezone: string): string {
  return LocalTime.fromSeconds(epoch, timeZone(timezone)).isoDate ?? '';
}
