import request from 'supertest';
import { ManualClock } from '../../../server/src/core/clock';
import { serviceTracker, type BootedService } from '../../helpers/service';
import {
  configDocument,
  configToml,
  DEFAULT_HOURLY,
  HOUR,
  localEpoch,
  MODEL_HOURLY,
  startPeers,
  until,
  type NwsPeer,
  type OpenMeteoPeer,
} from './peers';

/**
 * GET /forecast/window and /forecast/archive (spec 4.3, limits spec 8) on the
 * booted service, its forecast fetched from loopback Open-Meteo and NWS peers:
 * valid answers with their coverage counts and paging, and every 400 code.
 */

const services = serviceTracker();
const T0 = localEpoch('2026-07-15T12:20:00');
const W = T0 - (T0 % HOUR);
const DAY = 86_400;
/** The provider has no temperature for this hour, and no amount for the next. */
const NO_TEMP = W + 5 * HOUR;
const NO_PRECIP = W + 7 * HOUR;

const WINDOW_KEYS = [
  'track',
  'model',
  'provider_label',
  'fetched_at',
  'age_s',
  'from',
  'to',
  'complete',
  'hourly',
  'hours',
  'expected_hours',
  'precipitation_hours',
  'probability_hours',
  'temperature_hours',
  'precip_max_in',
  'precip_sum_in',
  'temp_max_f',
  'temp_min_f',
  'pop_max_pct',
];
const ARCHIVE_ROW_KEYS = [
  'track',
  'provider',
  'model',
  'target_epoch',
  'lead_h',
  'pop_pct',
  'precip_in',
  'fetched_at',
];

let peers: { om: OpenMeteoPeer; nws: NwsPeer } | null = null;
afterEach(async () => {
  await peers?.om.peer.close();
  await peers?.nws.peer.close();
  peers = null;
});

/** The service with its first refresh done (merged and the gfs_seamless track). */
async function boot(): Promise<{
  booted: BootedService;
  clock: ManualClock;
  get: (path: string, query?: object) => request.Test;
}> {
  const clock = new ManualClock(T0 * 1000);
  const temperature = DEFAULT_HOURLY.temperature_2m;
  const precipitation = DEFAULT_HOURLY.precipitation;
  peers = await startPeers(clock, {
    openMeteo: {
      hourly: {
        temperature_2m: (t) => (t === NO_TEMP ? null : (temperature?.(t) ?? null)),
        // Amounts are stated at the end of their hour.
        precipitation: (t) => (t === NO_PRECIP + HOUR ? null : (precipitation?.(t) ?? null)),
      },
      models: { gfs_seamless: MODEL_HOURLY },
    },
  });
  const booted = await services.boot({
    configToml: configToml(
      configDocument(peers.om.baseUrl, peers.nws.baseUrl, { timeoutS: 5, extraModels: ['gfs_seamless'] }),
    ),
    serviceOptions: { clock },
  });
  const get = (path: string, query: object = {}) => request(booted.service.server).get(path).query(query);
  await until(async () => {
    const res = await get('/api/v1/forecast/tracks');
    return res.body.length === 2 && res.body.every((t: { fetched_at: number | null }) => t.fetched_at === T0)
      ? true
      : null;
  });
  return { booted, clock, get };
}

