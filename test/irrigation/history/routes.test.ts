import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import request from 'supertest';
import { ManualClock } from '../../../server/src/core/clock';
import type { Store } from '../../../server/src/store/store';
import { MERGED_SOURCE_ID } from '../../../server/src/weather/weather-service';
import { makeDataDir, serviceTracker, type BootOptions } from '../../helpers/service';
import { dailyDecision, runRecord } from './fixtures';

/**
 * The four history routes over the real service and its SQLite file: window
 * bounds and days semantics, every row kind in history, decisions, both
 * export formats (attachment, quoting, streaming), accuracy, the 400 body for
 * a bad query, and no routes at all without a database.
 */

const services = serviceTracker();
/** 2025-06-20T19:00:00Z (15:00 in New York). */
const NOW_MS = Date.UTC(2025, 5, 20, 19, 0);
const NOW = NOW_MS / 1000;
const DAY = 86_400;

async function boot(options: BootOptions = {}) {
  const booted = await services.boot({ ...options, serviceOptions: { clock: new ManualClock(NOW_MS) } });
  const store = booted.service.store as Store;
  expect(store).not.toBeNull();
  return { server: booted.service.server, store };
}

function seedRuns(store: Store): void {
  store.runs.insert(runRecord({ session_id: 'old', start_epoch: NOW - 40 * DAY }));
  store.runs.insert(runRecord({ session_id: 'real', start_epoch: NOW - 2 * DAY }));
  store.runs.insert(
    runRecord({
      session_id: 'pretend',
      start_epoch: NOW - 2 * DAY + 60,
      source: 'dry_run',
      applied_mm: null,
    }),
  );
  store.runs.insert(
    runRecord({
      session_id: null,
      start_epoch: NOW - DAY,
      source: 'smart_morning',
      status: 'skipped',
      skip_reason: 'rain_today_forecast',
      duration_s: 0,
      applied_mm: null,
      volume_gal: null,
      cycle_index: null,
      cycle_count: null,
    }),
  );
}

describe('GET /irrigation/history', () => {
  it('answers the last 30 days by default, oldest first, skip and dry-run rows included', async () => {
    const { server, store } = await boot();
    seedRuns(store);
    store.decisions.upsertDaily(dailyDecision({ date_local: '2025-06-19', epoch: NOW - DAY }));
    for (const prefix of ['/api/v1', '/api']) {
      const res = await request(server).get(`${prefix}/irrigation/history`).expect(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body.from_epoch).toBe(NOW - 30 * DAY);
      expect(res.body.to_epoch).toBe(NOW);
      expect(res.body.runs.map((r: { session_id: string | null }) => r.session_id)).toEqual([
        'real',
        'pretend',
        null,
      ]);
      expect(res.body.runs[1]).toEqual(
        runRecord({
          session_id: 'pretend',
          start_epoch: NOW - 2 * DAY + 60,
          source: 'dry_run',
          applied_mm: null,
        }),
      );
      expect(res.body.runs[2]).toMatchObject({ status: 'skipped', skip_reason: 'rain_today_forecast' });
      expect(res.body.daily).toEqual([dailyDecision({ date_local: '2025-06-19', epoch: NOW - DAY })]);
    }
  });

  it('reads every retained record with days=0 and a narrower window with days=1', async () => {
    const { server, store } = await boot();
    seedRuns(store);
    const all = await request(server).get('/api/v1/irrigation/history?days=0').expect(200);
    expect(all.body.from_epoch).toBe(0);
    expect(all.body.runs.map((r: { session_id: string | null }) => r.session_id)).toEqual([
      'old',
      'real',
      'pretend',
      null,
    ]);
    const one = await request(server).get('/api/v1/irrigation/history?days=1').expect(200);
    expect(one.body.runs).toHaveLength(1);
    expect(one.body.from_epoch).toBe(NOW - DAY);
  });

  it('answers 400 invalid_query in the spec error body for garbage and out-of-range days', async () => {
    const { server } = await boot();
    const garbage = await request(server).get('/api/v1/irrigation/history?days=abc').expect(400);
    expect(garbage.body).toMatchObject({
      code: 'invalid_query',
      error: expect.stringContaining('whole number'),
      request: { method: 'GET', route: '/api/v1/irrigation/history' },
    });
    const tooMany = await request(server).get('/api/v1/irrigation/history?days=36501').expect(400);
    expect(tooMany.body.error).toContain('0..36500');
    await request(server).get('/api/v1/irrigation/history?days=-1').expect(400);
    await request(server).get('/api/v1/irrigation/decisions?days=1.5').expect(400);
  });
});

