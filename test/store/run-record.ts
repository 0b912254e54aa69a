import type { RunRecord } from '../../server/src/store/runs';

/** A run row for store tests: every nullable field null unless `overrides` sets it. */
export function runRecord(overrides: Partial<RunRecord> = {}): RunRecord {
  return {
    session_id: null,
    zone: 'front_lawn',
    start_epoch: 1_700_000_000,
    duration_s: 0,
    skip_reason: null,
    source: 'ha_refresher',
    status: 'intended',
    controller_id: null,
    applied_mm: null,
    volume_gal: null,
    note: null,
    cycle_index: null,
    cycle_count: null,
    evidence: null,
    mean_flow_gpm: null,
    ...overrides,
  };
}
