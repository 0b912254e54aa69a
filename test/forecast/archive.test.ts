import {
  ARCHIVE_MAX_RANGE_S,
  FORECAST_QUERY_ERRORS,
  parseArchiveQuery,
  TRACK_UNKNOWN,
  trackUnknown,
  withArchiveCursor,
} from '../../server/src/forecast/archive-query';
import { ApiError } from '../../server/src/http/errors';
import {
  encodeCursor,
  InvalidCursorError,
  type ArchiveQuery,
  type ArchiveRow,
} from '../../server/src/store/forecast-archive';
import { tempStore } from '../store/temp-db';

const HOUR = 3600;
const DAY = 86_400;
const T0 = 1_750_000_000 - (1_750_000_000 % HOUR);
/** Target hours of the paged range. */
const TARGETS = 24;
const FROM = T0;
const TO = T0 + (TARGETS - 1) * HOUR;

const t = tempStore();

function row(track: string, target: number, lead: number, fetched: number, precip = 0.01): ArchiveRow {
  return {
    track,
    provider: 'open-meteo',
    model: track === 'merged' ? null : track,
    target_epoch: target,
    lead_h: lead,
    pop_pct: 10,
    precip_in: precip,
    fetched_at: fetched,
  };
}

/** Hourly fetches predicting leads 1..4 for every target of the range (and one hour either side). */
function initialRows(track: string): ArchiveRow[] {
  const out: ArchiveRow[] = [];
  for (let target = FROM - HOUR; target <= TO + HOUR; target += HOUR) {
    for (let lead = 1; lead <= 4; lead += 1) out.push(row(track, target, lead, target - lead * HOUR));
  }
  return out;
}

type Key = [number, number, number];
const keyOf = (r: ArchiveRow): Key => [r.target_epoch, r.lead_h, r.fetched_at];
const idOf = (r: ArchiveRow): string => keyOf(r).join('/');

/** Page order: (target, lead, fetched), or (target, fetched) with lead_h fixed. */
function after(a: ArchiveRow, cursorRow: ArchiveRow, byLead: boolean): boolean {
  const ka = byLead ? [a.target_epoch, a.fetched_at] : keyOf(a);
  const kc = byLead ? [cursorRow.target_epoch, cursorRow.fetched_at] : keyOf(cursorRow);
  for (let i = 0; i < ka.length; i += 1) {
    if ((ka[i] as number) !== (kc[i] as number)) return (ka[i] as number) > (kc[i] as number);
  }
  return false;
}

/**
 * What lands between page `k` and the next while paging: later fetches for a target
 * already paged and for the cursor's own target (either side of the cursor's lead),
 * fetches for targets not paged yet, a retry rewriting a row not paged yet, and rows
 * the query must never return (other track, outside the range).
 */
function concurrentRows(k: number, cursorRow: ArchiveRow): ArchiveRow[] {
  const later = 60 * (k + 1);
  const tc = cursorRow.target_epoch;
  const out: ArchiveRow[] = [];
  if (tc - HOUR >= FROM)
    out.push(
      row('merged', tc - HOUR, 0, tc - HOUR + later),
      row('merged', tc - HOUR, 2, tc - 3 * HOUR + later),
    );
  out.push(
    row('merged', tc, 0, tc + later),
    row('merged', tc, 2, tc - 2 * HOUR + later),
    row('merged', tc, 9, tc - 9 * HOUR + later),
  );
  for (const ahead of [2, 5]) {
    const target = tc + ahead * HOUR;
    if (target <= TO)
      out.push(row('merged', target, 0, target + later), row('merged', target, 2, target - 2 * HOUR + later));
  }
  const retryTarget = tc + 3 * HOUR;
  if (retryTarget <= TO) out.push(row('merged', retryTarget, 2, retryTarget - 2 * HOUR, 0.5 + k));
  out.push(row('gfs', tc + HOUR, 2, tc - HOUR + later), row('merged', TO + HOUR, 2, TO - HOUR + later));
  return out;
}

