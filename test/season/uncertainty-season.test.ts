import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { IssuedForecasts } from '../../server/src/season/forecast-file';
import { falseAlarmForecast } from '../../server/src/season/generate/forecasts';
import { dryWeather } from '../../server/src/season/generate/weather-gaps';
import type { ForecastMode } from '../../server/src/season/season-weather';
import { runSeason, type SeasonLine } from '../../server/src/season/season-runner';
import { scoreSeason } from '../../server/src/season/score/score';
import type { WthDay } from '../../server/src/season/wth';
import { readSeason, SEASONS, seasonZonesConfig } from './fixtures';

/**
 * The decision policy under uncertainty (policy/forecast-policy.ts) over
 * stretches of the Greeley 2022 station year, through the real service modules:
 * - with no forecast at all the yard still waters, within its budgets;
 * - a forecast that promises 14 mm at 80 % every day over a dry summer is
 *   soon not trusted: no zone spends more than a few days past RAW;
 * - a kill -9 and restart on every day changes no decision, the forecast's
 *   recorded skill included (it is judged from persisted decisions).
 */

jest.setTimeout(600_000);

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

const WINDOW = { from: '2022-06-15', to: '2022-08-10' };
const wth = readSeason('greeley');
const site = { latitude_deg: wth.latitude_deg, elevation_m: wth.elevation_m };

function replay(forecast: ForecastMode, days: WthDay[], restartOn?: string[]): Promise<SeasonLine[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'raincheck-uncertainty-'));
  dirs.push(dir);
  return runSeason({
    days,
    config: seasonZonesConfig(),
    lat: wth.latitude_deg,
    lon: SEASONS.greeley.lon,
    elevation_m: wth.elevation_m,
    ...WINDOW,
    forecast,
    dbPath: path.join(dir, 'season.db'),
    ...(restartOn ? { restartOn } : {}),
  });
}

const everyDay = (lines: SeasonLine[]) => [...new Set(lines.map((l) => l.date))].slice(1);

describe('no forecast at all', () => {
  let lines: SeasonLine[] = [];
  beforeAll(async () => {
    lines = await replay('none', wth.days);
  });

  it('waters due zones on local evidence: credit 0 from source unavailable, applied/ideal 0.85..1.15, at most 5 stress days', () => {
    expect(lines.every((l) => l.forecast_credit_mm === 0 && l.forecast_credit_source === 'unavailable')).toBe(
      true,
    );
    for (const s of scoreSeason(lines, wth.days, site)) {
      expect({ zone: s.zone, ok: s.ratio !== null && s.ratio >= 0.85 && s.ratio <= 1.15 }).toEqual({
        zone: s.zone,
        ok: true,
      });
      expect({ zone: s.zone, stress: s.stress_days <= 5 }).toEqual({ zone: s.zone, stress: true });
    }
    expect(lines.some((l) => /no forecast: watered on local evidence/.test(l.reason))).toBe(true);
    expect(lines.some((l) => l.reason_code === 'forecast_unavailable')).toBe(false);
  });

  it('a kill -9 and restart on every day changes no decision', async () => {
    const restarted = await replay('none', wth.days, everyDay(lines));
    expect(restarted).toEqual(lines);
  });
});

describe('a forecast that promises rain every day over a dry summer', () => {
  const dry = dryWeather(wth.days);
  const falseAlarm = () =>
    new IssuedForecasts(falseAlarmForecast(dry, { from: '2022-05-01', to: WINDOW.to }));
  let lines: SeasonLine[] = [];
  beforeAll(async () => {
    lines = await replay(falseAlarm(), dry);
  });

  it('earns no trust: applied/ideal at least 0.85 and at most 5 stress days per zone; credit is never applied water', () => {
    for (const s of scoreSeason(lines, dry, site)) {
      expect({ zone: s.zone, ratio: s.ratio !== null && s.ratio >= 0.85 }).toEqual({
        zone: s.zone,
        ratio: true,
      });
      expect({ zone: s.zone, stress: s.stress_days }).toEqual({ zone: s.zone, stress: expect.any(Number) });
      expect(s.stress_days).toBeLessThanOrEqual(5);
    }
    // The ledger takes measured rain only: the promised rain never reaches it.
    expect(lines.every((l) => l.rain_mm === 0 || l.rain_mm === null)).toBe(true);
    expect(lines.every((l) => l.rain_credited_mm === 0 || l.rain_credited_mm === null)).toBe(true);
  });

  it('no reason contradicts its numbers: a zone called not due starts its day at or below RAW, and one waiting for rain within its allowance', () => {
    for (const l of lines.filter((x) => x.reason_code === 'not_due' && x.start_depletion_mm !== null))
      expect({ date: l.date, zone: l.zone, ok: (l.start_depletion_mm as number) <= l.raw_mm + 1e-6 }).toEqual(
        {
          date: l.date,
          zone: l.zone,
          ok: true,
        },
      );
    for (const l of lines.filter((x) => /waiting for rain/.test(x.reason)))
      expect((l.start_depletion_mm ?? Infinity) <= (l.allowance_mm ?? -Infinity)).toBe(true);
    expect(lines.every((l) => !/-\d+(\.\d+)? (in|mm) by then/.test(l.reason))).toBe(true);
  });

  it('a kill -9 and restart on every day changes no decision (the skill is judged from persisted decisions)', async () => {
    const restarted = await replay(falseAlarm(), dry, everyDay(lines));
    expect(restarted).toEqual(lines);
  });
});
