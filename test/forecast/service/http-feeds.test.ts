import { FORECAST_DAYS } from '../../../server/src/forecast/forecast-service';
import http from 'node:http';
import request from 'supertest';
import { ManualClock } from '../../../server/src/core/clock';
import type { ArchiveRow } from '../../../server/src/store/forecast-archive';
import type { Store } from '../../../server/src/store/store';
import { MERGED_SOURCE_ID } from '../../../server/src/weather/weather-service';
import { serviceTracker } from '../../helpers/service';
import {
  configDocument,
  configToml,
  HOUR,
  local,
  localEpoch,
  MODEL_HOURLY,
  startPeers,
  until,
  type NwsPeer,
  type OpenMeteoPeer,
} from './peers';

/**
 * GET /forecast/snapshot, /forecast/tracks, /forecast/stream and
 * /forecast/bias on the booted service, and the demo forecast (DEMO=1), which
 * needs no network at all.
 */

const services = serviceTracker();
const T0 = localEpoch('2026-07-15T12:20:00');
const SNAPSHOT_KEYS = [
  'last_refresh_epoch',
  'source_reachable',
  'source_label',
  'source_is_backup',
  'timezone',
  'daily',
  'past_daily',
  'hourly',
];

let peers: { om: OpenMeteoPeer; nws: NwsPeer } | null = null;
afterEach(async () => {
  await peers?.om.peer.close();
  await peers?.nws.peer.close();
  peers = null;
});

async function bootWithPeers() {
  const clock = new ManualClock(T0 * 1000);
  peers = await startPeers(clock, { openMeteo: { models: { gfs_seamless: MODEL_HOURLY } } });
  const booted = await services.boot({
    configToml: configToml(
      configDocument(peers.om.baseUrl, peers.nws.baseUrl, { timeoutS: 5, extraModels: ['gfs_seamless'] }),
    ),
    serviceOptions: { clock },
  });
  const get = (path: string) => request(booted.service.server).get(path);
  await until(async () => {
    const res = await get('/api/v1/forecast/tracks');
    return res.body.length === 2 && res.body.every((t: { fetched_at: number | null }) => t.fetched_at === T0)
      ? true
      : null;
  });
  return { booted, clock, get };
}

/** Reads a raw SSE stream up to its first `snapshot` event. */
function firstSnapshotEvent(port: number, path: string): Promise<{ contentType: string; data: unknown }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, headers: { Accept: 'text/event-stream' } });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error('no snapshot event within 5 s'));
    }, 5000);
    req.once('error', reject);
    req.once('response', (res) => {
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        for (const frame of buffer.split('\n\n').slice(0, -1)) {
          const lines = frame.split('\n');
          if (!lines.includes('event: snapshot')) continue;
          const data = lines
            .filter((l) => l.startsWith('data:'))
            .map((l) => l.slice(5).replace(/^ /, ''))
            .join('\n');
          clearTimeout(timer);
          req.destroy();
          resolve({ contentType: String(res.headers['content-type']), data: JSON.parse(data) });
          return;
        }
      });
    });
  });
}

describe('GET /forecast/snapshot, /forecast/tracks, /forecast/stream', () => {
  it('serves the merged snapshot, the tracks and a first snapshot event on the stream', async () => {
    const { booted, get, clock } = await bootWithPeers();
    const snap = await get('/api/v1/forecast/snapshot').expect(200);
    for (const key of SNAPSHOT_KEYS) expect(snap.body).toHaveProperty(key);
    expect(snap.body).toMatchObject({
      last_refresh_epoch: T0,
      source_reachable: true,
      source_label: 'Open-Meteo forecast',
      source_is_backup: false,
      timezone: 'America/New_York',
    });
    expect(snap.body.daily).toHaveLength(FORECAST_DAYS);
    expect(snap.body.past_daily).toHaveLength(3);
    expect(snap.body.hourly[0].time_epoch).toBe(localEpoch('2026-07-15T00:00:00'));
    for (const hour of snap.body.hourly) {
      for (const key of ['time_epoch', 'temp_f', 'precip_in', 'precip_probability', 'et0_reported']) {
        expect(hour).toHaveProperty(key);
      }
    }
    const legacy = await get('/api/forecast/snapshot').expect(200);
    expect(legacy.body).toEqual(snap.body);

    clock.advance(900 * 1000);
    const tracks = await get('/api/v1/forecast/tracks').expect(200);
    expect(tracks.body).toEqual([
      expect.objectContaining({
        track: 'merged',
        model: null,
        fetched_at: T0,
        age_s: 900,
        serving: 'serving',
        last_error: null,
      }),
      expect.objectContaining({
        track: 'gfs_seamless',
        model: 'gfs_seamless',
        fetched_at: T0,
        age_s: 900,
        serving: 'serving',
        last_error: null,
      }),
    ]);

    const event = await firstSnapshotEvent(booted.port, '/api/v1/forecast/stream');
    expect(event.contentType).toMatch(/^text\/event-stream/);
    expect(event.data).toEqual(snap.body);
  });
});

/** 24 archive rows for a local day: the day-ahead forecast (lead 24) of `perHour` inches every hour. */
function dayAheadRows(date: string, perHour: number): ArchiveRow[] {
  const start = localEpoch(`${date}T00:00:00`);
  const end = localEpoch(`${date}T00:00:00`) + 24 * HOUR;
  const rows: ArchiveRow[] = [];
  for (let t = start; t < end; t += HOUR) {
    rows.push({
      track: 'merged',
      provider: 'open_meteo',
      model: null,
      target_epoch: t,
      lead_h: 24,
      pop_pct: 60,
      precip_in: perHour,
      fetched_at: t - 24 * HOUR,
    });
  }
  return rows;
}

