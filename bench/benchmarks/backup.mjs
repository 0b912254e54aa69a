import { createRequire } from 'node:module';
import { request } from 'node:http';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  HOST,
  makeTempDir,
  mb,
  ms,
  procStatusKb,
  REPO_ROOT,
  spawnServiceWithConfig,
  stopChild,
  waitFor200,
} from '../lib/harness.mjs';

/**
 * GET /api/v1/backup of a database holding 10 years of history, from the
 * built service (bin/raincheck on its own config and data dir).
 *
 * Fixture, written once through the compiled store's schema into a temp data
 * dir: 16 zones x 3,650 days of run rows (one a day per zone, a second
 * cycle segment every other day on two zones: about 62,000 runs), one daily
 * decision per day, the whole forecast archive the service keeps (2 tracks x
 * 400 days x 24 target hours x 48 leads: 921,600 rows), and the longest
 * reading history a default config keeps (90 days of 8 fields every minute:
 * about 1,037,000 rows).
 *
 * - backup-time: wall time from the request to the last byte of the bundle
 *   (online copy of the database, tar, gzip), the client reading as fast as
 *   it can; budget 10 s.
 * - backup-rss: peak VmRSS growth of the service during that download
 *   (/proc/<pid>/status every 2 ms) over VmRSS just before; budget 50 MB.
 *   Both come from one download, after a warm-up backup of the same data.
 */

const DAYS = 3650;
const ZONES = 16;
const DAY_S = 86_400;
const HOUR = 3600;
const CONFIG = { schema_version: 2, deployment: { location: { lat: 40.7, lon: -74.0 } } };
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

function fillRuns(db, now) {
  const insert = db.prepare(
    `INSERT INTO runs (session_id, zone, start_epoch, duration_s, source, status, controller_id, applied_mm, volume_gal, cycle_index, cycle_count)
     VALUES (?, ?, ?, ?, 'ha_refresher', 'completed', 'os1', ?, ?, ?, ?)`,
  );
  const decision = db.prepare(
    "INSERT INTO daily_decisions (date_local, kind, epoch, zones) VALUES (?, 'water', ?, ?)",
  );
  let runs = 0;
  for (let day = 0; day < DAYS; day += 1) {
    const morning = now - (DAYS - day) * DAY_S;
    const zones = [];
    for (let zone = 0; zone < ZONES; zone += 1) {
      const name = `zone_${String(zone).padStart(2, '0')}`;
      const cycled = zone < 2 && day % 2 === 0;
      insert.run(
        `d${day}-z${zone}`,
        name,
        morning + zone * 900,
        600,
        3.5,
        22,
        cycled ? 1 : null,
        cycled ? 2 : null,
      );
      runs += 1;
      if (cycled) {
        insert.run(`d${day}-z${zone}`, name, morning + zone * 900 + 1800, 600, 3.5, 22, 2, 2);
        runs += 1;
      }
      zones.push({ zone: name, reason_code: 'soil_due', planned_seconds: 600 });
    }
    decision.run(new Date(morning * 1000).toISOString().slice(0, 10), morning, JSON.stringify(zones));
  }
  return runs;
}

function fillArchive(db, now) {
  const insert = db.prepare(
    `INSERT INTO forecast_archive (track, target_epoch, lead_h, fetched_at, provider, model, pop_pct, precip_in)
     VALUES (?, ?, ?, ?, 'open_meteo', ?, ?, ?)`,
  );
  const first = Math.floor((now - 400 * DAY_S) / HOUR) * HOUR;
  let rows = 0;
  for (let hour = 0; hour < 400 * 24; hour += 1) {
    const target = first + hour * HOUR;
    for (const track of ['merged', 'gfs_seamless']) {
      for (let lead = 0; lead < 48; lead += 1) {
        insert.run(
          track,
          target,
          lead,
          target - lead * HOUR,
          track === 'merged' ? null : track,
          (hour * 7 + lead) % 100,
          ((hour + lead) % 13) / 100,
        );
        rows += 1;
      }
    }
  }
  return rows;
}

