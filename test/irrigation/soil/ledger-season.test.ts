import { computeIrrigation } from '../../../server/src/irrigation/engine/engine';
import { irrigationSnapshotSchema } from '../../../server/src/irrigation/snapshot-schema';
import { tempStore } from '../../store/temp-db';
import { dateAt, day, forecast, input, local, NOW, run } from '../engine/fixtures';
import { appliedOf, plotConfig, plotServices, recordDay, seedWeather } from './plot-fixtures';

/**
 * A scripted 30-day season for one zone through the persisted soil ledger and
 * then the engine, checked against hand arithmetic.
 *
 * Zone "plot": species `other` (flat Kc 0.70, no dormancy), loam
 * (FC 0.25, WP 0.12 -> 130 mm/m), root depth 200 mm, MAD 50 %, full sun,
 * 20 mm/h, rain cap 5 in (127 mm), max run 120 min. ET0 by `source_native`
 * (the record's 0.2 in = 5.08 mm every day).
 *
 *   TAW = 130 x 0.200 = 26 mm; RAW = 0.5 x 26 = 13 mm; ETc = 0.70 x 5.08 = 3.556 mm/day
 *   net irrigation of 1800 s = 0.5 h x 20 mm/h x 0.7 = 7 mm
 *
 * Each day: water in first (FAO-56 Example 38 order), beyond field capacity
 * drains, then ETc adj = Ks x ETc with Ks = 1 up to RAW and (26 - D) / 13
 * beyond (eq. 84). Past RAW a dry day therefore leaves
 * 26 - D_i = (26 - D_i-1) x (1 - 3.556 / 13) = (26 - D_i-1) x 0.726462.
 *
 *   -30  3.0 in model rain (76.2 mm): the unknown start [0, 26] is filled (76.2 >= 26): known 0,
 *        drains, then ETc: D = 3.556
 *   -29..-27 dry: 7.112, 10.668, 14.224
 *   -26  26 - 11.776 x 0.726462 = 17.445; -25 19.785; -24 21.485; -23 22.720; -22 23.617
 *   -21  gauge 0.5 in (12.7 mm; the model says 0, the station wins): 23.617 - 12.7 = 10.917 <= RAW,
 *        Ks 1: D = 14.473
 *   -20..-11 dry: 17.626 ... 25.529 (Ks falls to 0.05: the plot is close to wilting)
 *   -10  irrigation 05:00 for 1800 s (a manual row and the observed ha_refresher row overlap
 *        exactly: union 1800 s; a dry_run row the same morning is ignored): 25.529 - 7 = 18.529,
 *        Ks = (26 - 18.529) / 13 = 0.5747: D = 18.529 + 2.044 = 20.573
 *   -9   2.0 in (50.8 mm): drains 50.8 - 20.573 = 30.227, D = 3.556
 *   -8..-4 dry: 7.112, 10.668, 14.224, 17.445, 19.785
 *   -3   2.0 in: drains 31.015, D = 3.556
 *   -2, -1 dry: 7.112, 10.668
 * Today starts at 10.668 (the closing state of -1). Without water, tomorrow's session would find
 * 10.668 + 3.556 = 14.224 >= RAW 13: due today. Refill to field capacity: 10.668 mm net =
 * ceil(10.668 / (20 x 0.7) x 3600) = ceil(2743.2) = 2744 s.
 */

const stores = tempStore();

const config = plotConfig();
const applied = appliedOf(config);

function services() {
  return plotServices(stores.store(), applied);
}

const irrigationAt = local(`${dateAt(-10)}T05:00:00`);
const runs = [
  run({ zone: 'plot', start_epoch: irrigationAt, duration_s: 1800, source: 'manual:req1' }),
  run({ zone: 'plot', start_epoch: irrigationAt, duration_s: 1800, source: 'ha_refresher' }),
  run({ zone: 'plot', start_epoch: irrigationAt, duration_s: 1800, source: 'dry_run' }),
];

function seed(store: ReturnType<typeof services>['store']): void {
  seedWeather(store);
  for (const r of runs) store.runs.insert(r);
}

