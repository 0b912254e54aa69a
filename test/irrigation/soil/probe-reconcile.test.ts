import { EventBus } from '../../../server/src/core/bus';
import { silentLogger } from '../../../server/src/core/logger';
import { ProbeCalibrationStore } from '../../../server/src/irrigation/soil/probe-calibration-store';
import { PROBE_STEP_FRACTION } from '../../../server/src/irrigation/soil/probe-state';
import { SoilLedgerService } from '../../../server/src/irrigation/soil/soil-ledger-service';
import type { Store } from '../../../server/src/store/store';
import { WeatherRecordService } from '../../../server/src/weather-record/weather-record-service';
import { tempStore } from '../../store/temp-db';
import { dateAt, forecast, local, NOW } from '../engine/fixtures';
import { appliedOf, plotConfig, seedWeather } from './plot-fixtures';

/**
 * The daily reconciliation of the ledger with a calibrated probe, on the
 * scripted plot (plot-fixtures.ts: TAW 26 mm, RAW 13 mm, ETc 3.556 mm/day;
 * without a probe -3's rain closes at 3.556, -2 at 7.112, -1 at 10.668).
 *
 * The probe (dry point 12 %, wet point 25 %: loam's wilting point and field
 * capacity) reads 12 % every night from -2: calibrated 0 %, depletion = TAW.
 * Each day the ledger's start moves toward it by at most 0.2 x TAW = 5.2 mm:
 *   -2: 3.556 + 5.2 = 8.756 (<= RAW, Ks 1): closes 12.312
 *   -1: 12.312 + 5.2 = 17.512, Ks = (26 - 17.512) / 13 = 0.65292: closes 17.512 + 2.3218 = 19.834
 */

const stores = tempStore();
const SENSOR = 'source:gw:soil_moisture_pct:1';
const applied = appliedOf(plotConfig({ soil_sensor_id: SENSOR }));

function ledgerOver(store: Store, now: number, learn = false): SoilLedgerService {
  const bus = new EventBus();
  const record = new WeatherRecordService({
    bus,
    clock: { nowMs: () => now * 1000 },
    logger: silentLogger(),
    config: () => applied,
    store,
    forecast: { snapshot: () => forecast({ past_daily: [] }), history: async () => null },
    modelledKinds: new Set(),
    stationDays: () => [],
  });
  const calibrations = new ProbeCalibrationStore(store.controls);
  return new SoilLedgerService({
    bus,
    logger: silentLogger(),
    config: () => applied,
    store,
    record,
    probeCalibration: (id) => calibrations.get(id),
    ...(learn
      ? {
          learnWetPoint: (id: string, raw: number, epoch: number) =>
            void calibrations.setPoint(id, 'wet', raw, 'ledger_refill', epoch),
        }
      : {}),
  });
}

function seedProbe(store: Store, raw: number): void {
  seedWeather(store);
  store.readings.insertMany(
    [-2, -1].map((d) => ({
      epoch: local(`${dateAt(d)}T01:00:00`),
      source_id: 'gw',
      field: 'soil_moisture_pct:1',
      value: raw,
    })),
  );
}

