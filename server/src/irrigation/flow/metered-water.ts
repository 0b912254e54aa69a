import type { MeteredWater } from '../dispatch/water-amount';

/**
 * A run's metered water from a meter's readings. Pure.
 *
 * - Rate readings: each holds until the next, the first from the valve's
 *   opening; readings at or after the close are not the run's. A meter that
 *   reports only changes (a Home Assistant sensor) may send nothing during a
 *   steady run: then its last reading before the opening holds throughout.
 *   Volume is that step curve's area.
 * - Total readings (a cumulative counter): the last reading at or before the
 *   opening (else the first after it) to the first at or after the close
 *   (else the last before it). A counter that went backwards (a reset) proves
 *   nothing.
 * Null when no reading covers the run: no number is better than a guess.
 */

export interface MeterSample {
  epoch: number;
  rate_gpm: number | null;
  total_gal: number | null;
}

/** How long after the close a counter's reading still tells the run's end total. */
const TOTAL_AFTER_S = 300;

export function meteredWater(samples: readonly MeterSample[], from: number, to: number): MeteredWater | null {
  if (to <= from) return null;
  const volume = samples.some((s) => s.total_gal !== null)
    ? totalVolume(samples, from, to)
    : rateVolume(samples, from, to);
  if (volume === null || volume < 0) return null;
  return { volume_gal: volume, mean_flow_gpm: volume / ((to - from) / 60) };
}

/** The flow rate a sample shows, from a rate or from two totals (gal/min). */
export function rateAt(samples: readonly MeterSample[], index: number): number | null {
  const sample = samples[index];
  if (!sample) return null;
  if (sample.rate_gpm !== null) return sample.rate_gpm;
  const previous = samples[index - 1];
  if (
    !previous ||
    previous.total_gal === null ||
    sample.total_gal === null ||
    sample.epoch <= previous.epoch
  ) {
    return null;
  }
  return ((sample.total_gal - previous.total_gal) / (sample.epoch - previous.epoch)) * 60;
}

function rateVolume(samples: readonly MeterSample[], from: number, to: number): number | null {
  const rates = samples.filter((s) => s.rate_gpm !== null);
  const inside = rates.filter((s) => s.epoch >= from && s.epoch < to);
  if (inside.length === 0) {
    const held = [...rates].reverse().find((s) => s.epoch < from);
    return held ? ((held.rate_gpm as number) * (to - from)) / 60 : null;
  }
  let gallons = 0;
  inside.forEach((sample, i) => {
    const start = i === 0 ? from : sample.epoch;
    const end = inside[i + 1]?.epoch ?? to;
    gallons += ((sample.rate_gpm as number) * (end - start)) / 60;
  });
  return gallons;
}

function totalVolume(samples: readonly MeterSample[], from: number, to: number): number | null {
  const totals = samples.filter((s) => s.total_gal !== null);
  const before =
    [...totals].reverse().find((s) => s.epoch <= from) ?? totals.find((s) => s.epoch > from && s.epoch < to);
  const after =
    totals.find((s) => s.epoch >= to && s.epoch <= to + TOTAL_AFTER_S) ??
    [...totals].reverse().find((s) => s.epoch < to);
  if (!before || !after || after.epoch <= before.epoch) return null;
  return (after.total_gal as number) - (before.total_gal as number);
}
