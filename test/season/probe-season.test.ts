import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SOIL_CATALOG } from '../../server/src/agronomy/catalogs/soil';
import { SPECIES_CATALOG } from '../../server/src/agronomy/catalogs/species';
import { SPRINKLER_CATALOG } from '../../server/src/agronomy/catalogs/sprinklers';
import { configSchema } from '../../server/src/config/schema';
import { ProbeCalibrationStore } from '../../server/src/irrigation/soil/probe-calibration-store';
import { PROBE_HOLD_CODE } from '../../server/src/irrigation/soil/probe-hold';
import {
  runSeason,
  seasonConfig,
  type SeasonLine,
  type SeasonOptions,
} from '../../server/src/season/season-runner';
import { silentLogger } from '../../server/src/core/logger';
import type { SoilLedgerRow } from '../../server/src/store/soil-ledger';
import { Store } from '../../server/src/store/store';
import { readSeason, SEASONS } from './fixtures';
import { yardProbe, type ProbedTruth } from './yard';

/**
 * A season replay with a synthetic probe track (Greeley 2022, 1 July to
 * 15 August). The yard's probe (yard.ts `yardProbe`) reads the truth each
 * night at 00:05: a tall-fescue root zone on loam that, unlike the config's
 * full sun, gets half the sun, so the configured ledger dries faster than
 * the soil and drifts (too dry). The probe is calibrated as a careful owner
 * would: dry point = loam's wilting point (12 %), wet point = its field
 * capacity (25 %), so a reading r stands for D = TAW x (25 - r) / 13. The
 * zone's hold threshold (`saturation_pct_soil`) is 23.5 %: the night after
 * a soak the probe reads within a day's use of field capacity, above it.
 *
 * The same season runs twice, with and without the probe wiring: the
 * calibrated probe pulls the drifted ledger back toward the soil (its
 * closing depletion stays near what the probe reads the next night), and
 * the wet probe holds the zone (`soil_probe_wet`) after its soaks.
 */

jest.setTimeout(600_000);

const SENSOR_FIELD = 'soil_moisture_pct:1';
const SENSOR = `source:yard:${SENSOR_FIELD}`;
const LOAM = SOIL_CATALOG.loam;
const CE = 0.7;
const ROTOR = SPRINKLER_CATALOG.rotor.precip_rate_mm_hr;
const ROOT_MM = SPECIES_CATALOG.tall_fescue.root_depth_mm;
const TAW = (LOAM.field_capacity - LOAM.wilting_point) * ROOT_MM;
const FROM = '2022-07-01';
const TO = '2022-08-15';

const truth: ProbedTruth = {
  source_id: 'yard',
  field: SENSOR_FIELD,
  species: 'tall_fescue',
  texture: 'loam',
  root_depth_mm: ROOT_MM,
  mad: SPECIES_CATALOG.tall_fescue.mad,
  sun_factor: 0.5,
  precip_rate_mm_hr: ROTOR,
};

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

interface Replay {
  lines: SeasonLine[];
  /** The ledger's stored rows of the replay. */
  rows: SoilLedgerRow[];
  /** The probe's reading of each night, by date. */
  readings: Map<string, number>;
}