describe('GET /irrigation/decisions', () => {
  it('lists verdict changes in the window as {epoch, verdict, previous_verdict, reason}', async () => {
    const { server, store } = await boot();
    store.decisions.insertTransition({
      epoch: NOW - 60 * DAY,
      verdict: 'water',
      previous_verdict: null,
      reason: { reason_code: 'soil_due' },
    });
    store.decisions.insertTransition({
      epoch: NOW - DAY,
      verdict: 'skip',
      previous_verdict: 'water',
      reason: { reason_code: 'tomorrow_rain' },
    });
    const recent = await request(server).get('/api/v1/irrigation/decisions').expect(200);
    expect(recent.body).toEqual({
      from_epoch: NOW - 30 * DAY,
      to_epoch: NOW,
      decisions: [
        {
          epoch: NOW - DAY,
          verdict: 'skip',
          previous_verdict: 'water',
          reason: { reason_code: 'tomorrow_rain' },
        },
      ],
    });
    const all = await request(server).get('/api/v1/irrigation/decisions?days=0').expect(200);
    expect(all.body.decisions).toHaveLength(2);
  });
});

describe('GET /irrigation/export', () => {
  it('serves csv by default as an attachment, runs and verdict changes in time order, quoted', async () => {
    const { server, store } = await boot();
    seedRuns(store);
    store.runs.insert(runRecord({ start_epoch: NOW - 3600, zone: 'back_lawn', note: 'stopped, "manually"' }));
    store.decisions.insertTransition({
      epoch: NOW - 2 * DAY + 30,
      verdict: 'skip',
      previous_verdict: 'water',
      reason: { reason_code: 'rain_3day' },
    });
    const res = await request(server).get('/api/v1/irrigation/export').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.headers['content-disposition']).toBe(
      'attachment; filename="raincheck-irrigation-2025-06-20.csv"',
    );
    expect(res.text.split('\r\n')).toEqual([
      'timestamp_utc,zone,event,duration_s,reason',
      '2025-05-11T19:00:00Z,front_lawn,completed,600,',
      '2025-06-18T19:00:00Z,front_lawn,completed,600,',
      '2025-06-18T19:00:30Z,,verdict:skip,,rain_3day',
      '2025-06-18T19:01:00Z,front_lawn,completed,600,',
      '2025-06-19T19:00:00Z,front_lawn,skip,0,rain_today_forecast',
      '2025-06-20T18:00:00Z,back_lawn,completed,600,"stopped, ""manually"""',
      '',
    ]);
  });

  it('clamps days to 1..3650 and serves {from_epoch, to_epoch, runs, decisions} as json', async () => {
    const { server, store } = await boot();
    seedRuns(store);
    const res = await request(server).get('/api/v1/irrigation/export?days=0&format=json').expect(200);
    expect(res.headers['content-disposition']).toBe(
      'attachment; filename="raincheck-irrigation-2025-06-20.json"',
    );
    expect(Object.keys(res.body)).toEqual(['from_epoch', 'to_epoch', 'runs', 'decisions']);
    expect(res.body.from_epoch).toBe(NOW - DAY);
    expect(res.body.runs).toHaveLength(1);
    const wide = await request(server).get('/api/v1/irrigation/export?days=99999&format=json').expect(200);
    expect(wide.body.from_epoch).toBe(NOW - 3650 * DAY);
    expect(wide.body.runs).toHaveLength(4);
    const bad = await request(server).get('/api/v1/irrigation/export?format=xml').expect(400);
    expect(bad.body.code).toBe('invalid_query');
  });

  it('streams a large export in chunks instead of one buffered body', async () => {
    const booted = await services.boot({ serviceOptions: { clock: new ManualClock(NOW_MS) } });
    const store = booted.service.store as Store;
    const rows = 6000;
    store.transaction(() => {
      for (let i = 0; i < rows; i += 1) {
        store.runs.insert(runRecord({ start_epoch: NOW - 300 * DAY + i * 60, zone: `zone_${i % 16}` }));
      }
    });
    const res = await new Promise<{ headers: http.IncomingHttpHeaders; chunks: number; text: string }>(
      (resolve, reject) => {
        http
          .get(`http://127.0.0.1:${booted.port}/api/v1/irrigation/export?days=3650`, (incoming) => {
            let text = '';
            let chunks = 0;
            incoming.setEncoding('utf8');
            incoming.on('data', (chunk: string) => {
              chunks += 1;
              text += chunk;
            });
            incoming.on('end', () => resolve({ headers: incoming.headers, chunks, text }));
            incoming.on('error', reject);
          })
          .on('error', reject);
      },
    );
    expect(res.headers['transfer-encoding']).toBe('chunked');
    expect(res.headers['content-length']).toBeUndefined();
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="raincheck-irrigation-/);
    expect(res.chunks).toBeGreaterThan(1);
    expect(res.text.split('\r\n')).toHaveLength(1 + rows + 1);
  });
});

