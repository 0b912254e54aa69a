import { Readable } from 'node:stream';
import { exportCsvChunks } from '../../../server/src/irrigation/history/csv-export';
import {
  decisionsChunks,
  exportJsonChunks,
  historyWindowChunks,
} from '../../../server/src/irrigation/history/json-bodies';
import { bodyFromChunks } from '../../../server/src/irrigation/history/text-stream';
import { tempStore } from '../../store/temp-db';
import { dailyDecision, runRecord } from './fixtures';

/**
 * The page-by-page bodies over a real SQLite file: keyset pages neither drop
 * nor repeat rows (ties on start_epoch across a page boundary included), the
 * csv merges runs and verdict changes in time order, the connection stays
 * usable between chunks, and big bodies come back as a stream.
 */

const db = tempStore();
const T0 = 1_750_000_000;

function insertRuns(count: number, startOf: (i: number) => number): void {
  const store = db.store();
  store.transaction(() => {
    for (let i = 0; i < count; i += 1) {
      store.runs.insert(runRecord({ start_epoch: startOf(i), zone: `zone_${i % 16}`, session_id: `s${i}` }));
    }
  });
}

const all = { from_epoch: 0, to_epoch: T0 * 2 };

describe('history window JSON', () => {
  it('returns every run once, oldest first, across pages that split equal start times', () => {
    // 25 rows, 5 per start second: pages of 3 cut through every group of ties.
    insertRuns(25, (i) => T0 + Math.floor(i / 5));
    const chunks = [...historyWindowChunks(db.store(), all, 3)];
    const body = JSON.parse(chunks.join(''));
    expect(body.runs.map((r: { session_id: string }) => r.session_id)).toEqual(
      Array.from({ length: 25 }, (_, i) => `s${i}`),
    );
    expect(chunks.length).toBeGreaterThan(9);
  });

  it('orders by start time then insertion, not by insertion alone, within and across pages', () => {
    // Inserted newest first, with ties: ids run against start times.
    const starts = [50, 40, 40, 30, 20, 20, 20, 10, 0];
    starts.forEach((offset, i) =>
      db.store().runs.insert(runRecord({ start_epoch: T0 + offset, session_id: `i${i}` })),
    );
    for (const pageRows of [4, 100]) {
      const body = JSON.parse([...historyWindowChunks(db.store(), all, pageRows)].join(''));
      expect(body.runs.map((r: { session_id: string }) => r.session_id)).toEqual([
        'i8',
        'i7',
        'i4',
        'i5',
        'i6',
        'i3',
        'i1',
        'i2',
        'i0',
      ]);
    }
  });

  it('serves Run records with every spec field and no internal id, numbers as numbers', () => {
    db.store().runs.insert(runRecord({ start_epoch: T0, applied_mm: 3, note: 'line1\n"q"' }));
    const body = JSON.parse([...historyWindowChunks(db.store(), all)].join(''));
    expect(body).toEqual({
      from_epoch: 0,
      to_epoch: T0 * 2,
      runs: [runRecord({ start_epoch: T0, applied_mm: 3, note: 'line1\n"q"' })],
      daily: [],
    });
    expect(Object.keys(body.runs[0])).not.toContain('id');
  });

  it('keeps to the window bounds, inclusive', () => {
    insertRuns(10, (i) => T0 + i * 100);
    const body = JSON.parse(
      [...historyWindowChunks(db.store(), { from_epoch: T0 + 200, to_epoch: T0 + 500 })].join(''),
    );
    expect(body.runs.map((r: { start_epoch: number }) => r.start_epoch)).toEqual([
      T0 + 200,
      T0 + 300,
      T0 + 400,
      T0 + 500,
    ]);
  });

  it('serves daily decisions as stored, in epoch order', () => {
    const store = db.store();
    store.decisions.upsertDaily(dailyDecision({ date_local: '2025-06-17', epoch: T0 + 2 * 86_400 }));
    store.decisions.upsertDaily(dailyDecision({ date_local: '2025-06-16', epoch: T0 + 86_400 }));
    store.decisions.upsertDaily(dailyDecision({ date_local: '2025-06-15', epoch: T0, kind: 'skip' }));
    for (const pageRows of [1, 2, 100]) {
      const body = JSON.parse([...historyWindowChunks(store, all, pageRows)].join(''));
      expect(body.daily).toEqual([
        dailyDecision({ date_local: '2025-06-15', epoch: T0, kind: 'skip' }),
        dailyDecision({ date_local: '2025-06-16', epoch: T0 + 86_400 }),
        dailyDecision({ date_local: '2025-06-17', epoch: T0 + 2 * 86_400 }),
      ]);
    }
  });
});

