import type { WateringFinishedEvent } from '../../core/bus';
import type { StoredRun } from '../../store/runs';

/**
 * `watering.finished` for a zone's job that just ended: what the run ledger
 * credits across every cycle segment of its session (completed and aborted
 * rows; skip and request rows add nothing), not what was asked. Without a
 * database the ledger has no rows and the ending segment alone is told.
 */
export function jobSummary(
  rows: readonly StoredRun[],
  ending: Omit<WateringFinishedEvent, 'start_epoch'> & { start_epoch: number },
): WateringFinishedEvent {
  const ran = rows.filter((r) => r.status === 'completed' || r.status === 'aborted');
  if (ran.length === 0) return ending;
  return {
    ...ending,
    start_epoch: Math.min(...ran.map((r) => r.start_epoch)),
    duration_s: ran.reduce((sum, r) => sum + r.duration_s, 0),
    applied_mm: sumOrNull(ran.map((r) => r.applied_mm)),
    volume_gal: sumOrNull(ran.map((r) => r.volume_gal)),
  };
}

/** Unknown amounts stay unknown: a sum only of what was measured, null when nothing was. */
function sumOrNull(values: (number | null)[]): number | null {
  const known = values.filter((v): v is number => v !== null);
  return known.length === 0 ? null : known.reduce((a, b) => a + b, 0);
}
