import type { SoilLedgerRow } from '../../store/soil-ledger';

/**
 * The wet point a refill shows (pure): automatic calibration from the ledger.
 *
 * A ledger day that drained (`drainage_mm` > 0: rain or irrigation beyond
 * what the root zone holds) left the soil at field capacity; the day closes
 * at most one day's crop use below it. When that closing depletion is within
 * REFILL_CLOSE_FRACTION of TAW, the probe's first reading of the next day's
 * first two hours (the same reading the ledger's reconciliation takes) is
 * taken as the reading at field capacity: the wet point, origin
 * `ledger_refill`. It reads at most one day's use drier than field capacity,
 * a bias toward a slightly low wet point (the probe then reads a little wet,
 * never drier than the soil).
 *
 * Only the newest such refill counts, and only one after `afterEpoch` (the
 * calibration's last change), so a refill is learnt once; an owner's wet
 * point is never replaced (the service checks).
 */

export const REFILL_CLOSE_FRACTION = 0.15;
const START_WINDOW_S = 2 * 3600;

export interface RefillWetPoint {
  raw_pct: number;
  /** The refill day (the ledger row that drained). */
  date_local: string;
  epoch: number;
}

export function refillWetPoint(
  rows: readonly SoilLedgerRow[],
  readings: readonly { epoch: number; value: number }[],
  nextDayStart: (date: string) => number,
  afterEpoch: number,
): RefillWetPoint | null {
  for (const row of [...rows].reverse()) {
    const drained = row.drainage_mm !== null && row.drainage_mm > 0;
    const nearFull = row.depletion_mm !== null && row.depletion_mm <= REFILL_CLOSE_FRACTION * row.taw_mm;
    if (!drained || !nearFull) continue;
    const start = nextDayStart(row.date_local);
    const first = readings
      .filter((r) => r.epoch >= start && r.epoch < start + START_WINDOW_S)
      .sort((a, b) => a.epoch - b.epoch)[0];
    if (!first || first.epoch <= afterEpoch) return null;
    if (!(first.value >= 0 && first.value <= 100)) return null;
    return { raw_pct: first.value, date_local: row.date_local, epoch: first.epoch };
  }
  return null;
}
