import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DateTime } from 'luxon';
import { demoConfig } from '../../server/src/config/demo-config';
import { configSchema } from '../../server/src/config/schema';
import { silentLogger } from '../../server/src/core/logger';
import { ManualClock } from '../../server/src/core/clock';
import { zoneFor } from '../../server/src/core/tz/zone';
import { DemoForecastProvider } from '../../server/src/forecast/providers/demo';
import { IssuedForecasts, type IssuedDay } from '../../server/src/season/forecast-file';
import { runSeason, type SeasonLine } from '../../server/src/season/season-runner';
import { Store } from '../../server/src/store/store';
import type { WthDay } from '../../server/src/season/wth';
import { demoWeatherAt, isStormDay } from '../../server/src/weather/sources/demo/demo-replay';

/**
 * Rule 8: the demo yard (its six zones, its weather, its realistic forecast
 * that misses storms and promises rain that never falls) run for two weeks on a
 * simulated clock through the season replay as the live demo runs
 * (`demoYard`: demo mode on, the dry-run controller's routes left simulated),
 * so its runs water the synthetic yard only as the demo's do, labelled
 * `simulated` on the run rows and the soil ledger. No zone ends a day past its
 * stress allowance (`zones[].math.allowance_mm`).
 */

jest.setTimeout(120_000);

const { lat, lon, elevation_m } = { lat: 28.5383, lon: -81.3792, elevation_m: 30 };
const TZ = 'America/New_York';
// The dry spell after the cycle's third storm (2026-11-17), then the next cycle's storms (27th, 30th) with the
// forecast's hits, misses and false promises around them: two weeks, more than the week the issue asks for.
const FROM = '2026-11-19';
const TO = '2026-12-02';
const FIRST_DAY = '2026-07-01';

function localDays(from: string, to: string): string[] {
  const days: string[] = [];
  for (let d = DateTime.fromISO(from); d.toISODate()! <= to; d = d.plus({ days: 1 }))
    days.push(d.toISODate()!);
  return days;
}

/** The demo replay's day as a station file's row: extremes, means and the day's rain. */
function demoDay(date: string): WthDay {
  const start = DateTime.fromISO(date, { zone: zoneFor(TZ) }).toSeconds();
  const samples = Array.from({ length: 144 }, (_, i) => demoWeatherAt(start + i * 600 + 300, TZ));
  const values = (field: string) => samples.map((s) => s[field] as number);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const toC = (f: number) => ((f - 32) * 5) / 9;
  return {
    date,
    srad_mj_m2: (mean(values('solar_w_m2')) * 86_400) / 1e6,
    tmax_c: toC(Math.max(...values('air_temp_f'))),
    tmin_c: toC(Math.min(...values('air_temp_f'))),
    vapr_kpa: null,
    tdew_c: null,
    rh_max_pct: Math.max(...values('rh_pct')),
    rh_min_pct: Math.min(...values('rh_pct')),
    // The station's wind, brought to 2 m by FAO-56 eq. 47 from 10 m.
    wind_2m_ms: mean(values('wind_avg_mph')) * 0.44704 * 0.748,
    rain_mm: demoWeatherAt(start + 86_399, TZ).rain_in_today! * 25.4,
    etref_mm: null,
    measured: true,
  };
}

/** What the demo forecast said each morning of the week (leads 0..6), as issued forecasts. */
async function demoIssues(from: string, to: string): Promise<IssuedForecasts> {
  const lines: IssuedDay[] = [];
  for (const issued of localDays(from, to)) {
    const at = DateTime.fromISO(`${issued}T06:00`, { zone: zoneFor(TZ) }).toMillis();
    const provider = new DemoForecastProvider('demo', new ManualClock(at));
    const forecast = await provider.fetch({
      lat,
      lon,
      elevationM: elevation_m,
      timezone: TZ,
      pastDays: 1,
      forecastDays: 7,
    });
    for (const day of forecast.daily.filter((d) => d.date_local >= issued)) {
      lines.push({
        issued,
        target: day.date_local,
        precip_mm: day.precip_sum_in === null ? null : day.precip_sum_in * 25.4,
        precip_probability: day.precip_probability_max,
      });
    }
  }
  return new IssuedForecasts(lines);
}

