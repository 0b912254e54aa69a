import type { RunRecord } from '../../../server/src/store/runs';
import type { DailyDecision } from '../../../server/src/store/decisions';

/** Records for the history tests, with every spec field set and overridable. */

export function runRecord(overrides: Partial<RunRecord> = {}): RunRecord {
  return {
    session_id: 'sess-1',
    zone: 'front_lawn',
    start_epoch: 1_750_000_000,
    duration_s: 600,
    skip_reason: null,
    source: 'ha_refresher',
    status: 'completed',
    controller_id: 'os1',
    applied_mm: 4.5,
    volume_gal: 31.2,
    note: null,
    cycle_index: 1,
    cycle_count: 2,
    evidence: 'observed',
    mean_flow_gpm: null,
    ...overrides,
  };
}

export function dailyDecision(overrides: Partial<DailyDecision> = {}): DailyDecision {
  return {
    date_local: '2025-06-15',
    epoch: 1_750_000_000,
    kind: 'water',
    zones: [
      {
        zone: 'front_lawn',
        name: 'Front lawn',
        reason_code: 'soil_due',
        reason: 'Depletion reached the trigger, "RAW".',
        water_need: 'due',
        planned_seconds: 600,
      },
    ],
    ...overrides,
  };
}
