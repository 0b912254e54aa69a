import { LightningTracker } from '../../trackers/lightning';
import { localDay, RainDayAccumulator } from '../../trackers/rain-day';
import { convert } from '../../fields';
import type { Reading } from '../../source';
import { intervalLightning, intervalRain, type TempestMessage } from './tempest-messages';

/**
 * The time-dependent part of a Tempest source, shared by the UDP and the
 * websocket kinds: today's rain (resets at local midnight in the deployment's
 * time zone) and strikes in the last hour (decays). Fed with every accepted
 * message, read with `readingsAt(now)`.
 *
 * Today's rain: when a record carries the vendor's local-day total (websocket
 * obs_st index 18, SKY obs_sky index 11) that total is used as is; otherwise
 * (UDP obs_st) the per-interval amounts are summed.
 *
 * A record whose epoch is not newer than the last one counted is skipped, so a
 * replayed observation (the websocket's cached obs after a reconnect, a
 * datagram heard twice) is not counted twice.
 */
export class TempestTimeState {
  private readonly rain: RainDayAccumulator;
  private readonly lightning = new LightningTracker();
  private vendorDay: { day: string; inches: number; epoch: number } | null = null;
  private accumulatedEpoch: number | null = null;
  private lastRainEpoch: number | null = null;
  private lastLightningEpoch: number | null = null;
  private lightningEvidenceEpoch: number | null = null;
  private recentStrikes: { epoch: number; distanceKm: number | null }[] = [];

  constructor(private readonly timezone: string) {
    this.rain = new RainDayAccumulator(timezone);
  }

  observe(message: TempestMessage): void {
    for (const r of intervalRain(message)) {
      if (this.lastRainEpoch !== null && r.epoch <= this.lastRainEpoch) continue;
      this.lastRainEpoch = r.epoch;
      this.rain.add(r.epoch, r.inches);
      if (r.inches !== null) this.accumulatedEpoch = r.epoch;
      if (r.localDayInches !== null) {
        this.vendorDay = { day: localDay(r.epoch, this.timezone), inches: r.localDayInches, epoch: r.epoch };
      }
    }
    for (const l of intervalLightning(message)) {
      if (this.lastLightningEpoch !== null && l.epoch <= this.lastLightningEpoch) continue;
      this.lastLightningEpoch = l.epoch;
      this.lightning.addInterval(l.epoch, l.count);
      this.noteLightning(l.epoch);
    }
    if (message.type === 'evt_strike' && message.epoch !== null) {
      if (this.seenStrike(message.epoch, message.distanceKm)) return;
      this.lightning.addStrike({
        epoch: message.epoch,
        distanceMi: message.distanceKm === null ? null : convert.kmToMi(message.distanceKm),
        energy: message.energy,
      });
      this.noteLightning(message.epoch);
    }
  }

  /** rain_in_today and lightning_strikes_last_hour at `nowEpoch`; each once evidence exists. */
  readingsAt(nowEpoch: number): Reading[] {
    const out: Reading[] = [];
    const vendor = this.vendorDay;
    if (vendor && (this.accumulatedEpoch === null || vendor.epoch >= this.accumulatedEpoch)) {
      const inches = localDay(nowEpoch, this.timezone) === vendor.day ? vendor.inches : 0;
      out.push({ field: 'rain_in_today', value: inches, observedEpoch: vendor.epoch });
    } else {
      const today = this.rain.todayAt(nowEpoch);
      if (today)
        out.push({ field: 'rain_in_today', value: today.inches, observedEpoch: today.observedEpoch });
    }
    if (this.lightning.hasEvidence && this.lightningEvidenceEpoch !== null) {
      out.push({
        field: 'lightning_strikes_last_hour',
        value: this.lightning.strikesLastHour(nowEpoch),
        observedEpoch: this.lightningEvidenceEpoch,
      });
    }
    return out;
  }

  private noteLightning(epoch: number): void {
    this.lightningEvidenceEpoch = Math.max(this.lightningEvidenceEpoch ?? epoch, epoch);
  }

  /** The same strike event heard twice (same epoch and distance) counts once. */
  private seenStrike(epoch: number, distanceKm: number | null): boolean {
    if (this.recentStrikes.some((s) => s.epoch === epoch && s.distanceKm === distanceKm)) return true;
    this.recentStrikes.push({ epoch, distanceKm });
    if (this.recentStrikes.length > 16) this.recentStrikes.shift();
    return false;
  }
}
