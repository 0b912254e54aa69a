import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DateTime } from 'luxon';
import { SPECIES_CATALOG, monthlyKc, type Species } from '../../server/src/agronomy/catalogs/species';
import { SPRINKLER_CATALOG } from '../../server/src/agronomy/catalogs/sprinklers';
import { configSchema, type RaincheckConfig } from '../../server/src/config/schema';
import { ManualClock } from '../../server/src/core/clock';
import { silentLogger } from '../../server/src/core/logger';
import { zoneFor } from '../../server/src/core/tz/zone';
import { monthOf } from '../../server/src/irrigation/engine/et0-days';
import { storeEvidenceProviders } from '../../server/src/irrigation/tuning/evidence-source';
import { TuningService, type TuningReport } from '../../server/src/irrigation/tuning/tuning-service';
import type { ZoneEntry } from '../../server/src/irrigation/tuning/zone-entry';
import {
  runSeason,
  seasonConfig,
  type SeasonLine,
  type SeasonOptions,
} from '../../server/src/season/season-runner';
import { penmanMonteith } from '../../server/src/season/score/reference';
import { Store } from '../../server/src/store/store';
import { readSeason, SEASONS, type SeasonName } from './fixtures';
import { probeCalibration, yardMeter, yardProbe, type ProbedTruth } from './yard';

/**
 * The learning loop over a season of recorded history: each shared station
 * year is replayed once (season-runner.ts, the service's own modules on a
 * simulated clock) through zones whose config is deliberately off, while the
 * yard's instruments (yard.ts) read the truth: a flow meter measuring the
 * heads' real rate, a soil probe in a root zone twice or half as deep as
 * configured. The tuning report at the end of the replay (30 days) must
 * recommend each change from its evidence, in the right direction and near
 * the truth, and nothing for the zone configured right.
 */

jest.setTimeout(600_000);

const WINDOW_DAYS = 30;
const CE = 0.7;
const AREA_SQFT = 1500;
const ROTOR = SPRINKLER_CATALOG.rotor.precip_rate_mm_hr;

interface Case {
  name: SeasonName;
  from: string;
  species: Species;
  /** meter_off: the configured rate, and the heads' real one. */
  meter: { configured: number; truth: number; sprinkler: 'rotor' | 'spray' };
  /** weekly_off: the configured budget. */
  weeklyBudgetIn: number;
  /** probe_off: the configured root depth, and the real one. */
  probe: { configured: number; truth: number };
}

const CASES: Case[] = [
  {
    name: 'greeley',
    from: '2022-07-01',
    species: 'tall_fescue',
    meter: { configured: 20, truth: ROTOR, sprinkler: 'rotor' },
    weeklyBudgetIn: 0.5,
    probe: { configured: 150, truth: 300 },
  },
  {
    name: 'maricopa',
    from: '2013-06-15',
    species: 'bermuda',
    meter: { configured: 30, truth: SPRINKLER_CATALOG.spray.precip_rate_mm_hr, sprinkler: 'spray' },
    weeklyBudgetIn: 3.5,
    probe: { configured: 400, truth: 200 },
  },
];

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

const figures: string[] = [];
afterAll(() => {
  if (process.env.TUNING_FIGURES) process.stdout.write(`${figures.join('\n')}\n`);
});

function probeTruth(c: Case, zone: string, rootDepth: number): ProbedTruth {
  return {
    source_id: 'yard',
    field: `soil_moisture_pct:${zone}`,
    species: c.species,
    texture: 'loam',
    root_depth_mm: rootDepth,
    mad: SPECIES_CATALOG[c.species].mad,
    sun_factor: 1,
    precip_rate_mm_hr: ROTOR,
  };
}

/** The zones: four deliberately off, one right; all on loam in full sun. */
function zonesOf(c: Case): { config: RaincheckConfig; probes: Record<string, ProbedTruth> } {
  const probes = {
    probe_off: probeTruth(c, 'probe_off', c.probe.truth),
    tuned: probeTruth(c, 'tuned', SPECIES_CATALOG[c.species].root_depth_mm),
  };
  const base = {
    species: c.species,
    soil_texture: 'loam',
    sprinkler_type: 'rotor',
    sun_exposure: 'full',
    area_sqft: AREA_SQFT,
    max_run_minutes: 240,
  };
  const config = configSchema.parse({
    schema_version: 2,
    deployment: { location: { lat: 0, lon: 0 } },
    engine: { capture_efficiency: CE },
    zones: {
      meter_off: {
        ...base,
        display_name: 'Wrong sprinkler rate, metered',
        sprinkler_type: c.meter.sprinkler,
        precip_rate_mm_hr: c.meter.configured,
      },
      cap_low: { ...base, display_name: 'Rain cap too low', rain_credit_cap_in: 0.1 },
      weekly_off: {
        ...base,
        display_name: 'Weekly budget off',
        scheduling_model: 'weekly',
        weekly_budget_in: c.weeklyBudgetIn,
        sessions_per_week: 3,
      },
      probe_off: {
        ...base,
        display_name: 'Wrong root depth, probed',
        root_depth_mm: c.probe.configured,
        ...probeCalibration(probes.probe_off),
      },
      tuned: { ...base, display_name: 'Configured right', ...probeCalibration(probes.tuned) },
    },
  });
  return { config, probes };
}

