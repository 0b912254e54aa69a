import { createRequire } from 'node:module';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  HOST,
  makeTempDir,
  mb,
  median,
  ms,
  procStatusKb,
  REPO_ROOT,
  spawnServiceWithConfig,
  stopChild,
  waitFor200,
} from '../lib/harness.mjs';

/**
 * The irrigation history routes over a 10-year ledger, served by the built
 * service (dist/, started with bin/raincheck on its own config and data dir).
 *
 * Fixture, written once through the compiled Store into a temp data dir
 * (reused by the three benchmarks, each on a freshly started service): 16
 * zones x 3,650 days ending now. Each day every zone has one row: a completed
 * `ha_refresher` run, a `smart_morning` skip marker on rain-skip days (2 in
 * 10), a `dry_run` row on 1 day in 10; zones 0-1 add a second cycle/soak
 * segment every other day: about 60,000 run rows. One daily decision per day
 * (16 zone lines; a second kind on skip days) and a verdict change on each
 * change of verdict.
 *
 * - history-all: GET /api/v1/irrigation/history?days=0, the whole ledger;
 * - history-30d: GET /api/v1/irrigation/history?days=30;
 *   both the median wall time to the last byte of a keep-alive GET after warm-up,
 *   the body checked once first (run count, oldest-first order);
 * - history-export-rss: the csv export of it all (days=3650) on a service
 *   warmed with a one-day export: peak VmRSS while streaming minus VmRSS just
 *   before, /proc/<pid>/status sampled every 2 ms. The json export's growth is
 *   shown for reference.
 */

const ZONES = 16;
const DAYS = 3650;
const DAY_S = 86_400;
const TZ = 'America/New_York';
const CONFIG = {
  schema_version: 2,
  deployment: { location: { lat: 40.7, lon: -74.0 }, timezone: TZ },
};
const ALL = '/api/v1/irrigation/history?days=0';
const RECENT = '/api/v1/irrigation/history?days=30';
const EXPORT_CSV = '/api/v1/irrigation/export?days=3650';
const EXPORT_JSON = '/api/v1/irrigation/export?days=3650&format=json';
const SAMPLE_MS = 2;

const requireDist = createRequire(join(REPO_ROOT, 'dist/server/src/main.js'));

function loadDist() {
  try {
    return {
      Store: requireDist('./store/store.js').Store,
      silentLogger: requireDist('./core/logger.js').silentLogger,
    };
  } catch (err) {
    throw new Error(`cannot load the compiled store (run \`npm run build\` first): ${err.message}`, {
      cause: err,
    });
  }
}

/** Deterministic day kinds: 2 rain-skip days and 1 dry-run day in every 10. */
function dayKind(day) {
  const k = day % 10;
  if (k === 2 || k === 6) return 'skip';
  if (k === 8) return 'dry_run';
  return 'water';
}

function runRow(day, zone, start, segment) {
  const kind = dayKind(day);
  const skip = kind === 'skip';
  return {
    session_id: skip ? null : `d${day}-z${zone}`,
    zone: `zone_${String(zone).padStart(2, '0')}`,
    start_epoch: start,
    duration_s: skip ? 0 : 480 + ((day * 7 + zone * 13) % 600),
    skip_reason: skip ? 'rain_today_forecast' : null,
    source: skip ? 'smart_morning' : kind === 'dry_run' ? 'dry_run' : 'ha_refresher',
    status: skip ? 'skipped' : 'completed',
    controller_id: 'os1',
    applied_mm: skip || kind === 'dry_run' ? null : 3 + (zone % 5) * 0.7,
    volume_gal: skip ? null : 20 + zone * 1.5,
    note: day % 97 === 0 && !skip ? 'stopped early, "manual" stop' : null,
    cycle_index: segment,
    cycle_count: segment === null ? null : 2,
  };
}

function decisionZones(kind) {
  return Array.from({ length: ZONES }, (_, zone) => ({
    zone: `zone_${String(zone).padStart(2, '0')}`,
    name: `Zone ${zone + 1}`,
    reason_code: kind === 'skip' ? 'rain_today_forecast' : 'soil_due',
    reason:
      kind === 'skip'
        ? 'Forecast rain today reaches the skip threshold.'
        : 'Root-zone depletion reached the trigger.',
    water_need: kind === 'skip' ? 'none' : 'due',
    planned_seconds: kind === 'skip' ? 0 : 480 + zone * 30,
  }));
}