async function replay(withProbes: boolean): Promise<Replay> {
  const wth = readSeason('greeley');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'raincheck-probe-season-'));
  dirs.push(dir);
  const config = configSchema.parse({
    schema_version: 2,
    deployment: { location: { lat: 0, lon: 0 } },
    engine: { capture_efficiency: CE, soil_probe_offline_minutes: 1440 },
    zones: {
      probed: {
        display_name: 'Probed lawn',
        species: 'tall_fescue',
        soil_texture: 'loam',
        sprinkler_type: 'rotor',
        sun_exposure: 'full',
        area_sqft: 1500,
        max_run_minutes: 240,
        soil_sensor_id: SENSOR,
        saturation_pct_soil: 23.5,
      },
    },
  });
  const placed: Pick<SeasonOptions, 'config' | 'lat' | 'lon' | 'elevation_m'> = {
    config,
    lat: wth.latitude_deg,
    lon: SEASONS.greeley.lon,
    elevation_m: wth.elevation_m,
  };
  const timezone = seasonConfig(placed).deployment.timezone as string;
  const probe = yardProbe({
    zones: { probed: truth },
    weather: wth.days,
    site: { latitude_deg: wth.latitude_deg, elevation_m: wth.elevation_m },
    timezone,
    captureEfficiency: CE,
  });
  const readings = new Map<string, number>();
  const lines = await runSeason({
    ...placed,
    days: wth.days,
    from: FROM,
    to: TO,
    forecast: 'perfect',
    dbPath: path.join(dir, 'season.db'),
    soilProbes: withProbes,
    atDayStart: (day) => {
      if (day.date === FROM) {
        const calibrations = new ProbeCalibrationStore(day.store.controls);
        calibrations.setPoint(SENSOR, 'dry', LOAM.wilting_point * 100, 'owner', day.epoch);
        calibrations.setPoint(SENSOR, 'wet', LOAM.field_capacity * 100, 'owner', day.epoch);
      }
      probe(day);
      const written = day.store.readings.listRecent(day.epoch + 1, 1, SENSOR_FIELD).at(-1);
      if (written) readings.set(day.date, written.value);
    },
  });
  const store = Store.open(path.join(dir, 'season.db'), silentLogger());
  const rows = store.soilLedger.range('probed', FROM, TO);
  store.close();
  return { lines: lines.filter((l) => l.zone === 'probed'), rows, readings };
}

/** What the probe's reading of a night stands for: D = TAW x (FC - r) / (FC - WP). */
function probeDepletion(reading: number): number {
  return (TAW * (LOAM.field_capacity * 100 - reading)) / ((LOAM.field_capacity - LOAM.wilting_point) * 100);
}

/**
 * Mean |the ledger's start-of-day depletion - what the probe read that night| over the last 30
 * days: how far the ledger's idea of the morning soil is from the soil.
 */
function meanGap(r: Replay): number {
  const gaps: number[] = [];
  for (const row of r.rows.slice(-30)) {
    const [lo, hi] = row.detail.start_range_mm;
    const reading = r.readings.get(row.date_local);
    if (lo === hi && reading !== undefined) gaps.push(Math.abs(lo - probeDepletion(reading)));
  }
  expect(gaps.length).toBeGreaterThan(20);
  return gaps.reduce((a, b) => a + b, 0) / gaps.length;
}

let withProbe: Replay;
let withoutProbe: Replay;

beforeAll(async () => {
  withoutProbe = await replay(false);
  withProbe = await replay(true);
});

it('a calibrated probe pulls the drifted ledger back toward the soil', () => {
  const drifted = meanGap(withoutProbe);
  const reconciled = meanGap(withProbe);
  if (process.env.PROBE_FIGURES) {
    console.log({ drifted, reconciled, taw: TAW });
  }
  // Without the probe the full-sun ledger runs well ahead of the shaded soil.
  const anchored = withProbe.rows.filter((row) => row.detail.anchor?.source === 'probe');
  expect(anchored.length).toBeGreaterThan(30);
  expect(anchored[0]?.detail.anchor).toMatchObject({ sensor_id: SENSOR });
  expect(drifted).toBeGreaterThan(0.1 * TAW);
  expect(reconciled).toBeLessThan(drifted / 2);
});

it('the wet probe holds the zone after its soaks, and the hold clears', () => {
  const held = withProbe.lines.filter((l) => l.reason_code === PROBE_HOLD_CODE);
  expect(held.length).toBeGreaterThan(0);
  for (const line of held) {
    expect(line.planned_seconds).toBe(0);
    expect(line.reason).toMatch(/at or above the zone's saturation threshold \(23\.5 %\)/);
  }
  // The hold clears: the first day the probe reads below the threshold after a held day is not held.
  const lines = withProbe.lines;
  const cleared = lines.filter(
    (l, i) =>
      i > 0 &&
      lines[i - 1]?.reason_code === PROBE_HOLD_CODE &&
      (withProbe.readings.get(l.date) ?? 100) < 23.5,
  );
  expect(cleared.length).toBeGreaterThan(0);
  for (const line of cleared) expect(line.reason_code).not.toBe(PROBE_HOLD_CODE);
  expect(cleared.some((l) => l.irrigation_seconds > 0)).toBe(true);
  // Without the wiring nothing holds.
  expect(withoutProbe.lines.some((l) => l.reason_code === PROBE_HOLD_CODE)).toBe(false);
});