describe('decisions and the json export', () => {
  it('lists verdict transitions without their storage id', () => {
    const store = db.store();
    store.decisions.insertTransition({
      epoch: T0,
      verdict: 'water',
      previous_verdict: null,
      reason: { reason_code: 'soil_due' },
    });
    store.decisions.insertTransition({
      epoch: T0 + 60,
      verdict: 'skip',
      previous_verdict: 'water',
      reason: { reason_code: 'rain_now' },
    });
    const body = JSON.parse([...decisionsChunks(store, { from_epoch: T0 + 1, to_epoch: T0 * 2 })].join(''));
    expect(body).toEqual({
      from_epoch: T0 + 1,
      to_epoch: T0 * 2,
      decisions: [
        { epoch: T0 + 60, verdict: 'skip', previous_verdict: 'water', reason: { reason_code: 'rain_now' } },
      ],
    });
  });

  it('exports {from_epoch, to_epoch, runs, decisions}', () => {
    const store = db.store();
    insertRuns(3, (i) => T0 + i);
    store.decisions.insertTransition({ epoch: T0, verdict: 'hold', previous_verdict: null, reason: {} });
    const body = JSON.parse([...exportJsonChunks(store, all, 2)].join(''));
    expect(Object.keys(body)).toEqual(['from_epoch', 'to_epoch', 'runs', 'decisions']);
    expect(body.runs).toHaveLength(3);
    expect(body.decisions).toEqual([{ epoch: T0, verdict: 'hold', previous_verdict: null, reason: {} }]);
  });
});

describe('csv export', () => {
  it('merges runs and verdict changes in time order, a change first on a tie', () => {
    const store = db.store();
    insertRuns(4, (i) => T0 + i * 10);
    store.decisions.insertTransition({
      epoch: T0 + 10,
      verdict: 'skip',
      previous_verdict: 'water',
      reason: { reason_code: 'rain_3day' },
    });
    store.decisions.insertTransition({
      epoch: T0 + 35,
      verdict: 'water',
      previous_verdict: 'skip',
      reason: { reason_code: 'soil_due' },
    });
    const text = [...exportCsvChunks(store, all, 2)].join('');
    expect(text.endsWith('\r\n')).toBe(true);
    const lines = text.split('\r\n').slice(0, -1);
    expect(lines.map((l) => l.split(',').slice(0, 3).join(','))).toEqual([
      'timestamp_utc,zone,event',
      '2025-06-15T15:06:40Z,zone_0,completed',
      '2025-06-15T15:06:50Z,,verdict:skip',
      '2025-06-15T15:06:50Z,zone_1,completed',
      '2025-06-15T15:07:00Z,zone_2,completed',
      '2025-06-15T15:07:10Z,zone_3,completed',
      '2025-06-15T15:07:15Z,,verdict:water',
    ]);
  });

  it('yields chunks of at most one page and lets the engine write between them', () => {
    insertRuns(50, (i) => T0 + i);
    const store = db.store();
    const chunks = exportCsvChunks(store, all, 10);
    const first = chunks.next();
    expect(first.done).toBe(false);
    // The service's other writers share this connection: it must not be left busy mid-export.
    expect(() => store.runs.insert(runRecord({ start_epoch: T0 + 1000 }))).not.toThrow();
    const rest = [...chunks];
    const perChunk = [first.value as string, ...rest].map((c) => c.split('\r\n').length - 1);
    expect(Math.max(...perChunk)).toBeLessThanOrEqual(10);
    expect(perChunk.reduce((a, b) => a + b, 0)).toBe(1 + 51);
  });
});

describe('bodyFromChunks', () => {
  it('returns a small body whole and a large one as a readable stream', async () => {
    insertRuns(2, (i) => T0 + i);
    const small = bodyFromChunks(exportCsvChunks(db.store(), all));
    expect(small.kind).toBe('whole');

    insertRuns(3000, (i) => T0 + 10 + i);
    const large = bodyFromChunks(exportCsvChunks(db.store(), all, 500));
    expect(large.kind).toBe('stream');
    const stream = (large as { stream: Readable }).stream;
    let text = '';
    let reads = 0;
    for await (const chunk of stream) {
      text += String(chunk);
      reads += 1;
    }
    expect(reads).toBeGreaterThan(1);
    expect(text.split('\r\n')).toHaveLength(1 + 3002 + 1);
  });
});