describe('30-day season through the persisted soil ledger, hand-computed', () => {
  it.each([
    [-30, 3.556],
    [-27, 14.224],
    [-26, 17.445],
    [-22, 23.617],
    [-21, 14.473],
    [-11, 25.529],
    [-10, 20.573],
    [-9, 3.556],
    [-4, 19.785],
    [-3, 3.556],
    [-1, 10.668],
  ])('end of day %i: depletion %f mm', (offset, expected) => {
    const { store, ledger } = services();
    seed(store);
    ledger.current(NOW);
    const row = ledger.rows('plot', dateAt(offset), dateAt(offset))[0];
    expect(row?.depletion_mm).toBeCloseTo(expected, 3);
    expect(row?.depletion_range_mm).toBeNull();
  });

  it('each row tells its day: rain and its source, water in with its evidence, Ks, drainage', () => {
    const { store, ledger } = services();
    seed(store);
    ledger.current(NOW);
    const rows = ledger.rows('plot', dateAt(-30), dateAt(-1));
    expect(rows).toHaveLength(30);
    const at = (offset: number) => rows.find((r) => r.date_local === dateAt(offset));
    expect(at(-21)).toMatchObject({ rain_mm: 12.7, rain_source: 'gauge', rain_credited_mm: 12.7 });
    expect(at(-20)?.rain_source).toBe('model_archive');
    expect(at(-10)).toMatchObject({
      irrigation_seconds: 1800,
      irrigation_gross_mm: 10,
      irrigation_net_mm: 7,
      irrigation_evidence: 'observed',
      ks: 0.575,
    });
    expect(at(-9)).toMatchObject({ drainage_mm: 30.227, ks: 1, etc_mm: 3.556 });
    expect(at(-25)?.ks).toBeCloseTo(0.658, 3);
    expect(at(-25)?.etc_mm).toBeCloseTo(2.34, 2);
    expect(at(-5)?.et0_method).toBe('source_native');
    expect(at(-5)?.kc).toBe(0.7);
    // The day before the first record day is unknown: the range opened there and closed the same day.
    expect(at(-30)?.detail.start_range_mm).toEqual([0, 26]);
  });

  it('today: due before the next session; refill to field capacity, 2744 s', () => {
    const { store, ledger } = services();
    seed(store);
    const soil = ledger.current(NOW);
    const out = computeIrrigation(
      input({
        config,
        soil,
        runs,
        forecast: forecast({ past_daily: [], daily: Array.from({ length: 10 }, (_, i) => day(i)) }),
      }),
    );
    expect(irrigationSnapshotSchema.safeParse(out.snapshot).success).toBe(true);
    const b = out.snapshot.water_budgets[0];
    expect(b?.soil_depletion_mm).toBeCloseTo(10.67, 2);
    expect(b?.soil_taw_mm).toBe(26);
    expect(b?.soil_raw_mm).toBe(13);
    expect(b?.soil_due).toBe(true);
    const today = out.snapshot.water_plan[0]?.zones[0];
    expect(today?.reason_code).toBe('water');
    expect(today?.planned_seconds).toBe(2744);
    expect(today?.reason).toContain('0.56 in by then');
    expect(out.snapshot.zones[0]?.math['depletion_source']).toBe('ledger');
    // The fixtures' "now" is after today's run window: today's water is not projected, so
    // tomorrow refills 14.224 mm; then 3.556 a day again: 7.112, 10.668, due again on day 4.
    const codes = out.snapshot.water_plan.map((d) => d.zones[0]?.reason_code);
    expect(codes.slice(0, 5)).toEqual(['water', 'water', 'not_due', 'not_due', 'water']);
    expect(out.snapshot.water_plan[1]?.zones[0]?.depletion_mm).toBeCloseTo(14.22, 2);
  });

  it('a second update with nothing new writes nothing; a late gauge total revises from its day only', () => {
    const { store, ledger, bus } = services();
    seed(store);
    ledger.current(NOW);
    const before = store.db
      .prepare('SELECT date_local, updated_epoch FROM soil_ledger ORDER BY date_local')
      .all();
    bus.emit('runs.changed', { zone: 'plot' });
    ledger.current(NOW + 60);
    expect(
      store.db.prepare('SELECT date_local, updated_epoch FROM soil_ledger ORDER BY date_local').all(),
    ).toEqual(before);
    // Two days ago the gauge measured 0.2 in after all: that day and yesterday change, nothing older.
    const late = recordDay(-2);
    late.rain_mm = 5.08;
    late.sources.rain_mm = { source: 'station', source_id: 'yard_station', coverage: 1 };
    store.weatherDays.upsert([late], NOW);
    bus.emit('forecast.snapshot', forecast());
    ledger.current(NOW + 120);
    const rewritten = store.db
      .prepare('SELECT date_local FROM soil_ledger WHERE updated_epoch = ? ORDER BY date_local')
      .all(NOW + 120);
    expect(rewritten).toEqual([{ date_local: dateAt(-2) }, { date_local: dateAt(-1) }]);
    // 3.556 - 5.08 < 0: drains 1.524, then 3.556; yesterday 7.112. Never counted twice.
    expect(ledger.rows('plot', dateAt(-2), dateAt(-1)).map((r) => r.depletion_mm)).toEqual([3.556, 7.112]);
  });

  it("the owner's declaration replays from its date, however old", () => {
    const { store, ledger } = services();
    seed(store);
    ledger.current(NOW);
    ledger.declare({
      zone: 'plot',
      date_local: dateAt(-12),
      depletion_mm: 0,
      source: 'owner',
      epoch: NOW,
      note: null,
    });
    ledger.current(NOW + 60);
    const rows = ledger.rows('plot', dateAt(-12), dateAt(-10));
    expect(rows[0]?.detail.anchor).toEqual({ source: 'owner', depletion_mm: 0 });
    // Soaked on -12: 3.556 that evening, 7.112 on -11, then -10's 7 mm: 0.112, +3.556 = 3.668.
    expect(rows.map((r) => r.depletion_mm)).toEqual([3.556, 7.112, 3.668]);
  });
});
