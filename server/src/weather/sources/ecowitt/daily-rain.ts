import type { Reading, SourceBatch } from '../../source';
import { localDay } from '../../trackers/rain-day';

/**
 * A device-reported daily rain total belongs to the local day it was observed
 * on. When the device falls silent across local midnight, yesterday's total
 * must not pass for today's: once the local day has turned, `readingsAt`
 * answers `rain_in_today` = null (unknown) until a message from the new day
 * arrives. The null carries the last real observation time, so it never
 * advances the source's last-observation time (the weather service counts
 * `readingsAt` stamps as observations) and any newer message replaces it.
 */
export class DailyRainGuard {
  private lastEpoch: number | null = null;

  constructor(private readonly timezone: string) {}

  /** Records the observation time of the batch's `rain_in_today`, if it has one. */
  note(batch: SourceBatch): void {
    for (const r of batch.readings ?? []) {
      if (r.field !== 'rain_in_today' || r.value === null) continue;
      if (this.lastEpoch === null || r.observedEpoch > this.lastEpoch) this.lastEpoch = r.observedEpoch;
    }
  }

  readingsAt(nowEpoch: number): Reading[] {
    if (this.lastEpoch === null || nowEpoch <= this.lastEpoch) return [];
    if (localDay(nowEpoch, this.timezone) === localDay(this.lastEpoch, this.timezone)) return [];
    return [{ field: 'rain_in_today', value: null, observedEpoch: this.lastEpoch }];
  }
}
