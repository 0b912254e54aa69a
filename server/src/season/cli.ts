import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { configSchema } from '../config/schema';
import { parseForecastFile } from './forecast-file';
import { parseToml } from '../config/toml';
import { runSeason } from './season-runner';
import { scoreSeason } from './score/score';
import { parseWth } from './wth';

/**
 * `npm run season -- --weather FILE.wth --config FILE.toml [--lon DEG]
 *   [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--forecast perfect|none | --forecast-file FILE.jsonl]
 *   [--accept-recommendations] --out FILE.jsonl`
 *
 * What would Raincheck have done over a past season: the service's own
 * modules replay the station file day by day on a simulated clock and write
 * one JSON line per zone per day; a summary per zone (water applied against
 * an ideal FAO-56 scheduler, stress days, wasted runs) goes to stderr.
 * Location comes from the file (latitude, elevation) and --lon (else the
 * config's longitude). The config's zones and engine settings are used; its
 * sources and controllers are replaced (the file is the station, a dry-run
 * controller whose runs count as delivered water waters the zones).
 * `--forecast-file` replays issued forecasts (forecast-file.ts) instead of
 * the perfect one; `--accept-recommendations` applies each tuning
 * recommendation on the day it appears (accept-recommendations.ts).
 */

const USAGE =
  'usage: npm run season -- --weather FILE.wth --config FILE.toml [--lon DEG] ' +
  '[--from YYYY-MM-DD] [--to YYYY-MM-DD] [--forecast perfect|none | --forecast-file FILE.jsonl] ' +
  '[--accept-recommendations] --out FILE.jsonl';

async function main(): Promise<number> {
  const { values } = parseArgs({
    args: joinNegativeValues(process.argv.slice(2)),
    options: {
      weather: { type: 'string' },
      config: { type: 'string' },
      lon: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      forecast: { type: 'string' },
      'forecast-file': { type: 'string' },
      'accept-recommendations': { type: 'boolean', default: false },
      out: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help || !values.weather || !values.config || !values.out) return fail(USAGE);
  if (values.forecast !== undefined && values['forecast-file'] !== undefined)
    return fail('--forecast and --forecast-file exclude each other');
  const mode = values.forecast ?? 'perfect';
  if (mode !== 'perfect' && mode !== 'none') return fail('--forecast must be perfect or none');
  const forecast = values['forecast-file']
    ? parseForecastFile(fs.readFileSync(values['forecast-file'], 'utf8'))
    : mode;
  const wth = parseWth(fs.readFileSync(values.weather, 'utf8'));
  const config = configSchema.parse(parseToml(fs.readFileSync(values.config, 'utf8')));
  const lon = values.lon !== undefined ? Number(values.lon) : config.deployment.location.lon;
  if (!Number.isFinite(lon) || Math.abs(lon) > 180)
    return fail('--lon must be a longitude in degrees (east positive)');
  const from = values.from ?? wth.days[0]?.date;
  const to = values.to ?? wth.days.at(-1)?.date;
  if (!from || !to || !isDate(from) || !isDate(to) || from > to)
    return fail('--from and --to must be YYYY-MM-DD, from <= to');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'raincheck-season-'));
  const out = fs.createWriteStream(values.out);
  try {
    const lines = await runSeason({
      days: wth.days,
      config,
      lat: wth.latitude_deg,
      lon,
      elevation_m: wth.elevation_m,
      from,
      to,
      forecast,
      dbPath: path.join(dir, 'season.db'),
      acceptRecommendations: values['accept-recommendations'],
      onAccepted: (a) =>
        process.stderr.write(
          `${a.date} ${a.zone}: applied ${a.field} ${JSON.stringify(a.old_value)} -> ${JSON.stringify(a.new_value)}\n`,
        ),
      onLine: (line) => out.write(`${JSON.stringify(line)}\n`),
    });
    await new Promise<void>((resolve) => out.end(resolve));
    const site = { latitude_deg: wth.latitude_deg, elevation_m: wth.elevation_m };
    for (const s of scoreSeason(lines, wth.days, site)) {
      process.stderr.write(
        `${s.zone}: applied ${s.applied_net_mm} mm net vs ideal ${s.ideal_net_mm} mm (ratio ${s.ratio ?? 'n/a'}), ` +
          `${s.runs} runs, ${s.stress_days} stress days (${s.ledger_stress_days} on the ledger), ${s.wasted_runs} wasted runs (after the first 14 days)\n`,
      );
    }
    process.stderr.write(`${lines.length} lines written to ${values.out}\n`);
    return 0;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** `--lon -104.6` reads as two options to parseArgs: join a negative number to the option before it. */
function joinNegativeValues(args: string[]): string[] {
  const out: string[] = [];
  for (const arg of args) {
    const last = out.at(-1);
    if (/^-\d/.test(arg) && last?.startsWith('--') && !last.includes('='))
      out[out.length - 1] = `${last}=${arg}`;
    else out.push(arg);
  }
  return out;
}

function isDate(s: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(s);
}

function fail(message: string): number {
  process.stderr.write(`${message}\n`);
  return 2;
}

main().then(
  (code) => (process.exitCode = code),
  (err: unknown) => {
    process.stderr.write(`season: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