/** The station's gauge on a local day: `rain_in_today` of the merged history, rising to `total`. */
function gaugeDay(store: Store, date: string, total: number): void {
  store.readings.insertMany([
    {
      epoch: localEpoch(`${date}T09:00:00`),
      source_id: MERGED_SOURCE_ID,
      field: 'rain_in_today',
      value: total / 3,
    },
    {
      epoch: localEpoch(`${date}T23:00:00`),
      source_id: MERGED_SOURCE_ID,
      field: 'rain_in_today',
      value: total,
    },
  ]);
}

describe('GET /forecast/bias', () => {
  it('is 1.0 and untrained before 8 informative days, then learns the month’s ratio', async () => {
    const clock = new ManualClock(localEpoch('2026-07-20T12:00:00') * 1000);
    // No forecast source reachable: nothing but the rows below lands in the archive.
    const booted = await services.boot({
      configToml: configToml(configDocument(null, null)),
      serviceOptions: { clock },
    });
    const store = booted.service.store as Store;
    const bias = async () =>
      (await request(booted.service.server).get('/api/v1/forecast/bias').expect(200)).body;

    expect(await bias()).toMatchObject({
      month: 7,
      multiplier: 1,
      trained: false,
      sample_count: 0,
      min_samples: 8,
    });

    const days = [...Array(10).keys()].map((i) => `2026-07-${String(i + 1).padStart(2, '0')}`);
    for (const date of days.slice(0, 5)) {
      store.forecastArchive.insertMany(dayAheadRows(date, 0.01));
      gaugeDay(store, date, 0.12);
    }
    expect(await bias()).toMatchObject({ multiplier: 1, trained: false, sample_count: 5, min_samples: 8 });

    // A dry forecast day teaches nothing, whatever fell.
    store.forecastArchive.insertMany(dayAheadRows('2026-07-11', 0));
    gaugeDay(store, '2026-07-11', 0.5);
    // Neither does a forecast day whose gauge did not report.
    store.forecastArchive.insertMany(dayAheadRows('2026-07-12', 0.02));
    expect((await bias()).sample_count).toBe(5);

    for (const date of days.slice(5)) {
      store.forecastArchive.insertMany(dayAheadRows(date, 0.01));
      gaugeDay(store, date, 0.12);
    }
    // Ten days that promised 0.24 in each and measured 0.12 in: half the forecast fell.
    expect(await bias()).toMatchObject({
      month: 7,
      multiplier: 0.5,
      trained: true,
      sample_count: 10,
      observed_in: 1.2,
      forecast_in: 2.4,
      observed_source: 'gauge',
    });
  });
});

describe('demo mode (DEMO=1)', () => {
  it('serves the demo forecast with no network: its calls, right or wrong, rain only in the 14:00 and 15:00 hours', async () => {
    const clock = new ManualClock(T0 * 1000);
    const calls: string[] = [];
    const noNetwork: typeof fetch = (input) => {
      calls.push(String(input instanceof Request ? input.url : input));
      return Promise.reject(new TypeError('fetch failed: the demo needs no network'));
    };
    const booted = await services.boot({ env: { DEMO: '1' }, serviceOptions: { clock, fetch: noNetwork } });
    const get = (path: string) => request(booted.service.server).get(path);
    const snap = await until(async () => {
      const res = await get('/api/v1/forecast/snapshot');
      return res.body.last_refresh_epoch === T0 ? res.body : null;
    });
    expect(snap).toMatchObject({
      source_reachable: true,
      source_is_backup: false,
      timezone: 'America/New_York',
    });
    expect(snap.source_label).toMatch(/demo/i);
    const tracks = (await get('/api/v1/forecast/tracks').expect(200)).body;
    expect(tracks[0]).toMatchObject({ track: 'merged', provider: 'demo_replay', serving: 'serving' });
    expect(tracks[0].label).toMatch(/demo/i);

    // Storms fall on days 0, 3 and 6 of each 16-day cycle: 2026-07-15 is day 9 (dry), the 22nd starts the next cycle.
    // The forecast issued on the 15th is a realistic one (demo-forecast-calls.ts): it promises rain on the 18th,
    // 19th and 20th that never falls, and misses the storm of the 22nd. Whatever it calls falls in the storm's hours.
    const calledRain = new Set(['2026-07-18', '2026-07-19', '2026-07-20']);
    const rainy: string[] = [];
    for (const hour of snap.hourly as { time_epoch: number; precip_in: number | null }[]) {
      const { date, time } = local(hour.time_epoch);
      expect(hour.precip_in).toEqual(expect.any(Number));
      if ((hour.precip_in as number) > 0) rainy.push(`${date} ${time}`);
    }
    const expected = [...calledRain].flatMap((d) => [`${d} 14:00`, `${d} 15:00`]);
    expect(rainy).toEqual(expected);
    for (const day of snap.daily as { date_local: string; precip_sum_in: number | null }[]) {
      if (calledRain.has(day.date_local)) expect(day.precip_sum_in).toBeGreaterThan(0);
      else expect(day.precip_sum_in).toBe(0);
    }
    expect((snap.daily as { date_local: string }[]).map((d) => d.date_local)).toContain('2026-07-22');
    expect(calls).toEqual([]);
  });
});
