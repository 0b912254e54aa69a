import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { makeTempDir, median, ms, REPO_ROOT, removeTempDir } from '../lib/harness.mjs';

/**
 * In-process: the compiled Store on a temp file holding a full-size forecast
 * archive, 2 tracks x 400 days x 24 target hours x 48 leads (921,600 rows),
 * written the way the service writes it: fetch by fetch (each hourly fetch of
 * each track archives its 48 leads), in transactions of about 20,000 rows.
 *
 * Timed through ForecastArchiveRepository.page(), the code the route runs,
 * each case warmed once and then the median of RUNS:
 *   - by target range over the whole 400 days: the first page, a middle page
 *     and the last page, reached by paging with the cursor from the start
 *     (a page must not cost more the further it is from `from`);
 *   - by lead_h: lead 0 and a middle lead (23), first page, and lead 23's
 *     second (last, 4,600-row) page via its cursor.
 * Each page is LIMIT 5,000 rows. The query plans of both statements are read
 * with EXPLAIN QUERY PLAN from the repository's own prepared SQL and must
 * search an index: a SCAN of the table or a temp b-tree sort fails the run.
 * Timing happens before VACUUM (a live archive is never vacuumed); size is
 * reported after a WAL checkpoint and again after VACUUM.
 */

const TRACKS = ['merged', 'gfs_seamless'];
const DAYS = 400;
const LEADS = 48;
const HOUR = 3600;
const PAGE = 5000;
const RUNS = 15;
const BATCH_ROWS = 20_000;
/** 2025-01-01T00:00Z: the first target hour. */
const FIRST_TARGET = 1_735_689_600;
const LAST_TARGET = FIRST_TARGET + (DAYS * 24 - 1) * HOUR;
const MIDDLE_LEAD = 23;

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

