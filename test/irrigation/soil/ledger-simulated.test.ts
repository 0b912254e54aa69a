import { tempStore } from '../../store/temp-db';
import { dateAt, local, NOW, run } from '../engine/fixtures';
import { appliedOf, plotConfig, plotServices, seedWeather } from './plot-fixtures';

/**
 * The persisted soil ledger and the demo's simulated water (the plot of
 * ledger-season.test.ts, hand-computed there): a simulated dry-run row of
 * 1800 s on day -10 waters the plot as 7 mm net only under a demo config
 * (25.529 -> 20.573 at the day's end), with the day's evidence `simulated`;
 * under a real config the same row is nothing (25.529 dries on to
 * 26 - 0.471 x 0.726462 = 25.658), and switching the config replays the days.
 */

const stores = tempStore();
const at = local(`${dateAt(-10)}T05:00:00`);
const simulatedRow = run({
  zone: 'plot',
  start_epoch: at,
  duration_s: 1800,
  source: 'dry_run',
  evidence: 'simulated',
});

function configWith(demo: boolean) {
  const config = plotConfig();
  return { ...config, features: { ...config.features, demo_mode: demo } };
}

function dayMinus10(demo: boolean, store = stores.store()) {
  const { ledger } = plotServices(store, appliedOf(configWith(demo)));
  ledger.current(NOW);
  return { store, row: ledger.rows('plot', dateAt(-10), dateAt(-10))[0] };
}

describe("the soil ledger and the demo's simulated water", () => {
  it('waters the demo plot, labelled simulated', () => {
    const store = stores.store();
    seedWeather(store);
    store.runs.insert(simulatedRow);
    const { row } = dayMinus10(true, store);
    expect(row).toMatchObject({
      irrigation_seconds: 1800,
      irrigation_gross_mm: 10,
      irrigation_net_mm: 7,
      irrigation_evidence: 'simulated',
    });
    expect(row?.depletion_mm).toBeCloseTo(20.573, 3);
  });

  it('is nothing under a real config, and a switch of demo mode replays the stored days', () => {
    const store = stores.store();
    seedWeather(store);
    store.runs.insert(simulatedRow);
    expect(dayMinus10(true, store).row?.depletion_mm).toBeCloseTo(20.573, 3);
    const real = dayMinus10(false, store).row;
    expect(real).toMatchObject({
      irrigation_seconds: 0,
      irrigation_gross_mm: 0,
      irrigation_evidence: 'none',
    });
    expect(real?.depletion_mm).toBeCloseTo(25.658, 3);
    expect(dayMinus10(true, store).row?.depletion_mm).toBeCloseTo(20.573, 3);
  });

  it("a dry-run row a dry-run controller wrote (commanded) never waters, not even the demo's plot", () => {
    const store = stores.store();
    seedWeather(store);
    store.runs.insert({ ...simulatedRow, evidence: 'commanded' });
    const { row } = dayMinus10(true, store);
    expect(row?.irrigation_seconds).toBe(0);
    expect(row?.depletion_mm).toBeCloseTo(25.658, 3);
  });
});
