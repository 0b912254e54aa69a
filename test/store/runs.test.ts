import { runRecord } from './run-record';
import { tempStore } from './temp-db';

const t = tempStore();

const run = runRecord;

describe('RunsRepository', () => {
  it('round-trips a record with every nullable field null', () => {
    const record = run();
    const id = t.store().runs.insert(record);
    expect(t.store().runs.listWindow(0, 2_000_000_000)).toEqual([{ id, ...record }]);
  });

  it('keeps measured zeros as numbers and every filled field intact', () => {
    const record = run({
      session_id: 'sess-1',
      skip_reason: null,
      source: 'manual:phone',
      status: 'completed',
      controller_id: 'opensprinkler',
      applied_mm: 0,
      volume_gal: 0,
      note: 'manual run',
      cycle_index: 0,
      cycle_count: 2,
      duration_s: 0,
    });
    const id = t.store().runs.insert(record);
    const [stored] = t.store().runs.listWindow(0, 2_000_000_000);
    expect(stored).toEqual({ id, ...record });
    expect(stored?.applied_mm).toBe(0);
    expect(stored?.volume_gal).toBe(0);
  });

  it('keeps the evidence and the metered mean flow, and learns a baseline from the newest metered runs', () => {
    const runs = t.store().runs;
    const flows = [7.9, 8.1, 8.0, 12.5];
    flows.forEach((flow, i) =>
      runs.insert(
        run({
          start_epoch: 1_700_000_000 + i * 86_400,
          status: 'completed',
          evidence: 'metered',
          mean_flow_gpm: flow,
        }),
      ),
    );
    runs.insert(
      run({ start_epoch: 1_700_500_000, status: 'aborted', evidence: 'metered', mean_flow_gpm: 99 }),
    );
    runs.insert(run({ start_epoch: 1_700_600_000, status: 'completed', evidence: 'observed' }));
    runs.insert(run({ zone: 'beds', start_epoch: 1_700_700_000, status: 'completed', mean_flow_gpm: 2 }));

    expect(runs.recentMeanFlows('front_lawn', 3)).toEqual([12.5, 8.0, 8.1]);
    expect(runs.listWindow(0, 2_000_000_000).map((r) => r.evidence)).toEqual([
      'metered',
      'metered',
      'metered',
      'metered',
      'metered',
      'observed',
      null,
    ]);
  });

  it('refuses an evidence value outside the three the ledger knows', () => {
    expect(() => t.store().runs.insert(run({ evidence: 'guessed' as never }))).toThrow(/CHECK/);
  });

  it('updates only the fields present in the patch, null included', () => {
    const id = t.store().runs.insert(run({ status: 'running', note: 'started', applied_mm: 1.5 }));
    expect(t.store().runs.update(id, { status: 'completed', duration_s: 600, applied_mm: null })).toBe(true);
    const [stored] = t.store().runs.listWindow(0, 2_000_000_000);
    expect(stored).toMatchObject({ status: 'completed', duration_s: 600, applied_mm: null, note: 'started' });
  });

  it('reports an update of a missing id', () => {
    expect(t.store().runs.update(999, { status: 'aborted' })).toBe(false);
  });

  it('rejects a status outside the spec set', () => {
    expect(() => t.store().runs.insert(run({ status: 'finished' as never }))).toThrow(/CHECK constraint/);
  });

  it('lists an inclusive window oldest first, optionally for one zone', () => {
    const runs = t.store().runs;
    runs.insert(run({ start_epoch: 300, zone: 'back' }));
    runs.insert(run({ start_epoch: 100 }));
    runs.insert(run({ start_epoch: 200 }));
    runs.insert(run({ start_epoch: 400 }));
    expect(runs.listWindow(100, 300).map((r) => r.start_epoch)).toEqual([100, 200, 300]);
    expect(runs.listWindow(100, 300, 'back').map((r) => r.zone)).toEqual(['back']);
    expect(runs.listWindow(0, 1_000)).toHaveLength(4);
  });

  it('prunes runs older than a cutoff', () => {
    t.store().runs.insert(run({ start_epoch: 100 }));
    t.store().runs.insert(run({ start_epoch: 200 }));
    expect(t.store().runs.deleteBefore(200)).toBe(1);
    expect(
      t
        .store()
        .runs.listWindow(0, 1_000)
        .map((r) => r.start_epoch),
    ).toEqual([200]);
  });
});