/** Fetch hour by fetch hour, both tracks, each fetch predicting leads 0..47 of the targets in range. */
function* batches() {
  let batch = [];
  for (let fetched = FIRST_TARGET - (LEADS - 1) * HOUR; fetched <= LAST_TARGET; fetched += HOUR) {
    for (const track of TRACKS) {
      for (let lead = 0; lead < LEADS; lead += 1) {
        const target = fetched + lead * HOUR;
        if (target < FIRST_TARGET || target > LAST_TARGET) continue;
        // Deterministic, varied values; some hours with no amount, as providers give.
        const n = (target / HOUR + lead * 7) % 97;
        batch.push({
          track,
          provider: 'open-meteo',
          model: track === 'merged' ? null : track,
          target_epoch: target,
          lead_h: lead,
          pop_pct: n % 11 === 0 ? null : n,
          precip_in: n % 13 === 0 ? null : n / 1000,
          fetched_at: fetched,
        });
      }
    }
    if (batch.length >= BATCH_ROWS) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/** Median wall time of `fn` over RUNS runs after one warm-up run; also returns the last result. */
function timed(fn) {
  let result = fn();
  const times = [];
  for (let i = 0; i < RUNS; i += 1) {
    const start = performance.now();
    result = fn();
    times.push(performance.now() - start);
  }
  return { ms: median(times), max: Math.max(...times), result };
}

/** The SQL the repository prepared; read from its statements so the plan is of the code that runs. */
function statementSql(archive, field) {
  const source = archive[field]?.source;
  if (typeof source !== 'string') throw new Error(`ForecastArchiveRepository.${field} has no SQL source`);
  return source;
}

const INDEXED = /^SEARCH forecast_archive USING (COVERING INDEX \S+|INDEX \S+|PRIMARY KEY) \(track=\?/;

/** Plan lines, and a failure message unless every step searches an index by track (no SCAN, no sort). */
function checkPlan(db, sql, params) {
  const stmt = db.prepare(`EXPLAIN QUERY PLAN ${sql}`);
  const names = new Set([...sql.matchAll(/@(\w+)/g)].map((m) => m[1]));
  const plan = stmt.all(Object.fromEntries(Object.entries(params).filter(([name]) => names.has(name))));
  const lines = plan.map((step) => step.detail);
  const bad = lines.filter((line) => !INDEXED.test(line));
  return { lines, failure: bad.length > 0 ? bad.join('; ') : null };
}

export default {
  name: 'forecast-archive',
  title: `Forecast archive pages of ${PAGE} rows, ${TRACKS.length} tracks x ${DAYS} days x ${LEADS} leads x 24 h`,
  budget: { metric: 'slowest page (median)', better: 'lower', limit: 50, unit: 'ms' },

  async run(report) {
    const { Store, silentLogger } = loadDist();
    const dir = makeTempDir();
    const file = join(dir, 'raincheck.db');
    const store = Store.open(file, silentLogger());
    try {
      const archive = store.forecastArchive;

      let rows = 0;
      const buildStart = performance.now();
      for (const batch of batches()) {
        archive.insertMany(batch);
        rows += batch.length;
      }
      const buildMs = performance.now() - buildStart;
      const expected = TRACKS.length * DAYS * 24 * LEADS;
      if (rows !== expected) throw new Error(`built ${rows} rows, expected ${expected}`);
      report(
        'build',
        `${rows.toLocaleString('en-US')} rows in ${(buildMs / 1000).toFixed(1)} s (${Math.round(rows / (buildMs / 1000)).toLocaleString('en-US')} rows/s, batches of ~${BATCH_ROWS.toLocaleString('en-US')})`,
      );

      const range = { track: 'merged', from: FIRST_TARGET, to: LAST_TARGET, limit: PAGE };

      // Plans first: a slow plan would make the timings below meaningless.
      // Every parameter either statement names; the values place the cursor mid-range.
      const midTarget = FIRST_TARGET + 200 * 24 * HOUR;
      const planParams = {
        track: 'merged',
        from: FIRST_TARGET,
        seek_from: midTarget,
        to: LAST_TARGET,
        lead_h: MIDDLE_LEAD,
        after_target: midTarget,
        after_lead: 5,
        after_fetched: midTarget - 5 * HOUR,
        limit: PAGE + 1,
      };
      const failures = [];
      for (const [label, field] of [
        ['plan, by target range', 'pageStmt'],
        ['plan, by lead_h', 'pageByLeadStmt'],
      ]) {
        const { lines, failure } = checkPlan(store.db, statementSql(archive, field), planParams);
        report(label, lines.join(' | '));
        if (failure) failures.push(`${label}: ${failure}`);
      }

      // Walk the whole range with the cursor once: every row, and the cursor of the middle page.
      const cursors = [null];
      let walked = 0;
      const walkTimes = [];
      for (;;) {
        const start = performance.now();
        const page = archive.page({ ...range, cursor: cursors.at(-1) });
        walkTimes.push(performance.now() - start);
        walked += page.rows.length;
        if (page.next_cursor === null) break;
        cursors.push(page.next_cursor);
      }
      const perTrack = rows / TRACKS.length;
      if (walked !== perTrack)
        throw new Error(`paging the range returned ${walked} rows, expected ${perTrack}`);
      report(
        'cold walk, whole range',
        `${cursors.length} pages, ${walked.toLocaleString('en-US')} rows, ${ms(walkTimes.reduce((a, b) => a + b, 0))} total, slowest page ${ms(Math.max(...walkTimes))}`,
      );
      const middleIndex = Math.floor(cursors.length / 2);

      const perLead = perTrack / LEADS;
      const leadFirst = archive.page({ ...range, lead_h: MIDDLE_LEAD });
      const lastIndex = cursors.length - 1;
      // [label, expected rows, page call]; the budget holds for every one of them.
      const cases = [
        ['range, first page', PAGE, () => archive.page(range)],
        [
          `range, middle page (#${middleIndex + 1} of ${cursors.length}, via cursor)`,
          PAGE,
          () => archive.page({ ...range, cursor: cursors[middleIndex] }),
        ],
        [
          `range, last page (#${lastIndex + 1}, via cursor)`,
          perTrack - lastIndex * PAGE,
          () => archive.page({ ...range, cursor: cursors[lastIndex] }),
        ],
        ['lead_h=0, first page', PAGE, () => archive.page({ ...range, lead_h: 0 })],
        [`lead_h=${MIDDLE_LEAD}, first page`, PAGE, () => archive.page({ ...range, lead_h: MIDDLE_LEAD })],
        [
          `lead_h=${MIDDLE_LEAD}, second and last page (via cursor)`,
          perLead - PAGE,
          () => archive.page({ ...range, lead_h: MIDDLE_LEAD, cursor: leadFirst.next_cursor }),
        ],
      ];
      let slowest = 0;
      for (const [label, rowsExpected, fn] of cases) {
        const { ms: med, max, result } = timed(fn);
        if (result.rows.length !== rowsExpected) {
          throw new Error(`${label}: ${result.rows.length} rows, expected ${rowsExpected}`);
        }
        slowest = Math.max(slowest, med);
        report(label, `${rowsExpected} rows, median ${ms(med)} (max ${ms(max)}, ${RUNS} warm runs)`);
      }

      const trackYears = TRACKS.length * (DAYS / 365);
      store.db.pragma('wal_checkpoint(TRUNCATE)');
      const checkpointed = statSync(file).size;
      const vacuumStart = performance.now();
      store.db.exec('VACUUM');
      store.db.pragma('wal_checkpoint(TRUNCATE)');
      const vacuumMs = performance.now() - vacuumStart;
      const vacuumed = statSync(file).size;
      const mib = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
      report(
        'size per track-year',
        `${mib(vacuumed / trackYears)} after VACUUM (file ${mib(vacuumed)}, ${(vacuumed / rows).toFixed(1)} B/row; VACUUM ${(vacuumMs / 1000).toFixed(1)} s)`,
      );
      report(
        '  before VACUUM, after checkpoint',
        `${mib(checkpointed / trackYears)} per track-year (file ${mib(checkpointed)})`,
      );

      // Retention is not budgeted, but it runs on this table too: show what one day's prune costs.
      const prunePlan = store.db
        .prepare(`EXPLAIN QUERY PLAN ${statementSql(archive, 'pruneStmt')}`)
        .all(FIRST_TARGET + 24 * HOUR);
      const pruneStart = performance.now();
      const pruned = archive.deleteTargetsBefore(FIRST_TARGET + 24 * HOUR);
      report(
        'retention prune of the oldest day (info)',
        `${pruned.toLocaleString('en-US')} rows in ${ms(performance.now() - pruneStart)}; plan: ${prunePlan.map((s) => s.detail).join(' | ')}`,
      );

      if (failures.length > 0) throw new Error(`query plan does not use an index: ${failures.join(' / ')}`);
      return { value: slowest, display: ms(slowest) };
    } finally {
      store.close();
      removeTempDir(dir);
    }
  },
};
