import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { dayNumber, type IssuedDay } from '../forecast-file';
import { parseWth } from '../wth';
import {
  falseAlarmForecast,
  noisyForecast,
  perfectForecast,
  withOutage,
  type GenerateRange,
} from './forecasts';
import { dryWeather, injectGaps } from './weather-gaps';
import { formatWth } from './wth-writer';

/**
 * The season generators as commands (docs/irrigation.md, "Forecast and gap generators"):
 *
 *   npm run season:forecast -- --weather F.wth --mode perfect|noisy|false-alarm [--seed N]
 *     [--from D] [--to D] [--outage-from D --outage-days N] --out F.jsonl
 *   npm run season:weather -- --weather F.wth (--gaps [--seed N] | --dry) [--from D] [--to D] --out F.wth
 *
 * The first writes issued forecasts for `npm run season -- --forecast-file`,
 * the second a weather year with injected gap days (listed on stderr) or
 * without rain, for `npm run season -- --weather`.
 */

const USAGE = [
  'usage: season-generate forecast --weather F.wth --mode perfect|noisy|false-alarm [--seed N]',
  '         [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--outage-from YYYY-MM-DD --outage-days N] --out F.jsonl',
  '       season-generate weather --weather F.wth (--gaps [--seed N] | --dry) [--from D] [--to D] --out F.wth',
].join('\n');

class UsageError extends Error {}

function main(): number {
  const [command, ...args] = process.argv.slice(2);
  const { values } = parseArgs({
    args,
    options: {
      weather: { type: 'string' },
      mode: { type: 'string' },
      seed: { type: 'string', default: '1' },
      from: { type: 'string' },
      to: { type: 'string' },
      'outage-from': { type: 'string' },
      'outage-days': { type: 'string' },
      gaps: { type: 'boolean', default: false },
      dry: { type: 'boolean', default: false },
      out: { type: 'string' },
    },
  });
  if ((command !== 'forecast' && command !== 'weather') || !values.weather || !values.out)
    throw new UsageError(USAGE);
  const wth = parseWth(fs.readFileSync(values.weather, 'utf8'));
  const range = rangeOf(values.from ?? wth.days[0]?.date, values.to ?? wth.days.at(-1)?.date);
  const seed = integer(values.seed, '--seed');
  if (command === 'forecast') {
    let lines = forecastLines(values.mode, wth.days, range, seed);
    if (values['outage-from'] !== undefined || values['outage-days'] !== undefined) {
      const from = values['outage-from'];
      if (!from || dayNumber(from) === null) throw new UsageError('--outage-from must be YYYY-MM-DD');
      lines = withOutage(lines, from, integer(values['outage-days'], '--outage-days'));
    }
    fs.writeFileSync(values.out, lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
    process.stderr.write(`${lines.length} forecast lines written to ${values.out}\n`);
    return 0;
  }
  if (values.gaps === values.dry) throw new UsageError('weather: give exactly one of --gaps and --dry');
  const days = values.gaps ? injectGaps(wth.days, range, seed) : { days: dryWeather(wth.days), gaps: [] };
  for (const gap of days.gaps) process.stderr.write(`gap ${gap.date}: ${gap.kind}\n`);
  fs.writeFileSync(values.out, formatWth({ ...wth, days: days.days }));
  process.stderr.write(`${days.days.length} days written to ${values.out}\n`);
  return 0;
}

function forecastLines(
  mode: string | undefined,
  days: Parameters<typeof perfectForecast>[0],
  range: GenerateRange,
  seed: number,
): IssuedDay[] {
  if (mode === 'perfect') return perfectForecast(days, range);
  if (mode === 'noisy') return noisyForecast(days, range, seed);
  if (mode === 'false-alarm') return falseAlarmForecast(days, range);
  throw new UsageError('--mode must be perfect, noisy or false-alarm');
}

function rangeOf(from: string | undefined, to: string | undefined): GenerateRange {
  if (!from || !to || dayNumber(from) === null || dayNumber(to) === null || from > to)
    throw new UsageError('--from and --to must be YYYY-MM-DD, from <= to');
  return { from, to };
}

function integer(text: string | undefined, name: string): number {
  const n = Number(text);
  if (text === undefined || !Number.isInteger(n) || n < 0)
    throw new UsageError(`${name} must be an integer >= 0`);
  return n;
}

try {
  process.exitCode = main();
} catch (err) {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = err instanceof UsageError ? 2 : 1;
}