describe('GET /irrigation/accuracy', () => {
  const NEW_YORK_TOML =
    'schema_version = 2\n[deployment]\ntimezone = "America/New_York"\n[deployment.location]\nlat = 40.7\nlon = -74.0\n';

  it('scores local days with known rain and leaves unknown rain null, not 0', async () => {
    const { server, store } = await boot({ configToml: NEW_YORK_TOML });
    // 2025-06-18 and -19 in New York: a rain skip each, rain measured only on the 18th.
    for (const [date, epoch] of [
      ['2025-06-18', Date.UTC(2025, 5, 18, 9) / 1000],
      ['2025-06-19', Date.UTC(2025, 5, 19, 9) / 1000],
    ] as const) {
      store.decisions.upsertDaily(dailyDecision({ date_local: date, epoch, kind: 'skip' }));
      store.decisions.insertTransition({
        epoch: epoch - 3600,
        verdict: 'skip',
        previous_verdict: null,
        reason: { reason_code: 'rain_today_forecast' },
      });
    }
    store.readings.insertMany([
      {
        epoch: Date.UTC(2025, 5, 18, 20) / 1000,
        source_id: MERGED_SOURCE_ID,
        field: 'rain_in_today',
        value: 0.2,
      },
      {
        epoch: Date.UTC(2025, 5, 19, 3, 45) / 1000,
        source_id: MERGED_SOURCE_ID,
        field: 'rain_in_today',
        value: 0.8,
      },
    ]);
    const res = await request(server).get('/api/v1/irrigation/accuracy?days=3').expect(200);
    expect(res.body.timezone).toBe('America/New_York');
    expect(res.body.rain_threshold_in).toBe(0.25);
    expect(res.body.rows.map((r: { date_local: string }) => r.date_local)).toEqual([
      '2025-06-18',
      '2025-06-19',
      '2025-06-20',
    ]);
    expect(res.body.rows[0]).toMatchObject({
      verdict: 'skip',
      skipped_for_rain: true,
      rain_observed_in: 0.8,
      rain_evidence: 'gauge',
      outcome: 'matched',
    });
    expect(res.body.rows[1]).toMatchObject({ verdict: 'skip', rain_observed_in: null, outcome: 'unscored' });
    expect(res.body.rows[1].unscored_reason).toBe('rain_unknown');
    expect(res.body.tally).toMatchObject({ days: 3, scored_days: 1, matched_days: 1, matched_pct: 100 });
  });

  it('clamps days to 1..365 and follows the rain_skip_in threshold control', async () => {
    const { server } = await boot({ configToml: NEW_YORK_TOML });
    const year = await request(server).get('/api/v1/irrigation/accuracy?days=1000').expect(200);
    expect(year.body.rows).toHaveLength(365);
    await request(server)
      .post('/api/v1/irrigation/action')
      .send({ kind: 'set_threshold', key: 'rain_skip_in', value: 0.5 })
      .expect(200);
    const after = await request(server).get('/api/v1/irrigation/accuracy?days=0').expect(200);
    expect(after.body.rows).toHaveLength(1);
    expect(after.body.rain_threshold_in).toBe(0.5);
    const bad = await request(server).get('/api/v1/irrigation/accuracy?days=ten').expect(400);
    expect(bad.body.code).toBe('invalid_query');
  });
});

describe('without a database', () => {
  it('does not mount the history routes: 404 under both prefixes', async () => {
    const dataDir = makeDataDir();
    fs.mkdirSync(path.join(dataDir, 'raincheck.db'));
    const { service } = await services.boot({ dataDir });
    expect(service.store).toBeNull();
    for (const prefix of ['/api/v1', '/api']) {
      for (const route of ['history', 'decisions', 'export', 'accuracy']) {
        const res = await request(service.server).get(`${prefix}/irrigation/${route}`).expect(404);
        expect(res.body.code).toBe('not_found');
      }
    }
    // The rest of irrigation still answers.
    await request(service.server).get('/api/v1/irrigation/shadow/diff').expect(200);
  });
});
