import { silentLogger } from '../../server/src/core/logger';
import { closeDatabase, openDatabase } from '../../server/src/store/database';
import { MIGRATIONS, latestVersion } from '../../server/src/store/migrations';
import { RUN_CURSOR_START } from '../../server/src/store/runs';
import { Store } from '../../server/src/store/store';
import { runRecord } from './run-record';
import { tempDbPaths } from './temp-db';

/**
 * Migration 8 keeps each run's JSON record in `run_records` (triggers on
 * insert and update, a cascade on delete); the history bodies concatenate it.
 * The stored text must stay byte for byte what the live rendering gives (the
 * repository falls back to it for a run without a record), through inserts,
 * every kind of update, retention, and the migration of rows written before it.
 */

const paths = tempDbPaths();
const ALL: [number, number] = [0, 4_102_444_800];

const run = runRecord;

/** The whole ledger's runs as the history route sends them, read two rows a page. */
function body(store: Store): string {
  const parts: string[] = [];
  let after = RUN_CURSOR_START;
  for (;;) {
    const page = store.runs.windowJsonPage(ALL[0], ALL[1], after, 2);
    if (page.json.length > 0) parts.push(page.json.toString('utf8'));
    if (!page.next) break;
    after = page.next;
  }
  return `[${parts.join(',')}]`;
}

/** The same body rendered live: the stored records set aside, then put back. */
function liveBody(store: Store): string {
  const saved = store.db.prepare('SELECT id, json FROM run_records').all() as { id: number; json: string }[];
  store.db.exec('DELETE FROM run_records');
  const live = body(store);
  const restore = store.db.prepare('INSERT INTO run_records (id, json) VALUES (?, ?)');
  for (const row of saved) restore.run(row.id, row.json);
  return live;
}

function recordCount(store: Store): number {
  return store.db.prepare('SELECT count(*) FROM run_records').pluck().get() as number;
}

/** What the repository reads back, as the spec's run record (no internal id). */
function expectedRecords(store: Store): unknown[] {
  return store.runs.listWindow(...ALL).map(({ id: _id, ...record }) => ({
    ...record,
    evidence: record.evidence ?? null,
    mean_flow_gpm: record.mean_flow_gpm ?? null,
  }));
}

