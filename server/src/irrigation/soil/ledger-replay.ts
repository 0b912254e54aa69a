import type { SoilLedgerRow } from '../../store/soil-ledger';
import type { CompleteZone } from '../engine/zone-inputs';
import { ledgerDay, type LedgerDayInput, type LedgerSettings, type SoilState } from './ledger-day';

/**
 * Replays consecutive days of one zone from a start state (pure). Replaying
 * the same evidence from the same start gives the same rows, byte for byte:
 * a revision recomputes from the earliest changed day and never adds water
 * twice, because nothing is added: each row is computed from its inputs.
 */
export function replayLedger(
  zone: CompleteZone,
  start: SoilState,
  days: readonly LedgerDayInput[],
  settings: LedgerSettings,
): { rows: SoilLedgerRow[]; end: SoilState } {
  const rows: SoilLedgerRow[] = [];
  let state = start;
  for (const day of days) {
    const next = ledgerDay(zone, state, day, settings);
    rows.push(next.row);
    state = next.state;
  }
  return { rows, end: state };
}