describe('archive paging while rows are archived between pages', () => {
  it.each([
    ['by target range', undefined],
    ['by lead hour', 2],
  ])('%s: every row present at the start once, new rows after the cursor once', (_label, lead) => {
    const archive = t.store().forecastArchive;
    archive.insertMany([...initialRows('merged'), ...initialRows('gfs')]);
    const byLead = lead !== undefined;
    const query: ArchiveQuery = {
      track: 'merged',
      from: FROM,
      to: TO,
      limit: 7,
      ...(byLead ? { lead_h: lead } : {}),
    };
    const matches = (r: ArchiveRow) =>
      r.track === 'merged' &&
      r.target_epoch >= FROM &&
      r.target_epoch <= TO &&
      (!byLead || r.lead_h === lead);

    const atStart = initialRows('merged').filter(matches);
    const expected = new Map(atStart.map((r) => [idOf(r), r]));
    const behind = new Set<string>();
    const seen: ArchiveRow[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = archive.page({ ...query, cursor });
      seen.push(...page.rows);
      cursor = page.next_cursor;
      pages += 1;
      const last = page.rows.at(-1);
      if (cursor === null || !last) break;
      const fresh = concurrentRows(pages, last);
      archive.insertMany(fresh);
      for (const r of fresh.filter(matches)) {
        // A retry rewrites a row not yet paged: it still comes once, with the new values.
        if (after(r, last, byLead)) expected.set(idOf(r), r);
        else if (!expected.has(idOf(r))) behind.add(idOf(r));
      }
    } while (pages < 1000);

    const ids = seen.map(idOf);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual([...expected.keys()].sort());
    for (const r of atStart) expect(ids).toContain(idOf(r));
    for (const id of behind) expect(ids).not.toContain(id);
    expect(seen.every(matches)).toBe(true);
    for (const r of seen) expect(r).toEqual(expected.get(idOf(r)));
    // The scenario exercised what it claims: rows landed on both sides of the cursor, and retries.
    expect(behind.size).toBeGreaterThan(0);
    expect(expected.size).toBeGreaterThan(atStart.length);
    expect(seen.some((r) => (r.precip_in ?? 0) >= 0.5)).toBe(true);
    expect(pages).toBeGreaterThan(3);
  });

  it('continues from the cursor when only the limit changes between pages', () => {
    const archive = t.store().forecastArchive;
    archive.insertMany(initialRows('merged'));
    const query = { track: 'merged', from: FROM, to: TO };
    const all = archive.page({ ...query, limit: 5000 }).rows;
    const first = archive.page({ ...query, limit: 10 });
    const second = archive.page({ ...query, limit: 25, cursor: first.next_cursor });
    expect([...first.rows, ...second.rows]).toEqual(all.slice(0, 35));
  });
});

describe('archive retention', () => {
  it('removes the rows before the cutoff from every track, and nothing else', () => {
    const archive = t.store().forecastArchive;
    expect(archive.deleteTargetsBefore(TO)).toBe(0);
    const tracks = ['merged', 'gfs', 'gfs_seamless', 'icon'];
    archive.insertMany(tracks.flatMap(initialRows));
    const cutoff = FROM + 5 * HOUR;
    // Targets FROM - 1 h .. FROM + 4 h: 6 target hours x 4 leads per track.
    expect(archive.deleteTargetsBefore(cutoff)).toBe(tracks.length * 6 * 4);
    for (const track of tracks) {
      const left = archive.page({ track, from: 0, to: TO + HOUR, limit: 5000 }).rows;
      expect(left).toHaveLength(initialRows(track).length - 6 * 4);
      expect(left[0]?.target_epoch).toBe(cutoff);
    }
  });
});

describe('archive cursor scope', () => {
  const base: ArchiveQuery = { track: 'merged', from: FROM, to: TO, limit: 5 };

  function firstCursor(query: ArchiveQuery): string {
    const archive = t.store().forecastArchive;
    archive.insertMany([...initialRows('merged'), ...initialRows('gfs')]);
    const cursor = archive.page(query).next_cursor;
    expect(cursor).not.toBeNull();
    return cursor as string;
  }

  it.each<[string, Partial<ArchiveQuery>]>([
    ['another track', { track: 'gfs' }],
    ['a later from', { from: FROM + HOUR }],
    ['an earlier to', { to: TO - HOUR }],
    ['a lead hour', { lead_h: 1 }],
  ])('refuses a cursor of the unfiltered query reused with %s', (_label, change) => {
    const cursor = firstCursor(base);
    expect(() => t.store().forecastArchive.page({ ...base, ...change, cursor })).toThrow(InvalidCursorError);
  });

  it('refuses a by-lead cursor without the lead or with another lead', () => {
    const cursor = firstCursor({ ...base, lead_h: 1 });
    const archive = t.store().forecastArchive;
    expect(() => archive.page({ ...base, cursor })).toThrow(InvalidCursorError);
    expect(() => archive.page({ ...base, lead_h: 2, cursor })).toThrow(InvalidCursorError);
    expect(archive.page({ ...base, lead_h: 1, cursor }).rows[0]?.lead_h).toBe(1);
  });

  it('refuses a well-formed cursor that no query issued', () => {
    firstCursor(base);
    const cursor = encodeCursor([FROM, 1, FROM - HOUR]);
    expect(() => t.store().forecastArchive.page({ ...base, cursor })).toThrow(InvalidCursorError);
  });

  it('maps the refusal to 400 archive_cursor_invalid, in the validator and around the store', () => {
    const cursor = firstCursor(base);
    const query = { from: String(FROM), to: String(TO), limit: '5' };
    expect(parseArchiveQuery({ ...query, cursor })).toEqual({ ...base, cursor });
    expect(codeOf(() => parseArchiveQuery({ ...query, track: 'gfs', cursor }))).toBe(
      'archive_cursor_invalid',
    );
    expect(codeOf(() => parseArchiveQuery({ ...query, lead_h: '0', cursor }))).toBe('archive_cursor_invalid');
    const archive = t.store().forecastArchive;
    expect(codeOf(() => withArchiveCursor(() => archive.page({ ...base, track: 'gfs', cursor })))).toBe(
      'archive_cursor_invalid',
    );
    const other = new RangeError('limit must be >= 1');
    expect(() =>
      withArchiveCursor(() => {
        throw other;
      }),
    ).toThrow(other);
    expect(withArchiveCursor(() => archive.page({ ...base, cursor })).rows).toHaveLength(5);
  });
});

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(400);
    return (err as ApiError).code;
  }
  throw new Error('expected an ApiError');
}

