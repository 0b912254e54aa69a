import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { IssuedForecasts } from '../../server/src/season/forecast-file';
import { perfectForecast, withOutage } from '../../server/src/season/generate/forecasts';
import { runSeason, zoneFigures, type SeasonLine } from '../../server/src/season/season-runner';
import type { IrrigationSnapshot } from '../../server/src/irrigation/snapshot-schema';
import { readSeason, SEASONS, seasonZonesConfig } from './fixtures';

/**
 * A replay on issued forecasts (`--forecast-file`) through the engine: the
 * lines carry the water budget's forecast credit and source, and a provider
 * outage keeps the last forecast until its days have passed, after which the
 * engine has no forecast evidence (`unavailable`) until the next issue.
 */

jest.setTimeout(300_000);

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe('replay on an issued-forecast file with an outage', () => {
  let lines: SeasonLine[] = [];
  const range = { from: '2022-06-25', to: '2022-07-16' };
  beforeAll(async () => {
    const wth = readSeason('greeley');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'raincheck-season-file-'));
    dirs.push(dir);
    // Issued every day but 2022-07-02..07-12 (11 days): the 07-01 issue covers 07-01..07-07.
    const issued = withOutage(perfectForecast(wth.days, range), '2022-07-02', 11);
    lines = await runSeason({
      days: wth.days,
      config: seasonZonesConfig(),
      lat: wth.latitude_deg,
      lon: SEASONS.greeley.lon,
      elevation_m: wth.elevation_m,
      ...range,
      forecast: new IssuedForecasts(issued),
      dbPath: path.join(dir, 'season.db'),
    });
  });

  const sources = (from: string, to: string) =>
    new Set(lines.filter((l) => l.date >= from && l.date <= to).map((l) => l.forecast_credit_source));

  it('writes the forecast credit, its source and the allowance (null while the engine reports none) on every line', () => {
    expect(lines.length).toBe(22 * 4);
    for (const l of lines) {
      expect(typeof l.forecast_credit_mm).toBe('number');
      expect(['bias_forecast', 'none', 'unavailable']).toContain(l.forecast_credit_source);
      expect(l.allowance_mm === null || typeof l.allowance_mm === 'number').toBe(true);
    }
  });

  it('serves the last forecast through the first outage days, then none once its days have passed', () => {
    expect(sources('2022-06-25', '2022-07-01').has('unavailable')).toBe(false);
    expect(sources('2022-07-02', '2022-07-04').has('unavailable')).toBe(false);
    expect(sources('2022-07-08', '2022-07-12')).toEqual(new Set(['unavailable']));
    expect(sources('2022-07-13', '2022-07-16').has('unavailable')).toBe(false);
  });
});

describe('zoneFigures', () => {
  const snapshot = (math: Record<string, unknown>) =>
    ({
      zones: [
        { slug: 'front', math },
        { slug: 'back', math: {} },
      ],
      water_budgets: [
        { forecast_credit_mm: 2.5, forecast_credit_source: 'bias_forecast' },
        { forecast_credit_mm: 0, forecast_credit_source: 'unavailable' },
      ],
    }) as unknown as IrrigationSnapshot;

  it("pairs each zone with its water budget row and reads the math's allowance only when it is a number", () => {
    const figures = zoneFigures(snapshot({ allowance_mm: 14.2 }));
    expect(figures.get('front')).toEqual({
      forecast_credit_mm: 2.5,
      forecast_credit_source: 'bias_forecast',
      allowance_mm: 14.2,
    });
    expect(figures.get('back')).toEqual({
      forecast_credit_mm: 0,
      forecast_credit_source: 'unavailable',
      allowance_mm: null,
    });
    expect(zoneFigures(snapshot({ allowance_mm: 'n/a' })).get('front')?.allowance_mm).toBeNull();
    expect(zoneFigures(null).size).toBe(0);
  });
});