interface Replayed {
  report: TuningReport;
  lines: SeasonLine[];
  timezone: string;
}

async function replay(c: Case): Promise<Replayed> {
  const wth = readSeason(c.name);
  const season = SEASONS[c.name];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'raincheck-tuning-season-'));
  dirs.push(dir);
  const { config, probes } = zonesOf(c);
  const site = { latitude_deg: wth.latitude_deg, elevation_m: wth.elevation_m };
  const placed: Pick<SeasonOptions, 'config' | 'lat' | 'lon' | 'elevation_m'> = {
    config,
    lat: wth.latitude_deg,
    lon: season.lon,
    elevation_m: wth.elevation_m,
  };
  const applied = seasonConfig(placed);
  const timezone = applied.deployment.timezone as string;
  const lines = await runSeason({
    ...placed,
    days: wth.days,
    from: c.from,
    to: season.to,
    forecast: 'perfect',
    dbPath: path.join(dir, 'season.db'),
    meter: yardMeter({
      meter_off: { precip_rate_mm_hr: c.meter.truth, area_sqft: AREA_SQFT },
      tuned: { precip_rate_mm_hr: ROTOR, area_sqft: AREA_SQFT },
    }),
    atDayStart: yardProbe({ zones: probes, weather: wth.days, site, timezone, captureEfficiency: CE }),
  });
  // The recorded history is the replay's database: the report reads it as the service would.
  const store = Store.open(path.join(dir, 'season.db'), silentLogger());
  const end = DateTime.fromISO(season.to, { zone: zoneFor(timezone) }).plus({ days: 1, minutes: 10 });
  const tuning = new TuningService({
    store,
    clock: new ManualClock(end.toMillis()),
    config: {
      current: { config: applied, document: {}, appliedAtEpoch: 0, revision: 1 },
      update: () => Promise.reject(new Error('read-only replay')),
    },
    timezone: () => timezone,
    rainThresholdIn: () => 0.25,
    restartReasons: () => [],
    providers: storeEvidenceProviders(store),
  });
  const report = tuning.report(WINDOW_DAYS);
  store.close();
  if (process.env.TUNING_FIGURES)
    fs.writeFileSync(`/tmp/tuning-${c.name}.json`, JSON.stringify(report, null, 2));
  return { report, lines, timezone };
}

function entry(report: TuningReport, slug: string): ZoneEntry {
  const found = report.zones.find((z) => z.slug === slug);
  if (!found) throw new Error(`no zone ${slug} in the report`);
  return found;
}

function windowDates(r: Replayed): string[] {
  return [...new Set(r.lines.map((l) => l.date))].sort().slice(-WINDOW_DAYS);
}

