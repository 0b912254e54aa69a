import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { REPO_ROOT, makeTempDir } from '../lib/harness.mjs';

/**
 * Season replays on the two shared station years (test/fixtures/seasons):
 * the real service modules on a simulated clock (dist/.../season-runner.js),
 * four zones (four-zones.toml), a perfect forecast, judged per zone against
 * the independent FAO-56 single-bucket reference (score/reference.js) over
 * the days after the first 14:
 *
 *   applied / ideal    0.90 .. 1.10
 *   stress days        <= 3   (a day that starts beyond RAW + 0.5 mm)
 *   wasted runs        <= 1   (a run on a day whose rain alone refilled the root zone)
 *
 * The benchmark's figure is the number of zone budgets missed (budget: none).
 * Also printed: the soil ledger's disk growth per zone-year (its table's
 * pages, read with SQLite's dbstat, over the zone-days it holds) and the
 * weather record's per year, and how long the replay took.
 */

const SEASONS = [
  { name: 'greeley', file: 'greeley-co-2022.wth', lon: -104.64, from: '2022-05-15', to: '2022-10-02' },
  { name: 'maricopa', file: 'maricopa-az-2013.wth', lon: -111.97, from: '2013-05-01', to: '2013-09-18' },
];
const RATIO = { min: 0.9, max: 1.1 };
const STRESS_MAX = 3;
const WASTED_MAX = 1;

const requireDist = createRequire(join(REPO_ROOT, 'dist/server/src/main.js'));

function loadDist() {
  try {
    return {
      runSeason: requireDist('./season/season-runner.js').runSeason,
      scoreSeason: requireDist('./season/score/score.js').scoreSeason,
      parseWth: requireDist('./season/wth.js').parseWth,
      parseToml: requireDist('./config/toml.js').parseToml,
      configSchema: requireDist('./config/schema.js').configSchema,
    };
  } catch (err) {
    throw new Error(`cannot load the compiled season replay (run \`npm run build\` first): ${err.message}`, {
      cause: err,
    });
  }
}

const fixture = (name) => readFileSync(join(REPO_ROOT, 'test/fixtures/seasons', name), 'utf8');
const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;

/** Bytes of a table and its indexes, from the dbstat virtual table. */
function tableBytes(db, table) {
  const rows = db.prepare('SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name').all();
  return rows
    .filter((r) => r.name === table || r.name.startsWith(`sqlite_autoindex_${table}`))
    .reduce((s, r) => s + r.bytes, 0);
}

function seasonBenchmark(season) {
  return {
    name: `season-${season.name}`,
    title:
      `Season replay, ${season.file} ${season.from}..${season.to}: the service's modules on a simulated clock, ` +
      'four zones, perfect forecast, against the ideal FAO-56 scheduler after the first 14 days',
    budget: {
      metric: 'zone budgets missed (applied/ideal 0.90-1.10, stress days <= 3, wasted runs <= 1)',
      better: 'lower',
      limit: 1,
      unit: '',
    },
    async run(report) {
      const dist = loadDist();
      const wth = dist.parseWth(fixture(season.file));
      const config = dist.configSchema.parse(dist.parseToml(fixture('four-zones.toml')));
      const dbPath = join(makeTempDir('raincheck-bench-season-'), 'season.db');
      const started = Date.now();
      const lines = await dist.runSeason({
        days: wth.days,
        config,
        lat: wth.latitude_deg,
        lon: season.lon,
        elevation_m: wth.elevation_m,
        from: season.from,
        to: season.to,
        forecast: 'perfect',
        dbPath,
      });
      const seconds = (Date.now() - started) / 1000;
      const scores = dist.scoreSeason(lines, wth.days, {
        latitude_deg: wth.latitude_deg,
        elevation_m: wth.elevation_m,
      });
      let missed = 0;
      for (const s of scores) {
        const ratioOk = s.ratio !== null && s.ratio >= RATIO.min && s.ratio <= RATIO.max;
        const stressOk = s.stress_days <= STRESS_MAX;
        const wastedOk = s.wasted_runs <= WASTED_MAX;
        missed += [ratioOk, stressOk, wastedOk].filter((ok) => !ok).length;
        report(
          s.zone,
          `applied/ideal ${s.ratio} (${s.applied_net_mm} / ${s.ideal_net_mm} mm net; budget 0.90-1.10)${ratioOk ? '' : ' MISSED'}, ` +
            `stress days ${s.stress_days} (budget <= ${STRESS_MAX})${stressOk ? '' : ' MISSED'}, ` +
            `wasted runs ${s.wasted_runs} (budget <= ${WASTED_MAX})${wastedOk ? '' : ' MISSED'}, ${s.runs} runs`,
        );
      }
      const applied = scores.reduce((a, s) => a + s.applied_net_mm, 0);
      const ideal = scores.reduce((a, s) => a + s.ideal_net_mm, 0);
      report(
        'site',
        `applied/ideal ${(applied / ideal).toFixed(3)} (${applied.toFixed(1)} / ${ideal.toFixed(1)} mm net over ${scores.length} zones), ` +
          `stress days ${scores.reduce((a, s) => a + s.stress_days, 0)}, wasted runs ${scores.reduce((a, s) => a + s.wasted_runs, 0)}`,
      );
      const db = new Database(dbPath, { readonly: true });
      const zoneDays = db.prepare('SELECT COUNT(*) FROM soil_ledger').pluck().get();
      const recordDays = db.prepare('SELECT COUNT(*) FROM weather_days').pluck().get();
      const ledger = tableBytes(db, 'soil_ledger');
      const record = tableBytes(db, 'weather_days');
      db.close();
      report(
        'ledger disk growth',
        `${kib((ledger / zoneDays) * 365)} per zone-year (${zoneDays} zone-days in ${kib(ledger)}); ` +
          `weather record ${kib((record / recordDays) * 365)} per year`,
      );
      report('replay', `${lines.length} zone-days written in ${seconds.toFixed(1)} s`);
      return {
        value: missed,
        display: `${missed} budgets missed; ${scores.map((s) => `${s.zone} ${s.ratio}`).join(', ')}`,
      };
    },
  };
}