describe('parseArchiveQuery', () => {
  const from = String(FROM);
  const to = String(TO);

  it('defaults track, limit, lead and cursor', () => {
    expect(parseArchiveQuery({ from, to })).toEqual({
      track: 'merged',
      from: FROM,
      to: TO,
      limit: 1000,
      cursor: null,
    });
    expect(parseArchiveQuery({ from, to, limit: '', lead_h: ' ', cursor: '' })).toEqual({
      track: 'merged',
      from: FROM,
      to: TO,
      limit: 1000,
      cursor: null,
    });
  });

  it('parses every parameter at its limits', () => {
    expect(
      parseArchiveQuery({
        track: 'gfs',
        from: '0',
        to: String(ARCHIVE_MAX_RANGE_S),
        lead_h: '47',
        limit: '5000',
      }),
    ).toEqual({
      track: 'gfs',
      from: 0,
      to: 400 * DAY,
      lead_h: 47,
      limit: 5000,
      cursor: null,
    });
    expect(parseArchiveQuery({ from, to: from, lead_h: '0', limit: '1' })).toMatchObject({
      lead_h: 0,
      limit: 1,
    });
    // The target range need not be hour-aligned: it only bounds target hours.
    expect(parseArchiveQuery({ from: String(FROM + 1), to: String(TO - 1) })).toMatchObject({
      from: FROM + 1,
      to: TO - 1,
    });
  });

  const unscoped = encodeCursor([FROM, 1, FROM - HOUR]);
  it.each([
    ['archive_from_missing', { to }],
    ['archive_from_missing', { from: '', to }],
    ['archive_to_missing', { from }],
    ['archive_bound_invalid', { from: '-1', to }],
    ['archive_bound_invalid', { from, to: '1.5' }],
    ['archive_bound_invalid', { from, to: 'now' }],
    ['archive_bound_invalid', { from: [from, from], to }],
    ['archive_inverted', { from: to, to: from }],
    ['archive_range_too_long', { from: '0', to: String(ARCHIVE_MAX_RANGE_S + 1) }],
    ['archive_lead_invalid', { from, to, lead_h: '48' }],
    ['archive_lead_invalid', { from, to, lead_h: '-1' }],
    ['archive_lead_invalid', { from, to, lead_h: '2.5' }],
    ['archive_lead_invalid', { from, to, lead_h: 'one' }],
    ['archive_lead_invalid', { from, to, lead_h: ['1', '2'] }],
    ['archive_limit_invalid', { from, to, limit: '0' }],
    ['archive_limit_invalid', { from, to, limit: '5001' }],
    ['archive_limit_invalid', { from, to, limit: '10.5' }],
    ['archive_limit_invalid', { from, to, limit: 'all' }],
    ['archive_cursor_invalid', { from, to, cursor: 'not-a-cursor' }],
    ['archive_cursor_invalid', { from, to, cursor: 'x'.repeat(1000) }],
    ['archive_cursor_invalid', { from, to, cursor: [unscoped, unscoped] }],
    ['archive_cursor_invalid', { from, to, cursor: unscoped }],
    ['track_unknown', { from, to, track: ['merged', 'merged'] }],
  ])('answers 400 %s (case %#)', (code, query) => {
    expect(codeOf(() => parseArchiveQuery(query))).toBe(code);
  });

  it('documents every code it can answer, and the route helper answers track_unknown', () => {
    expect(Object.keys(FORECAST_QUERY_ERRORS).sort()).toEqual(
      [
        'window_from_missing',
        'window_to_missing',
        'window_bound_invalid',
        'window_not_hour_start',
        'window_inverted',
        'window_too_long',
        'archive_from_missing',
        'archive_to_missing',
        'archive_bound_invalid',
        'archive_inverted',
        'archive_range_too_long',
        'archive_lead_invalid',
        'archive_limit_invalid',
        'archive_cursor_invalid',
        'track_unknown',
      ].sort(),
    );
    for (const meaning of Object.values(FORECAST_QUERY_ERRORS)) expect(meaning.length).toBeGreaterThan(10);
    expect(
      codeOf(() => {
        throw trackUnknown('ecmwf');
      }),
    ).toBe(TRACK_UNKNOWN);
  });
});