describe('the stored run records (migration 8)', () => {
  it('are written on insert and follow every update, byte for byte the live rendering', () => {
    const store = Store.open(paths.dbPath(), silentLogger());
    try {
      const a = store.runs.insert(
        run({ session_id: 'sched-2026-07-15-a', note: 'quote " and \\ and é and\nnewline' }),
      );
      const b = store.runs.insert(
        run({
          zone: 'back_bed',
          start_epoch: 1_700_000_600,
          status: 'completed',
          duration_s: 1_234,
          applied_mm: 3.14159265358979,
          volume_gal: 0,
          cycle_index: 1,
          cycle_count: 3,
          evidence: 'observed',
          mean_flow_gpm: 2.5,
          controller_id: 'os',
        }),
      );
      store.runs.insert(
        run({ start_epoch: 1_700_001_200, status: 'skipped', skip_reason: 'rain_3day: 0.3 in' }),
      );
      store.runs.update(a, { status: 'running', duration_s: 30 });
      store.runs.update(a, { status: 'aborted', duration_s: 41, note: null, applied_mm: 0.52 });
      store.runs.update(b, { volume_gal: 12.75, evidence: 'metered', mean_flow_gpm: null });

      expect(recordCount(store)).toBe(3);
      const stored = body(store);
      expect(JSON.parse(stored)).toEqual(expectedRecords(store));
      expect(JSON.parse(stored)[0]).toMatchObject({ status: 'aborted', duration_s: 41, note: null });
      expect(stored).toBe(liveBody(store));
    } finally {
      store.close();
    }
  });

  it('leave with their run (retention), and a run without one still renders', () => {
    const store = Store.open(paths.dbPath(), silentLogger());
    try {
      store.runs.insert(run({ start_epoch: 1_600_000_000 }));
      const kept = store.runs.insert(run({ start_epoch: 1_700_000_000, status: 'completed' }));
      expect(store.runs.deleteBefore(1_650_000_000)).toBe(1);
      expect(recordCount(store)).toBe(1);
      store.db.prepare('DELETE FROM run_records WHERE id = ?').run(kept);
      expect(JSON.parse(body(store))).toEqual(expectedRecords(store));
    } finally {
      store.close();
    }
  });

  it('are filled for rows written before the migration, and triggers keep them afterwards', () => {
    const file = paths.dbPath();
    const before = openDatabase(file, silentLogger(), { migrations: MIGRATIONS.slice(0, 7) });
    const insert = before.prepare(
      'INSERT INTO runs (session_id, zone, start_epoch, duration_s, source, status, applied_mm, note) ' +
        'VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    insert.run('s-1', 'front_lawn', 1_700_000_000, 600, 'ha_refresher', 'completed', 6.35, null);
    insert.run(null, 'front_lawn', 1_700_086_400, 0, 'smart_morning', 'skipped', null, 'held "wet"');
    closeDatabase(before);

    const store = Store.open(file, silentLogger());
    try {
      expect(store.schemaVersion).toBe(latestVersion());
      expect(recordCount(store)).toBe(2);
      store.runs.insert(run({ start_epoch: 1_700_172_800, status: 'completed', duration_s: 90 }));
      const stored = body(store);
      expect(JSON.parse(stored)).toEqual(expectedRecords(store));
      expect(JSON.parse(stored)[0]).toMatchObject({ session_id: 's-1', applied_mm: 6.35, evidence: null });
      expect(stored).toBe(liveBody(store));
    } finally {
      store.close();
    }
  });

  it('migration 9 keeps every run, its id and record, and lets a row say simulated; other kinds stay refused', () => {
    const file = paths.dbPath();
    const before = openDatabase(file, silentLogger(), { migrations: MIGRATIONS.slice(0, 8) });
    const insert = before.prepare(
      'INSERT INTO runs (session_id, zone, start_epoch, duration_s, source, status, applied_mm, evidence) ' +
        'VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    insert.run('s-1', 'front_lawn', 1_700_000_000, 600, 'ha_refresher', 'completed', 6.35, 'metered');
    insert.run('s-2', 'front_lawn', 1_700_086_400, 600, 'dry_run', 'completed', null, 'commanded');
    expect(() =>
      insert.run('s-3', 'front_lawn', 1_700_172_800, 600, 'dry_run', 'completed', null, 'simulated'),
    ).toThrow(/CHECK/);
    closeDatabase(before);

    const store = Store.open(file, silentLogger());
    try {
      expect(store.schemaVersion).toBe(latestVersion());
      const ids = store.db.prepare('SELECT id FROM runs ORDER BY id').pluck().all();
      expect(ids).toEqual([1, 2]);
      const id = store.runs.insert(
        run({ start_epoch: 1_700_172_800, source: 'dry_run', status: 'completed', evidence: 'simulated' }),
      );
      expect(id).toBe(3);
      store.runs.update(id, { duration_s: 420 });
      const stored = body(store);
      expect(JSON.parse(stored)).toEqual(expectedRecords(store));
      expect(JSON.parse(stored).map((r: { evidence: string }) => r.evidence)).toEqual([
        'metered',
        'commanded',
        'simulated',
      ]);
      expect(stored).toBe(liveBody(store));
      expect(() => store.db.prepare("UPDATE runs SET evidence = 'guessed' WHERE id = 1").run()).toThrow(
        /CHECK/,
      );
      const indexes = store.db
        .prepare(
          "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'runs' AND sql IS NOT NULL",
        )
        .pluck()
        .all();
      expect(new Set(indexes)).toEqual(
        new Set(['runs_by_start', 'runs_by_zone_start', 'runs_by_session', 'runs_open', 'runs_metered']),
      );
    } finally {
      store.close();
    }
  });
});