describe('daily reconciliation with a calibrated probe', () => {
  it('an uncalibrated probe (and no thresholds) leaves the ledger alone', () => {
    const store = stores.store();
    seedProbe(store, 12);
    const rows = ledgerOver(store, NOW).current(NOW).zones.get('plot')?.rows ?? [];
    expect(rows.slice(-3).map((r) => r.depletion_mm)).toEqual([3.556, 7.112, 10.668]);
    expect(rows.every((r) => r.detail.anchor === null)).toBe(true);
  });

  it('pulls the ledger toward the probe by a bounded step a day, and the row names the probe', () => {
    const store = stores.store();
    seedProbe(store, 12);
    const calibrations = new ProbeCalibrationStore(store.controls);
    calibrations.setPoint(SENSOR, 'dry', 12, 'owner', NOW - 86400 * 40);
    calibrations.setPoint(SENSOR, 'wet', 25, 'owner', NOW - 86400 * 40);
    const ledger = ledgerOver(store, NOW);
    const rows = ledger.current(NOW).zones.get('plot')?.rows ?? [];
    const [minus3, minus2, minus1] = rows.slice(-3);
    expect(minus3?.depletion_mm).toBe(3.556);
    expect(PROBE_STEP_FRACTION * 26).toBeCloseTo(5.2, 6);
    expect(minus2?.detail.anchor).toEqual({
      source: 'probe',
      depletion_mm: 8.756,
      probe_depletion_mm: 26,
      sensor_id: SENSOR,
    });
    expect(minus2?.depletion_mm).toBeCloseTo(12.312, 3);
    expect(minus1?.detail.anchor).toMatchObject({ depletion_mm: 17.512, probe_depletion_mm: 26 });
    expect(minus1?.depletion_mm).toBeCloseTo(19.834, 2);

    // A restart (a new service over the same store) computes the same rows and writes none.
    const before = store.soilLedger.range('plot', dateAt(-30), dateAt(-1));
    const restarted =
      ledgerOver(store, NOW + 3600)
        .current(NOW + 3600)
        .zones.get('plot')?.rows ?? [];
    expect(restarted).toEqual(rows);
    expect(store.soilLedger.range('plot', dateAt(-30), dateAt(-1))).toEqual(before);
  });

  it('a probe that agrees with the ledger changes nothing but the anchor', () => {
    const store = stores.store();
    // 25 - 13 x 7.112 / 26 = 21.444 %: the probe reads what the ledger carries into -1.
    store.readings.insertMany([
      {
        epoch: local(`${dateAt(-1)}T01:00:00`),
        source_id: 'gw',
        field: 'soil_moisture_pct:1',
        value: 21.444,
      },
    ]);
    seedWeather(store);
    const calibrations = new ProbeCalibrationStore(store.controls);
    calibrations.setPoint(SENSOR, 'dry', 12, 'owner', 0);
    calibrations.setPoint(SENSOR, 'wet', 25, 'owner', 0);
    const rows = ledgerOver(store, NOW).current(NOW).zones.get('plot')?.rows ?? [];
    expect(rows.at(-1)?.depletion_mm).toBeCloseTo(10.668, 2);
    expect(rows.at(-1)?.detail.anchor?.source).toBe('probe');
  });
});

describe('automatic calibration from a refill', () => {
  it("takes the probe's first reading after the newest day that drained as the wet point, once", () => {
    const store = stores.store();
    seedWeather(store);
    // -3's 2 in of rain drained and closed at 3.556 mm (<= 0.15 x TAW): -2's 01:00 reading is the wet point.
    store.readings.insertMany([
      { epoch: local(`${dateAt(-8)}T01:00:00`), source_id: 'gw', field: 'soil_moisture_pct:1', value: 31 },
      { epoch: local(`${dateAt(-2)}T01:00:00`), source_id: 'gw', field: 'soil_moisture_pct:1', value: 24.6 },
      { epoch: local(`${dateAt(-2)}T05:00:00`), source_id: 'gw', field: 'soil_moisture_pct:1', value: 24.1 },
    ]);
    const calibrations = new ProbeCalibrationStore(store.controls);
    ledgerOver(store, NOW, true).current(NOW);
    expect(calibrations.get(SENSOR)).toMatchObject({
      wet_raw_pct: 24.6,
      wet_origin: 'ledger_refill',
      dry_raw_pct: null,
    });
    // Learnt once: a later owner-free update leaves it (and its epoch) alone.
    const learnt = calibrations.get(SENSOR);
    ledgerOver(store, NOW + 7200, true).current(NOW + 7200);
    expect(calibrations.get(SENSOR)).toEqual(learnt);
  });

  it("never replaces the owner's wet point", () => {
    const store = stores.store();
    seedWeather(store);
    store.readings.insertMany([
      { epoch: local(`${dateAt(-2)}T01:00:00`), source_id: 'gw', field: 'soil_moisture_pct:1', value: 24.6 },
    ]);
    const calibrations = new ProbeCalibrationStore(store.controls);
    calibrations.setPoint(SENSOR, 'wet', 30, 'owner', 0);
    ledgerOver(store, NOW, true).current(NOW);
    expect(calibrations.get(SENSOR)).toMatchObject({ wet_raw_pct: 30, wet_origin: 'owner' });
  });
});
