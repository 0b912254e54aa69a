import {
  decodeCursor,
  encodeCursor,
  InvalidCursorError,
  type ArchiveRow,
} from '../../server/src/store/forecast-archive';
import { tempStore } from './temp-db';

const t = tempStore();
const HOUR = 3600;
const T0 = 1_750_000_000 - (1_750_000_000 % HOUR);

/** Hourly fetches over `hours` target hours, each predicting leads 0..2. */
function rows(track: string, hours: number): ArchiveRow[] {
  const out: ArchiveRow[] = [];
  for (let h = 0; h < hours; h += 1) {
    for (let lead = 0; lead < 3; lead += 1) {
      const target = T0 + h * HOUR;
      out.push({
        track,
        provider: 'open-meteo',
        model: track === 'merged' ? null : track,
        target_epoch: target,
        lead_h: lead,
        pop_pct: h % 2 === 0 ? 0 : null,
        precip_in: h % 2 === 0 ? 0 : null,
        fetched_at: target - lead * HOUR,
      });
    }
  }
  return out;
}

function key(r: ArchiveRow): string {
  return `${r.target_epoch}/${r.lead_h}/${r.fetched_at}`;
}

describe('ForecastArchiveRepository', () => {
  it('round-trips rows, keeping measured zeros and nulls apart', () => {
    const archive = t.store().forecastArchive;
    const input = rows('merged', 2);
    archive.insertMany(input);
    const page = archive.page({ track: 'merged', from: T0, to: T0 + HOUR, limit: 100 });
    expect(page).toEqual({ rows: input, next_cursor: null });
    expect(page.rows[0]).toMatchObject({ pop_pct: 0, precip_in: 0, model: null });
    expect(page.rows[3]).toMatchObject({ pop_pct: null, precip_in: null });
  });

  it('pages through more rows than the limit with the cursor, without gaps or repeats', () => {
    const archive = t.store().forecastArchive;
    archive.insertMany([...rows('merged', 40), ...rows('gfs', 40)]);
    const query = { track: 'merged', from: T0, to: T0 + 39 * HOUR, limit: 25 };
    const seen: ArchiveRow[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = archive.page({ ...query, cursor });
      expect(page.rows.length).toBeLessThanOrEqual(25);
      seen.push(...page.rows);
      cursor = page.next_cursor;
      pages += 1;
    } while (cursor !== null);
    expect(pages).toBe(Math.ceil(120 / 25));
    expect(seen.map(key)).toEqual(rows('merged', 40).map(key));
  });

  it('gives no trailing empty page when the rows fill the last page exactly', () => {
    const archive = t.store().forecastArchive;
    archive.insertMany(rows('merged', 10));
    const first = archive.page({ track: 'merged', from: T0, to: T0 + 9 * HOUR, limit: 15 });
    expect(first.next_cursor).not.toBeNull();
    const second = archive.page({
      track: 'merged',
      from: T0,
      to: T0 + 9 * HOUR,
      limit: 15,
      cursor: first.next_cursor,
    });
    expect(second.rows).toHaveLength(15);
    expect(second.next_cursor).toBeNull();
  });

  it('filters by lead hour and pages within that lead', () => {
    const archive = t.store().forecastArchive;
    archive.insertMany(rows('merged', 30));
    const query = { track: 'merged', from: T0, to: T0 + 29 * HOUR, lead_h: 1, limit: 7 };
    const seen: ArchiveRow[] = [];
    let cursor: string | null = null;
    do {
      const page = archive.page({ ...query, cursor });
      seen.push(...page.rows);
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(seen).toHaveLength(30);
    expect(seen.every((r) => r.lead_h === 1)).toBe(true);
    expect(seen.map((r) => r.target_epoch)).toEqual([...Array(30).keys()].map((h) => T0 + h * HOUR));
  });

  it('treats re-archiving the same fetch as a retry', () => {
    const archive = t.store().forecastArchive;
    const [row] = rows('merged', 1) as [ArchiveRow];
    archive.insertMany([row]);
    archive.insertMany([{ ...row, precip_in: 0.2 }]);
    const page = archive.page({ track: 'merged', from: T0, to: T0, lead_h: 0, limit: 10 });
    expect(page.rows).toEqual([{ ...row, precip_in: 0.2 }]);
  });

  it('rejects a cursor it did not issue', () => {
    const archive = t.store().forecastArchive;
    const query = { track: 'merged', from: T0, to: T0, limit: 10 };
    for (const cursor of ['not-base64-json', encodeCursor([1, 2, 3]).slice(2), 'WzIsMSwyLDNd']) {
      expect(() => archive.page({ ...query, cursor })).toThrow(InvalidCursorError);
    }
  });

  it('round-trips a cursor as opaque base64url', () => {
    const cursor = encodeCursor([T0, 5, T0 - 5 * HOUR]);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor)).toEqual([T0, 5, T0 - 5 * HOUR]);
  });

  it('deletes rows whose target hour is before the cutoff', () => {
    const archive = t.store().forecastArchive;
    archive.insertMany(rows('merged', 3));
    expect(archive.deleteTargetsBefore(T0 + HOUR)).toBe(3);
  });
});
