import type { ProbeEvidence } from './probe-evidence';

/**
 * A calibrated probe that disagrees with its neighbours is distrusted (pure).
 * Calibrated readings share one scale (0 = wilting point, 100 = field
 * capacity), so across one yard they stay within reach of each other; a probe
 * lifted by a mower, in a puddle or out of the ground does not.
 *
 * Neighbours are the other trusted calibrated probes of the site. With at
 * least MIN_NEIGHBOURS of them agreeing among themselves (spread at most
 * NEIGHBOUR_SPREAD_PCT), a probe more than OUTLIER_PCT from their median is
 * marked `distrusted`. Fewer neighbours prove nothing: nothing changes.
 */

export const MIN_NEIGHBOURS = 2;
export const NEIGHBOUR_SPREAD_PCT = 25;
export const OUTLIER_PCT = 40;

export function distrustOutliers(probes: ReadonlyMap<string, ProbeEvidence>): Map<string, ProbeEvidence> {
  const calibrated = [...probes].filter(([, p]) => p.status === 'calibrated' && p.reading_pct !== null);
  const out = new Map(probes);
  for (const [slug, probe] of calibrated) {
    const others = calibrated
      .filter(([s, p]) => s !== slug && p.sensor_id !== probe.sensor_id)
      .map(([, p]) => p.reading_pct as number);
    if (others.length < MIN_NEIGHBOURS) continue;
    if (Math.max(...others) - Math.min(...others) > NEIGHBOUR_SPREAD_PCT) continue;
    const median = medianOf(others);
    const reading = probe.reading_pct as number;
    if (Math.abs(reading - median) <= OUTLIER_PCT) continue;
    out.set(slug, {
      ...probe,
      status: 'distrusted',
      reading_pct: null,
      note: `the probe reads ${reading} % calibrated while its ${others.length} neighbours agree on about ${Math.round(median)} %`,
    });
  }
  return out;
}

function medianOf(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}