/**
 * The same replays under a utility's two-days-a-week rule (`[[restrictions]]`
 * weekdays Tuesday and Friday, issue 28): the engine waters ahead of each
 * restricted stretch, up to field capacity and within each zone's run
 * ceiling. Budget: at most 5 stress days per zone. The figure is the most
 * stress days of any zone; each zone's line also shows its root zone (TAW,
 * RAW), which bounds what watering ahead can hold across a 3- and 4-day stretch.
 */
const TWO_DAY_RULE = { name: 'twice a week', weekdays: [2, 5] };
const TWO_DAY_STRESS_MAX = 5;

function twoDayRestrictionBenchmark(season) {
  return {
    name: `season-${season.name}-two-days`,
    title: `Season replay, ${season.file}, watering allowed on Tuesdays and Fridays only`,
    budget: {
      metric: 'most stress days of a zone',
      better: 'lower',
      limit: TWO_DAY_STRESS_MAX + 1,
      unit: 'days',
    },
    async run(report) {
      const dist = loadDist();
      const wth = dist.parseWth(fixture(season.file));
      const doc = { ...dist.parseToml(fixture('four-zones.toml')), restrictions: [TWO_DAY_RULE] };
      const lines = await dist.runSeason({
        days: wth.days,
        config: dist.configSchema.parse(doc),
        lat: wth.latitude_deg,
        lon: season.lon,
        elevation_m: wth.elevation_m,
        from: season.from,
        to: season.to,
        forecast: 'perfect',
        dbPath: join(makeTempDir('raincheck-bench-season-two-days-'), 'season.db'),
      });
      const site = { latitude_deg: wth.latitude_deg, elevation_m: wth.elevation_m };
      const scores = dist.scoreSeason(lines, wth.days, site);
      for (const s of scores) {
        const first = lines.find((l) => l.zone === s.zone);
        report(
          s.zone,
          `stress days ${s.stress_days} (budget <= ${TWO_DAY_STRESS_MAX})${s.stress_days <= TWO_DAY_STRESS_MAX ? '' : ' MISSED'}, ` +
            `applied/ideal ${s.ratio}, ${s.runs} runs, root zone TAW ${first?.taw_mm} mm / RAW ${first?.raw_mm} mm`,
        );
      }
      const worst = Math.max(...scores.map((s) => s.stress_days));
      return { value: worst, display: scores.map((s) => `${s.zone} ${s.stress_days}`).join(', ') };
    },
  };
}

export default [...SEASONS.map(seasonBenchmark), ...SEASONS.map(twoDayRestrictionBenchmark)];