function fillReadings(db, now) {
  const insert = db.prepare(
    "INSERT INTO readings (epoch, source_id, field, value) VALUES (?, 'tempest', ?, ?)",
  );
  const fields = [
    'temp_f',
    'humidity_pct',
    'wind_mph',
    'wind_gust_mph',
    'pressure_inhg',
    'solar_wm2',
    'uv_index',
    'rain_in_today',
  ];
  const start = now - 90 * DAY_S;
  let rows = 0;
  for (let t = start; t < now; t += 60) {
    for (let f = 0; f < fields.length; f += 1) {
      insert.run(t, fields[f], 50 + ((t / 60 + f * 17) % 40) / 3);
      rows += 1;
    }
  }
  return rows;
}

let fixture = null;

function tenYears(report) {
  if (fixture) return fixture;
  const dir = makeTempDir();
  const { Store, silentLogger } = loadDist();
  const started = performance.now();
  const store = Store.open(join(dir, 'raincheck.db'), silentLogger());
  const now = Math.floor(Date.now() / 1000);
  let counts;
  try {
    counts = store.transaction(() => ({
      runs: fillRuns(store.db, now),
      archive: fillArchive(store.db, now),
      readings: fillReadings(store.db, now),
    }));
  } finally {
    store.close();
  }
  const size = statSync(join(dir, 'raincheck.db')).size;
  report(
    'fixture',
    `${counts.runs.toLocaleString('en-US')} runs over ${DAYS} days, ${counts.archive.toLocaleString('en-US')} archive rows, ` +
      `${counts.readings.toLocaleString('en-US')} readings; database ${mb(size / 1024)} ` +
      `(${((performance.now() - started) / 1000).toFixed(1)} s)`,
  );
  fixture = { dir, size };
  return fixture;
}

/** Downloads the bundle, discarding it; resolves {ms, bytes, status}. */
function download(port) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const req = request({ host: HOST, port, path: '/api/v1/backup' }, (res) => {
      let bytes = 0;
      res.on('data', (chunk) => (bytes += chunk.length));
      res.on('end', () => resolve({ ms: performance.now() - start, bytes, status: res.statusCode }));
      res.on('error', reject);
    });
    req.setTimeout(120_000, () => req.destroy(new Error('GET /api/v1/backup timed out')));
    req.on('error', reject);
    req.end();
  });
}

let measured = null;

async function measure(report) {
  if (measured) return measured;
  const { dir } = tenYears(report);
  const service = await spawnServiceWithConfig(dir, CONFIG);
  try {
    // A first boot on a 160 MB database under a loaded machine can take a while; the budget is the backup's.
    await waitFor200(service, '/api/v1/health', { timeoutMs: 60_000 });
    const warm = await download(service.port);
    if (warm.status !== 200) throw new Error(`GET /api/v1/backup answered ${warm.status}`);
    const baseline = procStatusKb(service.pid).VmRSS;
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, procStatusKb(service.pid).VmRSS);
    }, SAMPLE_MS);
    let res;
    try {
      res = await download(service.port);
    } finally {
      clearInterval(sampler);
    }
    if (res.status !== 200) throw new Error(`GET /api/v1/backup answered ${res.status}`);
    report('bundle', `${mb(res.bytes / 1024)} in ${ms(res.ms)} (warm-up ${ms(warm.ms)})`);
    report('VmRSS before / peak', `${mb(baseline)} / ${mb(peak)}`);
    measured = { ms: res.ms, growthKb: peak - baseline };
    return measured;
  } finally {
    await stopChild(service);
  }
}

const backupTime = {
  name: 'backup-time',
  title: 'GET /api/v1/backup of a 10-year database (online copy, tar, gzip), built service',
  budget: { metric: 'wall time to the last byte', better: 'lower', limit: 10_000, unit: 'ms' },
  async run(report) {
    const m = await measure(report);
    return { value: m.ms, display: `${(m.ms / 1000).toFixed(2)} s` };
  },
};

const backupRss = {
  name: 'backup-rss',
  title: 'GET /api/v1/backup of the same database: peak service RSS growth while it streams',
  budget: { metric: 'peak VmRSS growth', better: 'lower', limit: 50, unit: 'MB' },
  async run(report) {
    const m = await measure(report);
    const value = m.growthKb / 1024;
    return { value, display: `${value.toFixed(1)} MB` };
  },
};

export default [backupTime, backupRss];