describe('GET /forecast/window', () => {
  it('answers a 48-hour window of the merged track with its coverage counts', async () => {
    const { get, clock } = await boot();
    clock.advance(600 * 1000);
    const res = await get('/api/v1/forecast/window', { from: W, to: W + 48 * HOUR }).expect(200);
    const w = res.body;
    expect(Object.keys(w).sort()).toEqual([...WINDOW_KEYS].sort());
    expect(w).toMatchObject({
      track: 'merged',
      model: null,
      provider_label: 'Open-Meteo forecast',
      fetched_at: T0,
      age_s: 600,
      from: W,
      to: W + 48 * HOUR,
      // Every hour start has an entry...
      complete: true,
      hours: 49,
      expected_hours: 49,
      // ...but not every value exists.
      temperature_hours: 48,
      precipitation_hours: 48,
      probability_hours: 49,
      precip_sum_in: null,
    });
    expect(w.hourly).toHaveLength(49);
    for (const hour of w.hourly) {
      expect(Object.keys(hour).sort()).toEqual(['precip_in', 'precip_probability', 'temp_f', 'time_epoch']);
    }
    expect(w.hourly.map((e: { time_epoch: number }) => e.time_epoch)).toEqual(
      [...Array(49).keys()].map((i) => W + i * HOUR),
    );
    expect(w.hourly[5]).toMatchObject({ time_epoch: NO_TEMP, temp_f: null, precip_in: expect.any(Number) });
    expect(w.hourly[7]).toMatchObject({ time_epoch: NO_PRECIP, precip_in: null, temp_f: expect.any(Number) });
    expect(w.precip_max_in).toBe(0.03);
    expect(w.temp_max_f).toEqual(expect.any(Number));
    expect(w.temp_min_f).toEqual(expect.any(Number));
    expect(w.pop_max_pct).toBe(90);

    // Without the gap the amounts add up; they are the snapshot's hours.
    const gapless = await get('/api/v1/forecast/window', { from: W + 8 * HOUR, to: W + 20 * HOUR }).expect(
      200,
    );
    const snapshot = await get('/api/v1/forecast/snapshot').expect(200);
    const expected = snapshot.body.hourly
      .filter((e: { time_epoch: number }) => e.time_epoch >= W + 8 * HOUR && e.time_epoch <= W + 20 * HOUR)
      .reduce((sum: number, e: { precip_in: number }) => sum + e.precip_in, 0);
    expect(gapless.body).toMatchObject({ hours: 13, precipitation_hours: 13, complete: true });
    expect(gapless.body.precip_sum_in).toBeCloseTo(expected, 3);

    // The legacy prefix answers the same.
    const legacy = await get('/api/forecast/window', { from: W, to: W + 48 * HOUR }).expect(200);
    expect(legacy.body).toEqual(w);
  });

  it('answers an extra model track, and a window the forecast does not reach as empty, not dry', async () => {
    const { get } = await boot();
    const gfs = await get('/api/v1/forecast/window', {
      track: 'gfs_seamless',
      from: W,
      to: W + 3 * HOUR,
    }).expect(200);
    expect(gfs.body).toMatchObject({
      track: 'gfs_seamless',
      model: 'gfs_seamless',
      provider_label: 'Open-Meteo gfs_seamless',
      fetched_at: T0,
      hours: 4,
      precip_sum_in: 0.2,
      pop_max_pct: 90,
    });

    const beyond = W + 20 * DAY;
    const empty = await get('/api/v1/forecast/window', { from: beyond, to: beyond + 48 * HOUR }).expect(200);
    expect(empty.body).toMatchObject({
      complete: false,
      hourly: [],
      hours: 0,
      expected_hours: 49,
      precipitation_hours: 0,
      probability_hours: 0,
      temperature_hours: 0,
      precip_max_in: null,
      precip_sum_in: null,
      temp_max_f: null,
      temp_min_f: null,
      pop_max_pct: null,
    });
  });

  it('answers 400 with a stable code for every invalid query', async () => {
    const { get, booted } = await boot();
    const cases: [Record<string, unknown>, string][] = [
      [{ to: W }, 'window_from_missing'],
      [{ from: '', to: W }, 'window_from_missing'],
      [{ from: W }, 'window_to_missing'],
      [{ from: W, to: '  ' }, 'window_to_missing'],
      [{ from: -HOUR, to: W }, 'window_bound_invalid'],
      [{ from: W, to: -HOUR }, 'window_bound_invalid'],
      [{ from: `${W}.0`, to: W + HOUR }, 'window_bound_invalid'],
      [{ from: W + 0.5, to: W + HOUR }, 'window_bound_invalid'],
      [{ from: 'yesterday', to: W }, 'window_bound_invalid'],
      [{ from: '1e9', to: W }, 'window_bound_invalid'],
      [{ from: '0x10', to: W }, 'window_bound_invalid'],
      [{ from: W + 1, to: W + HOUR }, 'window_not_hour_start'],
      [{ from: W, to: W + HOUR + 60 }, 'window_not_hour_start'],
      [{ from: W + HOUR, to: W }, 'window_inverted'],
      [{ from: W, to: W + 49 * HOUR }, 'window_too_long'],
      [{ track: 'ecmwf_ifs025', from: W, to: W + HOUR }, 'track_unknown'],
      [{ track: 'MERGED', from: W, to: W + HOUR }, 'track_unknown'],
    ];
    for (const [query, code] of cases) {
      const res = await get('/api/v1/forecast/window', query);
      expect({ query, status: res.status, code: res.body.code }).toEqual({ query, status: 400, code });
      expect(res.body).toMatchObject({
        error: expect.any(String),
        request: { method: 'GET', route: '/api/v1/forecast/window' },
      });
    }
    // A bound given twice is not a bound.
    const twice = await request(booted.service.server)
      .get(`/api/v1/forecast/window?from=${W}&from=${W + HOUR}&to=${W + 2 * HOUR}`)
      .expect(400);
    expect(twice.body.code).toBe('window_bound_invalid');
  });
});