/** The demo yard's two weeks as the live demo runs them; `restartOn`: dates of a kill -9 and restart at 00:05. */
function demoWeek(
  forecast: IssuedForecasts,
  dbPath: string,
  restartOn: string[] = [],
): Promise<SeasonLine[]> {
  return runSeason({
    days: localDays(FIRST_DAY, TO).map(demoDay),
    config: configSchema.parse(demoConfig(null, null)),
    lat,
    lon,
    elevation_m,
    from: FROM,
    to: TO,
    forecast,
    dbPath,
    demoYard: true,
    restartOn,
  });
}

const dayNumber = (date: string) => Math.floor(Date.parse(`${date}T00:00:00Z`) / 86_400_000);

it('the demo yard goes through two weeks of its realistic forecast with no zone past its allowance', async () => {
  const issues = await demoIssues(FROM, TO);
  // The week is a real test of the policy: the forecast promised rain that never fell.
  const falsePromises = issues
    .lines()
    .filter((l) => l.target <= TO && !isStormDay(dayNumber(l.target)) && (l.precip_mm ?? 0) > 5);
  expect(falsePromises.length).toBeGreaterThan(0);

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'raincheck-demo-week-'));
  const lines = await demoWeek(issues, path.join(dir, 'season.db'));
  const lastDay = lines.filter((l) => l.date === TO);
  expect(lastDay.map((l) => l.zone).sort()).toEqual([
    'back_lawn',
    'front_lawn',
    'shade_bed',
    'side_strip',
    'vegetables',
    'xeriscape',
  ]);
  // Not only at the end: no day of the week closed past it.
  for (const l of lines) {
    expect(l.allowance_mm).toEqual(expect.any(Number));
    const closing = l.depletion_mm ?? l.depletion_range_mm?.[1] ?? null;
    expect({
      day: l.date,
      zone: l.zone,
      within: closing !== null && closing <= (l.allowance_mm as number),
    }).toEqual({ day: l.date, zone: l.zone, within: true });
  }
  // And it watered: the dry week was not simply waited out on the promised rain.
  const watered = lines.filter((l) => l.irrigation_net_mm > 0);
  expect(watered.length).toBeGreaterThan(0);
  // The demo's water is simulated and says so: on the ledger's days and on every run row, never a
  // real yard's applied water (no amounts on the rows, the source a dry run).
  expect(new Set(watered.map((l) => l.irrigation_evidence))).toEqual(new Set(['simulated']));
  const store = Store.open(path.join(dir, 'season.db'), silentLogger());
  try {
    const runs = store.runs.listWindow(0, 4_102_444_800).filter((r) => r.status === 'completed');
    expect(runs.length).toBeGreaterThan(0);
    for (const r of runs) {
      expect({ source: r.source, evidence: r.evidence, applied_mm: r.applied_mm }).toEqual({
        source: 'dry_run',
        evidence: 'simulated',
        applied_mm: null,
      });
    }
  } finally {
    store.close();
  }
  // The policy did bet on forecast rain, and lost some bets: credit on a day that stayed dry.
  expect(lines.some((l) => (l.forecast_credit_mm ?? 0) > 0 && l.rain_mm === 0)).toBe(true);
  fs.rmSync(dir, { recursive: true, force: true });
});

it("a kill -9 and restart during the demo's dry spell changes no decision and no day of its simulated water", async () => {
  const issues = await demoIssues(FROM, TO);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'raincheck-demo-restart-'));
  const decisions = (lines: SeasonLine[]) =>
    lines.map((l) => ({
      date: l.date,
      zone: l.zone,
      reason_code: l.reason_code,
      planned_seconds: l.planned_seconds,
      irrigation_seconds: l.irrigation_seconds,
      irrigation_evidence: l.irrigation_evidence,
      depletion_mm: l.depletion_mm,
    }));
  const straight = await demoWeek(issues, path.join(dir, 'straight.db'));
  const restarted = await demoWeek(issues, path.join(dir, 'restarted.db'), [
    '2026-11-21',
    '2026-11-23',
    '2026-11-24',
  ]);
  expect(straight.some((l) => l.irrigation_evidence === 'simulated')).toBe(true);
  expect(decisions(restarted)).toEqual(decisions(straight));
  fs.rmSync(dir, { recursive: true, force: true });
});