/** Writes the 10-year ledger; returns the row counts. */
function fillDatabase(file, nowEpoch) {
  const { Store, silentLogger } = loadDist();
  const store = Store.open(file, silentLogger());
  const counts = { runs: 0, daily: 0, transitions: 0 };
  try {
    let previous = null;
    store.transaction(() => {
      for (let day = 0; day < DAYS; day += 1) {
        // Local-ish 05:00 of the day, the oldest day 3,649.5 days back: all of it within days=3650.
        const morning = nowEpoch - (DAYS - day) * DAY_S + DAY_S / 2;
        const kind = dayKind(day);
        const verdict = kind === 'skip' ? 'skip' : 'water';
        if (verdict !== previous) {
          store.decisions.insertTransition({
            epoch: morning - 3600,
            verdict,
            previous_verdict: previous,
            reason: { reason_code: verdict === 'skip' ? 'rain_today_forecast' : 'soil_due' },
          });
          counts.transitions += 1;
          previous = verdict;
        }
        const date = new Date(morning * 1000).toISOString().slice(0, 10);
        store.decisions.upsertDaily({ date_local: date, epoch: morning, kind, zones: decisionZones(kind) });
        counts.daily += 1;
        if (kind === 'skip') {
          store.decisions.upsertDaily({
            date_local: date,
            epoch: morning - 7200,
            kind: 'water',
            zones: decisionZones('water'),
          });
          counts.daily += 1;
        }
        for (let zone = 0; zone < ZONES; zone += 1) {
          const start = morning + zone * 900;
          const cycled = zone < 2 && day % 2 === 0 && kind !== 'skip';
          store.runs.insert(runRow(day, zone, start, cycled ? 1 : null));
          counts.runs += 1;
          if (cycled) {
            store.runs.insert(runRow(day, zone, start + 1800, 2));
            counts.runs += 1;
          }
        }
      }
    });
  } finally {
    store.close();
  }
  return counts;
}

let fixture = null;

/** The data dir with the ledger, built on first use and shared by the three benchmarks. */
function ledger(report) {
  if (fixture) return fixture;
  const dir = makeTempDir();
  const started = performance.now();
  const counts = fillDatabase(join(dir, 'raincheck.db'), Math.floor(Date.now() / 1000));
  report(
    'fixture',
    `${counts.runs.toLocaleString('en-US')} runs, ${counts.daily.toLocaleString('en-US')} daily decisions, ` +
      `${counts.transitions.toLocaleString('en-US')} verdict changes over ${DAYS} days, ${ZONES} zones ` +
      `(${((performance.now() - started) / 1000).toFixed(1)} s)`,
  );
  fixture = { dir, counts };
  return fixture;
}

async function startService(dir) {
  const service = await spawnServiceWithConfig(dir, CONFIG);
  try {
    await waitFor200(service, '/api/v1/health');
    return service;
  } catch (err) {
    await stopChild(service);
    throw err;
  }
}

/** GET to the last byte; resolves {ms, bytes, status, headers, body?} (body only when `keep`). */
function get(port, path, agent, keep = false) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const req = request({ host: HOST, port, path, agent }, (res) => {
      const chunks = [];
      let bytes = 0;
      res.on('data', (chunk) => {
        bytes += chunk.length;
        if (keep) chunks.push(chunk);
      });
      res.on('end', () =>
        resolve({
          ms: performance.now() - start,
          bytes,
          status: res.statusCode,
          headers: res.headers,
          body: keep ? Buffer.concat(chunks).toString('utf8') : null,
        }),
      );
      res.on('error', reject);
    });
    req.setTimeout(30_000, () => req.destroy(new Error(`GET ${path} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

/** Median wall time of `runs` GETs after `warmup` ones, on one keep-alive connection. */
async function timedGets(port, path, warmup, runs) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    for (let i = 0; i < warmup; i += 1) await get(port, path, agent);
    const times = [];
    let bytes = 0;
    for (let i = 0; i < runs; i += 1) {
      const res = await get(port, path, agent);
      if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}`);
      times.push(res.ms);
      bytes = res.bytes;
    }
    return { median: median(times), max: Math.max(...times), bytes };
  } finally {
    agent.destroy();
  }
}

