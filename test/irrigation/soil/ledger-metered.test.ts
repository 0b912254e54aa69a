import { volumeGalOfDepth } from '../../../server/src/agronomy/catalogs/units';
import type { ZoneConfig } from '../../../server/src/config/schema';
import { recordedWater, type MeteredWater } from '../../../server/src/irrigation/dispatch/water-amount';
import { computeIrrigation } from '../../../server/src/irrigation/engine/engine';
import type { RunRecord, RunSource } from '../../../server/src/store/runs';
import { tempStore } from '../../store/temp-db';
import { dateAt, day, forecast, input, local, NOW, run } from '../engine/fixtures';
import { appliedOf, plotConfig, plotServices, seedWeather } from './plot-fixtures';

/**
 * Metered water through the persisted soil ledger and the engine: a run whose
 * meter read less than its seconds x rate credits what the meter read, once,
 * and the row says which basis it used. The run rows are written the way the
 * dispatcher and the observer write them (water-amount.ts `recordedWater`).
 *
 * The plot is 20 mm/h: 1800 s is 10 mm gross by rate, 7 mm net (x 0.7). Its
 * 1000 sq ft meter reads 8 mm's worth: 8 mm gross, 5.6 mm net. On day -10
 * the zone starts at 25.529 mm (ledger-season.test.ts).
 */

const stores = tempStore();
const AREA = 1000;
const AT = local(`${dateAt(-10)}T05:00:00`);
const METER: MeteredWater = {
  volume_gal: volumeGalOfDepth(8, AREA),
  mean_flow_gpm: volumeGalOfDepth(8, AREA) / 30,
};

/** A finished row as the run ledger records it, from its evidence. */
function finished(
  zone: ZoneConfig,
  source: RunSource,
  meter: MeteredWater | null,
  seconds = 1800,
): RunRecord {
  const water = recordedWater(zone, seconds, 'observed', meter);
  return run({
    zone: 'plot',
    start_epoch: AT,
    duration_s: seconds,
    source,
    applied_mm: water.applied_mm,
    volume_gal: water.volume_gal,
    evidence: water.evidence,
    mean_flow_gpm: water.mean_flow_gpm,
  });
}

function ledgerDay(zoneFields: Record<string, unknown>, rows: (zone: ZoneConfig) => RunRecord[]) {
  const config = plotConfig(zoneFields);
  const zone = config.zones['plot'] as ZoneConfig;
  const { store, ledger } = plotServices(stores.store(), appliedOf(config));
  seedWeather(store);
  for (const r of rows(zone)) store.runs.insert(r);
  ledger.current(NOW);
  const row = ledger.rows('plot', dateAt(-10), dateAt(-10))[0];
  if (!row) throw new Error('no ledger row for day -10');
  return row;
}

describe('metered water in the soil ledger', () => {
  it("credits a metered run's volume over the area where seconds x rate would say otherwise", () => {
    const row = ledgerDay({ area_sqft: AREA }, (zone) => [finished(zone, 'ha_refresher', METER)]);
    expect(row).toMatchObject({
      irrigation_seconds: 1800,
      irrigation_evidence: 'metered',
      irrigation_basis: 'meter',
    });
    // The run ledger keeps the volume to 0.1 gal (0.002 mm over 1000 sq ft).
    expect(row.irrigation_gross_mm).toBeCloseTo(8, 2);
    expect(row.irrigation_net_mm).toBeCloseTo(5.6, 2);
    expect(row.detail.irrigation_metered_gal).toBeCloseTo(METER.volume_gal, 1);
    // 25.529 - 5.6 = 19.929 after the water, before the day's ETc.
    expect(row.detail.after_water_range_mm[0]).toBeCloseTo(19.929, 2);
  });

  it("credits a metered run once: the request row and the observer's hardware row both carry the meter", () => {
    const row = ledgerDay({ area_sqft: AREA }, (zone) => [
      finished(zone, 'manual:req1', METER),
      finished(zone, 'ha_refresher', METER),
    ]);
    expect(row).toMatchObject({ irrigation_seconds: 1800, irrigation_basis: 'meter' });
    expect(row.irrigation_gross_mm).toBeCloseTo(8, 2);
  });

  it('credits the meter once when only the hardware row carries the reading', () => {
    const row = ledgerDay({ area_sqft: AREA }, (zone) => [
      finished(zone, 'manual:req1', null),
      finished(zone, 'ha_refresher', METER),
    ]);
    expect(row).toMatchObject({ irrigation_basis: 'meter', irrigation_evidence: 'observed' });
    expect(row.irrigation_gross_mm).toBeCloseTo(8, 2);
  });

  it('reckons by rate, and says so, without an area', () => {
    const noArea = ledgerDay({}, (zone) => [finished(zone, 'ha_refresher', METER)]);
    expect(noArea).toMatchObject({ irrigation_gross_mm: 10, irrigation_basis: 'rate' });
    expect(noArea.detail.irrigation_metered_gal).toBeNull();
  });

  it('reckons by rate without a meter reading', () => {
    const noMeter = ledgerDay({ area_sqft: AREA }, (zone) => [finished(zone, 'ha_refresher', null)]);
    expect(noMeter).toMatchObject({ irrigation_gross_mm: 10, irrigation_basis: 'rate' });
  });

  it('replays the zone when its area changes (the metered depth depends on it)', () => {
    const config = plotConfig({ area_sqft: AREA });
    const zone = config.zones['plot'] as ZoneConfig;
    const store = stores.store();
    seedWeather(store);
    store.runs.insert(finished(zone, 'ha_refresher', METER));
    plotServices(store, appliedOf(config)).ledger.current(NOW);
    const halved = plotServices(store, appliedOf(plotConfig({ area_sqft: AREA * 2 }))).ledger;
    halved.current(NOW);
    expect(halved.rows('plot', dateAt(-10), dateAt(-10))[0]?.irrigation_gross_mm).toBeCloseTo(4, 2);
  });

  it("the engine counts today's and the week's metered water the same way", () => {
    const config = plotConfig({ area_sqft: AREA });
    const zone = config.zones['plot'] as ZoneConfig;
    const today = local(`${dateAt(0)}T05:00:00`);
    const runs = [
      { ...finished(zone, 'manual:req1', METER), start_epoch: today },
      { ...finished(zone, 'ha_refresher', METER), start_epoch: today },
    ];
    const out = computeIrrigation(
      input({ config, runs, forecast: forecast({ daily: Array.from({ length: 10 }, (_, i) => day(i)) }) }),
    );
    const budget = out.snapshot.water_budgets[0] as Record<string, unknown>;
    expect(budget['applied_mm']).toBeCloseTo(8, 1);
    const trace = JSON.stringify(out.snapshot.decision_trace);
    expect(trace).toMatch(/"kind":"applied_today"[^}]*"net_irrigation_mm":5\.6/);
  });
});