describe('a configured extra track no fetch has served', () => {
  it('is a known track of window and archive, empty rather than unknown, while Open-Meteo fails', async () => {
    const clock = new ManualClock(T0 * 1000);
    peers = await startPeers(clock, { openMeteo: { mode: 'fail' }, nws: { mode: 'fail' } });
    const booted = await services.boot({
      configToml: configToml(
        configDocument(peers.om.baseUrl, peers.nws.baseUrl, { timeoutS: 5, extraModels: ['gfs_seamless'] }),
      ),
      serviceOptions: { clock },
    });
    const get = (path: string, query: object = {}) => request(booted.service.server).get(path).query(query);
    await until(async () =>
      (await get('/api/v1/forecast/snapshot')).body.source_reachable === false ? true : null,
    );
    const tracks = await get('/api/v1/forecast/tracks').expect(200);
    expect(tracks.body[1]).toMatchObject({ track: 'gfs_seamless', fetched_at: null, serving: 'unavailable' });
    const window = await get('/api/v1/forecast/window', {
      track: 'gfs_seamless',
      from: W,
      to: W + HOUR,
    }).expect(200);
    expect(window.body).toMatchObject({
      track: 'gfs_seamless',
      fetched_at: null,
      age_s: null,
      complete: false,
      hours: 0,
      expected_hours: 2,
    });
    const archive = await get('/api/v1/forecast/archive', {
      track: 'gfs_seamless',
      from: W,
      to: W + HOUR,
    }).expect(200);
    expect(archive.body).toEqual({ rows: [], next_cursor: null });
    const unknown = await get('/api/v1/forecast/window', { track: 'icon_seamless', from: W, to: W + HOUR });
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe('track_unknown');
  });
});