/** Checks the body once (outside the timings): the counts the fixture wrote, within the window. */
async function checkHistory(port, path, report, expectRuns) {
  const res = await get(port, path, undefined, true);
  if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${res.body?.slice(0, 300)}`);
  const body = JSON.parse(res.body);
  if (expectRuns !== null && body.runs.length !== expectRuns) {
    throw new Error(`${path} returned ${body.runs.length} runs, expected ${expectRuns}`);
  }
  const unordered = body.runs.findIndex((r, i) => i > 0 && r.start_epoch < body.runs[i - 1].start_epoch);
  if (unordered !== -1) throw new Error(`${path}: run ${unordered} is older than the one before it`);
  report(
    '  body',
    `${body.runs.length.toLocaleString('en-US')} runs, ${body.daily.length} daily, ${mb(res.bytes / 1024)}`,
  );
}

/** Peak VmRSS growth of `pid` while `path` streams to a client that reads as fast as it can. */
async function rssGrowth(service, path) {
  const baseline = procStatusKb(service.pid).VmRSS;
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, procStatusKb(service.pid).VmRSS);
  }, SAMPLE_MS);
  try {
    const res = await get(service.port, path);
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}`);
    peak = Math.max(peak, procStatusKb(service.pid).VmRSS);
    return { baseline, peak, growthKb: peak - baseline, res };
  } finally {
    clearInterval(sampler);
  }
}

async function withService(report, fn) {
  const { dir } = ledger(report);
  const service = await startService(dir);
  try {
    return await fn(service);
  } finally {
    await stopChild(service);
  }
}

const historyAll = {
  name: 'history-all',
  title: `GET ${ALL}: the whole 10-year ledger (~60,000 runs, 16 zones), built service`,
  budget: { metric: 'median of 9 after 3 warm-up', better: 'lower', limit: 100, unit: 'ms' },

  async run(report) {
    return withService(report, async (service) => {
      await checkHistory(service.port, ALL, report, fixture.counts.runs);
      const t = await timedGets(service.port, ALL, 3, 9);
      report('days=0', `median ${ms(t.median)} (max ${ms(t.max)}), ${mb(t.bytes / 1024)} per response`);
      return { value: t.median, display: ms(t.median) };
    });
  },
};

const historyRecent = {
  name: 'history-30d',
  title: `GET ${RECENT} over the same 10-year ledger, built service`,
  budget: { metric: 'median of 31 after 5 warm-up', better: 'lower', limit: 10, unit: 'ms' },

  async run(report) {
    return withService(report, async (service) => {
      await checkHistory(service.port, RECENT, report, null);
      const t = await timedGets(service.port, RECENT, 5, 31);
      report(
        'days=30',
        `median ${ms(t.median)} (max ${ms(t.max)}), ${(t.bytes / 1024).toFixed(0)} KB per response`,
      );
      return { value: t.median, display: ms(t.median) };
    });
  },
};

const historyExportRss = {
  name: 'history-export-rss',
  title: `GET ${EXPORT_CSV}: csv of the whole ledger, peak service RSS growth while streaming`,
  budget: { metric: 'peak VmRSS growth', better: 'lower', limit: 30, unit: 'MB' },

  async run(report) {
    const csv = await withService(report, async (service) => {
      // Warm the code paths (and the page cache) so the growth is the export's, not first-use loading.
      await get(service.port, '/api/v1/irrigation/export?days=1');
      const m = await rssGrowth(service, EXPORT_CSV);
      const lines = fixture.counts.runs + fixture.counts.transitions;
      report(
        'csv export',
        `${mb(m.res.bytes / 1024)} (~${lines.toLocaleString('en-US')} rows) in ${ms(m.res.ms)}, ` +
          `transfer-encoding ${m.res.headers['transfer-encoding'] ?? 'none'}`,
      );
      report('  VmRSS before / peak', `${mb(m.baseline)} / ${mb(m.peak)}`);
      report('  peak growth', mb(m.growthKb));
      if (m.res.headers['transfer-encoding'] !== 'chunked')
        throw new Error('the csv export was not streamed');
      return m;
    });
    const json = await withService(report, async (service) => {
      await get(service.port, '/api/v1/irrigation/export?days=1&format=json');
      return rssGrowth(service, EXPORT_JSON);
    });
    report(
      'reference: json export',
      `${mb(json.res.bytes / 1024)} in ${ms(json.res.ms)}, peak growth ${mb(json.growthKb)}`,
    );
    const value = csv.growthKb / 1024;
    return { value, display: `${value.toFixed(1)} MB` };
  },
};

export default [historyAll, historyRecent, historyExportRss];
