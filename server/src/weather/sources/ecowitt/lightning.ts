import type { Reading, SourceBatch } from '../../source';
import { EXTRA } from './batch';

/**
 * Turns what an Ecowitt lightning sensor (WH57) reports in every message,
 * a running count for the gateway's day and the time and distance of the last
 * strike, into interval evidence for the weather core:
 *
 * - `lightning_count_last_min`: strikes since the previous message (the count's
 *   increase; after the gateway's midnight reset, the new count). Despite the
 *   name it covers the interval since the previous poll or upload, as a Tempest
 *   report covers its own interval. No reading on the first message, after a
 *   gap longer than `maxGapS` (the strikes could be from any time in it), or for
 *   a message no newer than the last one.
 * - `lightning_avg_dist_mi`: the last strike's distance when the interval had
 *   strikes (the sensor reports only the last strike's distance), null when it
 *   had none.
 * - Strike events: the last strike is forwarded once, when its time is newer
 *   than any strike already forwarded.
 */
export class LightningState {
  private lastCount: number | null = null;
  private lastCountEpoch: number | null = null;
  private lastStrikeEpoch: number | null = null;

  constructor(private readonly maxGapS: number) {}

  apply(batch: SourceBatch, observedEpoch: number): SourceBatch {
    const extras = batch.extras ?? [];
    const count = extras.find((e) => e.key === EXTRA.lightningCountToday)?.value;
    const distance = extras.find((e) => e.key === EXTRA.lightningDistanceMi)?.value ?? null;
    const derived: Reading[] = [];
    if (count !== undefined && (this.lastCountEpoch === null || observedEpoch > this.lastCountEpoch)) {
      if (
        this.lastCount !== null &&
        this.lastCountEpoch !== null &&
        observedEpoch - this.lastCountEpoch <= this.maxGapS
      ) {
        const delta = count >= this.lastCount ? count - this.lastCount : count;
        derived.push({ field: 'lightning_count_last_min', value: delta, observedEpoch });
        derived.push({ field: 'lightning_avg_dist_mi', value: delta > 0 ? distance : null, observedEpoch });
      }
      this.lastCount = count;
      this.lastCountEpoch = observedEpoch;
    }

    const strikes = (batch.strikes ?? []).filter(
      (s) => this.lastStrikeEpoch === null || s.epoch > this.lastStrikeEpoch,
    );
    for (const s of strikes) this.lastStrikeEpoch = Math.max(this.lastStrikeEpoch ?? s.epoch, s.epoch);

    const out: SourceBatch = { ...batch, readings: [...(batch.readings ?? []), ...derived] };
    if (strikes.length > 0) out.strikes = strikes;
    else delete out.strikes;
    return out;
  }
}