describe('GET /forecast/archive', () => {
  it('pages the rows of leads 0..47 with next_cursor until none is left', async () => {
    const { get } = await boot();
    const query = { from: W, to: W + 47 * HOUR, limit: 10 };
    const rows: Record<string, unknown>[] = [];
    const pages: number[] = [];
    let cursor: string | null = null;
    do {
      const res: request.Response = await get(
        '/api/v1/forecast/archive',
        cursor ? { ...query, cursor } : query,
      ).expect(200);
      expect(Object.keys(res.body).sort()).toEqual(['next_cursor', 'rows']);
      rows.push(...res.body.rows);
      pages.push(res.body.rows.length);
      cursor = res.body.next_cursor;
      if (cursor !== null) expect(typeof cursor).toBe('string');
    } while (cursor !== null);
    expect(pages).toEqual([10, 10, 10, 10, 8]);
    expect(rows.map((r) => r.lead_h)).toEqual([...Array(48).keys()]);
    for (const row of rows) {
      expect(Object.keys(row).sort()).toEqual([...ARCHIVE_ROW_KEYS].sort());
      expect(row).toMatchObject({ track: 'merged', provider: 'open_meteo', model: null, fetched_at: T0 });
      expect(row.target_epoch).toBe(W + (row.lead_h as number) * HOUR);
    }
    // The gap in the provider's amounts is archived as a gap.
    expect(rows[7]).toMatchObject({ target_epoch: NO_PRECIP, precip_in: null });

    const whole = await get('/api/v1/forecast/archive', { from: W - DAY, to: W + 3 * DAY }).expect(200);
    expect(whole.body.rows).toHaveLength(48);
    expect(whole.body.next_cursor).toBeNull();
    const lead = await get('/api/v1/forecast/archive', { from: W - DAY, to: W + 3 * DAY, lead_h: 0 }).expect(
      200,
    );
    expect(lead.body.rows).toEqual([expect.objectContaining({ target_epoch: W, lead_h: 0 })]);
    const gfs = await get('/api/v1/forecast/archive', {
      track: 'gfs_seamless',
      from: W,
      to: W + 47 * HOUR,
    }).expect(200);
    expect(gfs.body.rows).toHaveLength(48);
    for (const row of gfs.body.rows) {
      expect(row).toMatchObject({
        track: 'gfs_seamless',
        model: 'gfs_seamless',
        provider: 'open_meteo',
        precip_in: 0.05,
      });
    }
    const legacy = await get('/api/forecast/archive', { from: W, to: W + 47 * HOUR }).expect(200);
    expect(legacy.body.rows).toEqual(rows);
  });

  it('answers 400 with a stable code for every invalid query', async () => {
    const { get, booted } = await boot();
    const first = await get('/api/v1/forecast/archive', { from: W, to: W + 47 * HOUR, limit: 5 }).expect(200);
    const cursor = first.body.next_cursor as string;
    expect(typeof cursor).toBe('string');
    const range = { from: W, to: W + 47 * HOUR };
    const cases: [Record<string, unknown>, string][] = [
      [{ to: W }, 'archive_from_missing'],
      [{ from: '', to: W }, 'archive_from_missing'],
      [{ from: W }, 'archive_to_missing'],
      [{ from: -1, to: W }, 'archive_bound_invalid'],
      [{ from: W, to: 'now' }, 'archive_bound_invalid'],
      [{ from: `${W}.5`, to: W + HOUR }, 'archive_bound_invalid'],
      [{ from: W + HOUR, to: W }, 'archive_inverted'],
      [{ from: 0, to: 400 * DAY + 1 }, 'archive_range_too_long'],
      [{ ...range, lead_h: 48 }, 'archive_lead_invalid'],
      [{ ...range, lead_h: -1 }, 'archive_lead_invalid'],
      [{ ...range, lead_h: 'one' }, 'archive_lead_invalid'],
      [{ ...range, lead_h: 1.5 }, 'archive_lead_invalid'],
      [{ ...range, limit: 0 }, 'archive_limit_invalid'],
      [{ ...range, limit: 5001 }, 'archive_limit_invalid'],
      [{ ...range, limit: 'all' }, 'archive_limit_invalid'],
      [{ ...range, cursor: 'not-a-cursor' }, 'archive_cursor_invalid'],
      // A cursor is good only with the filters it was issued for.
      [{ ...range, cursor, lead_h: 3 }, 'archive_cursor_invalid'],
      [{ from: W, to: W + 46 * HOUR, cursor }, 'archive_cursor_invalid'],
      [{ ...range, cursor, track: 'gfs_seamless' }, 'archive_cursor_invalid'],
      [{ ...range, track: 'icon_seamless' }, 'track_unknown'],
    ];
    for (const [query, code] of cases) {
      const res = await get('/api/v1/forecast/archive', query);
      expect({ query, status: res.status, code: res.body.code }).toEqual({ query, status: 400, code });
    }
    // 400 days is the limit, not past it.
    await get('/api/v1/forecast/archive', { from: 0, to: 400 * DAY }).expect(200);
    await get('/api/v1/forecast/archive', { ...range, limit: 5000, lead_h: 47 }).expect(200);
    const next = await get('/api/v1/forecast/archive', { ...range, limit: 5, cursor }).expect(200);
    expect(next.body.rows[0]).toMatchObject({ lead_h: 5 });
    const twice = await request(booted.service.server)
      .get(`/api/v1/forecast/archive?from=${W}&to=${W + HOUR}&to=${W + 2 * HOUR}`)
      .expect(400);
    expect(twice.body.code).toBe('archive_bound_invalid');
  });
});
