import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { REPO_ROOT, makeTempDir } from './harness.mjs';

/**
 * The season benchmark's cases (bench/benchmarks/season.mjs), each run by
 * one child process (season-case-worker.mjs): a case is named by its season
 * and id, and everything it replays (forecast file, gaps, dry year) is
 * generated from that name by the seeded generators, so a child rebuilds it
 * exactly.
 */

export const SEASONS = [
  {
    name: 'greeley',
    file: 'greeley-co-2022.wth',
    lon: -104.64,
    from: '2022-05-15',
    to: '2022-10-02',
    outage: '2022-07-11',
  },
  {
    name: 'maricopa',
    file: 'maricopa-az-2013.wth',
    lon: -111.97,
    from: '2013-05-01',
    to: '2013-09-18',
    outage: '2013-07-08',
  },
];
export const OUTAGE_DAYS = 7;
export const OUTAGE_EXTRA_STRESS = 3;
export const CAP_STRESS_MAX = 5;
const NOISY_SEEDS = [1, 2, 3];
const GAP_SEED = 1;

/**
 * Tall fescue on loam under MP rotators with a 60-minute cap (issue 25's
 * example): a session delivers about 7 mm net, less than a desert summer
 * day draws, so the cap binds at peak.
 */
const CAP_ZONE = {
  schema_version: 2,
  deployment: { location: { lat: 0, lon: 0 } },
  zones: {
    mp_fescue: {
      display_name: 'Tall fescue (MP rotators, 60 min cap)',
      species: 'tall_fescue',
      soil_texture: 'loam',
      sprinkler_type: 'mp_rotator',
      sun_exposure: 'full',
      max_run_minutes: 60,
    },
  },
};

const requireDist = createRequire(join(REPO_ROOT, 'dist/server/src/main.js'));

function loadDist() {
  try {
    return {
      runSeason: requireDist('./season/season-runner.js').runSeason,
      scoreSeason: requireDist('./season/score/score.js').scoreSeason,
      parseWth: requireDist('./season/wth.js').parseWth,
      parseToml: requireDist('./config/toml.js').parseToml,
      configSchema: requireDist('./config/schema.js').configSchema,
      IssuedForecasts: requireDist('./season/forecast-file.js').IssuedForecasts,
      forecasts: requireDist('./season/generate/forecasts.js'),
      gaps: requireDist('./season/generate/weather-gaps.js'),
    };
  } catch (err) {
    throw new Error(`cannot load the compiled season replay (run \`npm run build\` first): ${err.message}`, {
      cause: err,
    });
  }
}

const fixture = (name) => readFileSync(join(REPO_ROOT, 'test/fixtures/seasons', name), 'utf8');

/** The four-zone cases of a year, in order, with their budgets (ratio [lo, hi], stress, wasted). */
export function yearCases(season) {
  return [
    { id: 'perfect', ratio: [0.9, 1.1], stress: 3, wasted: 1 },
    { id: 'no forecast', ratio: [0.85, 1.15], stress: 5 },
    ...NOISY_SEEDS.map((seed) => ({
      id: `noisy seed ${seed}`,
      seed,
      ratio: [0.9, 1.15],
      stress: 5,
      wasted: 3,
    })),
    { id: 'false alarm, dry year', ratio: [0.85, Infinity], stress: 5 },
    { id: 'gap days', ratio: [0.85, 1.15], stress: 5 },
    { id: `outage ${OUTAGE_DAYS} d from ${season.outage}`, outage: true, versus: 'noisy seed 1' },
  ];
}

/** What a case replays: its weather days, forecast, config, and the truth it is scored against. */
function inputsOf(dist, wth, season, spec) {
  const range = { from: season.from, to: season.to };
  const issued = (lines) => new dist.IssuedForecasts(lines);
  const fourZones = () => dist.configSchema.parse(dist.parseToml(fixture('four-zones.toml')));
  if (spec.cap)
    return { config: dist.configSchema.parse(CAP_ZONE), forecast: 'perfect', accept: spec.accept };
  const c = yearCases(season).find((x) => x.id === spec.id);
  if (!c) throw new Error(`no season case "${spec.id}"`);
  const base = { config: fourZones(), forecast: 'perfect' };
  if (c.id === 'no forecast') return { ...base, forecast: 'none' };
  if (c.seed) return { ...base, forecast: issued(dist.forecasts.noisyForecast(wth.days, range, c.seed)) };
  if (c.id.startsWith('false alarm')) {
    const dry = dist.gaps.dryWeather(wth.days);
    // The truth is the dry year: rain promised every day, none falls.
    return {
      ...base,
      days: dry,
      truth: dry,
      forecast: issued(dist.forecasts.falseAlarmForecast(dry, range)),
    };
  }
  if (c.id === 'gap days') {
    const gapped = dist.gaps.injectGaps(wth.days, range, GAP_SEED);
    // The forecast knows nothing of the station's gaps; the score's truth is the year without them.
    return {
      ...base,
      days: gapped.days,
      gaps: gapped.gaps.length,
      forecast: issued(dist.forecasts.perfectForecast(wth.days, range)),
    };
  }
  if (c.outage) {
    const noisy = dist.forecasts.noisyForecast(wth.days, range, 1);
    return { ...base, forecast: issued(dist.forecasts.withOutage(noisy, season.outage, OUTAGE_DAYS)) };
  }
  return base;
}

/** Runs one case in this process: its scores per zone and a few figures about the replay. */
export async function runCase(spec) {
  const dist = loadDist();
  const season = SEASONS.find((s) => s.name === spec.season);
  const wth = dist.parseWth(fixture(season.file));
  const input = inputsOf(dist, wth, season, spec);
  const dbPath = join(makeTempDir('raincheck-bench-season-'), 'season.db');
  const started = Date.now();
  const lines = await dist.runSeason({
    days: input.days ?? wth.days,
    config: input.config,
    lat: wth.latitude_deg,
    lon: season.lon,
    elevation_m: wth.elevation_m,
    from: season.from,
    to: season.to,
    forecast: input.forecast,
    dbPath,
    acceptRecommendations: input.accept ?? false,
  });
  const seconds = (Date.now() - started) / 1000;
  const site = { latitude_deg: wth.latitude_deg, elevation_m: wth.elevation_m };
  const scores = dist.scoreSeason(lines, input.truth ?? wth.days, site);
  return {
    scores,
    seconds,
    gaps: input.gaps ?? null,
    capped: lines.filter((l) => l.session_capped).length,
    watered: lines.filter((l) => l.planned_seconds > 0).length,
    disk: spec.id === 'perfect' ? diskGrowth(dbPath) : null,
  };
}

/** The soil ledger's and weather record's bytes per stored day (SQLite's dbstat). */
function diskGrowth(dbPath) {
  const db = new Database(dbPath, { readonly: true });
  const tableBytes = (table) =>
    db
      .prepare('SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name')
      .all()
      .filter((r) => r.name === table || r.name.startsWith(`sqlite_autoindex_${table}`))
      .reduce((s, r) => s + r.bytes, 0);
  const out = {
    zoneDays: db.prepare('SELECT COUNT(*) FROM soil_ledger').pluck().get(),
    recordDays: db.prepare('SELECT COUNT(*) FROM weather_days').pluck().get(),
    ledgerBytes: tableBytes('soil_ledger'),
    recordBytes: tableBytes('weather_days'),
  };
  db.close();
  return out;
}