describe.each(CASES)('tuning over the $name season', (c) => {
  let r: Replayed;
  beforeAll(async () => {
    r = await replay(c);
  });

  it('measures the sprinkler rate from the flow meter and stamps it measured', () => {
    const zone = entry(r.report, 'meter_off');
    expect(zone.status).toBe('recommendation');
    const rec = zone.recommendation;
    expect(rec).toMatchObject({
      field: 'precip_rate_mm_hr',
      current_value: c.meter.configured,
      companion_fields: [{ field: 'precip_rate_source', value: 'measured' }],
    });
    expect(['medium', 'high']).toContain(rec?.confidence);
    const suggested = rec?.suggested_value as number;
    expect(Math.sign(suggested - c.meter.configured)).toBe(Math.sign(c.meter.truth - c.meter.configured));
    expect(Math.abs(suggested / c.meter.truth - 1)).toBeLessThan(0.03);
    expect(rec?.evidence.some((l) => /\d{4}-\d{2}-\d{2}: [\d.]+ gal\/min metered/.test(l))).toBe(true);
    figures.push(
      `${c.name} precip_rate_mm_hr: ${c.meter.configured} -> ${suggested} (truth ${c.meter.truth})`,
    );
  });

  it('raises a rain cap that discarded rain the root zone had room for, naming the dates', () => {
    const zone = entry(r.report, 'cap_low');
    const rec = zone.recommendation;
    expect(rec).toMatchObject({ field: 'rain_credit_cap_in', current_value: 0.1 });
    const suggested = rec?.suggested_value as number | null;
    const capMm = suggested === null ? Infinity : suggested * 25.4;
    expect(capMm).toBeGreaterThan(0.1 * 25.4);
    // Against the replay's own lines: the new cap gives back what the old one discarded while there was room.
    const dates = new Set(windowDates(r));
    const days = r.lines.filter((l) => l.zone === 'cap_low' && dates.has(l.date) && (l.rain_mm ?? 0) > 2.54);
    expect(days.length).toBeGreaterThanOrEqual(2);
    const room = (l: SeasonLine) => Math.max(0, (l.start_depletion_mm ?? 0) - l.irrigation_net_mm);
    const lost = days.reduce((s, l) => s + Math.max(0, Math.min(l.rain_mm as number, room(l)) - 2.54), 0);
    const kept = days.reduce(
      (s, l) => s + Math.max(0, Math.min(l.rain_mm as number, room(l), capMm) - 2.54),
      0,
    );
    expect(lost).toBeGreaterThan(1);
    expect(kept / lost).toBeGreaterThanOrEqual(0.95);
    for (const l of days.filter((d) => Math.min(d.rain_mm as number, room(d)) - 2.54 >= 0.5)) {
      expect(rec?.evidence.some((e) => e.startsWith(`${l.date}:`))).toBe(true);
    }
    figures.push(
      `${c.name} rain_credit_cap_in: 0.1 -> ${suggested} (gives back ${Math.round((kept / lost) * 100)} % of the ${lost.toFixed(1)} mm discarded with room)`,
    );
  });

  it('sets the weekly budget the ET record supports', () => {
    const zone = entry(r.report, 'weekly_off');
    const rec = zone.recommendation;
    expect(rec).toMatchObject({ field: 'weekly_budget_in', current_value: c.weeklyBudgetIn });
    const suggested = rec?.suggested_value as number;
    // The truth: the reference's own Penman-Monteith ET0 x Kc over the window, net of the rain the zone credits.
    const wth = readSeason(c.name);
    const site = { latitude_deg: wth.latitude_deg, elevation_m: wth.elevation_m };
    const byDate = new Map(wth.days.map((d) => [d.date, d]));
    const taw = r.lines.find((l) => l.zone === 'weekly_off')?.taw_mm as number;
    let etc = 0;
    let rain = 0;
    const dates = windowDates(r);
    for (const date of dates) {
      const w = byDate.get(date);
      if (!w) throw new Error(`no weather for ${date}`);
      etc +=
        (penmanMonteith(w, date, site) as number) * monthlyKc(c.species, monthOf(date), site.latitude_deg);
      rain += Math.min(w.rain_mm ?? 0, taw);
    }
    const perWeek = 7 / dates.length;
    const net = Math.max(0, etc - rain) * perWeek;
    const truthIn = (Math.min(rain * perWeek, etc * perWeek) + net / CE) / 25.4;
    expect(Math.sign(suggested - c.weeklyBudgetIn)).toBe(Math.sign(truthIn - c.weeklyBudgetIn));
    expect(Math.abs(suggested / truthIn - 1)).toBeLessThan(0.05);
    figures.push(
      `${c.name} weekly_budget_in: ${c.weeklyBudgetIn} -> ${suggested} (truth ${truthIn.toFixed(3)})`,
    );
  });

  it("fits the root depth to the probe's drying and refill curves", () => {
    const zone = entry(r.report, 'probe_off');
    const rec = zone.recommendation;
    expect(rec).toMatchObject({ field: 'root_depth_mm', current_value: c.probe.configured });
    const suggested = rec?.suggested_value as number;
    expect(Math.sign(suggested - c.probe.configured)).toBe(Math.sign(c.probe.truth - c.probe.configured));
    expect(Math.abs(suggested / c.probe.truth - 1)).toBeLessThan(0.1);
    expect(rec?.evidence.some((l) => l.startsWith('Refills: the morning after'))).toBe(true);
    figures.push(`${c.name} root_depth_mm: ${c.probe.configured} -> ${suggested} (truth ${c.probe.truth})`);
  });

  it('recommends nothing for the zone configured right, and says each field was judged', () => {
    const zone = entry(r.report, 'tuned');
    expect(zone).toMatchObject({ status: 'ok', recommendation: null });
    expect(
      zone.lines.some((l) => /^Sprinkler rate: .* within 10 % of the [\d.]+ mm\/h in use\.$/.test(l)),
    ).toBe(true);
    expect(zone.lines.some((l) => /^Root depth: .* fits\.$/.test(l))).toBe(true);
    expect(zone.lines.some((l) => l.startsWith('Rain credit cap: '))).toBe(true);
  });

  it('shows at most one recommendation per zone, each with checkable evidence', () => {
    for (const z of r.report.zones) {
      if (z.recommendation) {
        expect(z.recommendation.evidence.length).toBeGreaterThan(1);
        expect(z.recommendation.id).toMatch(/^[0-9a-f]{16}$/);
      }
    }
    expect(r.report.zones.filter((z) => z.status === 'recommendation').map((z) => z.slug)).toEqual([
      'meter_off',
      'cap_low',
      'weekly_off',
      'probe_off',
    ]);
  });
});
