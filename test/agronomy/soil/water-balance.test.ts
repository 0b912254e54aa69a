import { monthlyKc } from '../../../server/src/agronomy/catalogs/species';
import { SOIL_CATALOG } from '../../../server/src/agronomy/catalogs/soil';
import { SPRINKLER_CATALOG } from '../../../server/src/agronomy/catalogs/sprinklers';
import { sunFactor } from '../../../server/src/agronomy/catalogs/sun';
import {
  MIN_CYCLE_SECONDS,
  cycleSoak,
  netIrrigationMm,
  plannedSeconds,
  readilyAvailableWaterMm,
  resolveRainCap,
  sessionDays,
  sessionSpacingDays,
  totalAvailableWaterMm,
  weeklyBudget,
  zoneWaterCapacity,
} from '../../../server/src/agronomy/soil/water-balance';
import * as waterBalance from '../../../server/src/agronomy/soil/water-balance';

describe('TAW and RAW', () => {
  it('computes TAW = (FC - WP) x root depth and RAW = MAD x TAW by hand', () => {
    // Sandy loam FC 0.23, WP 0.11 -> 0.12 m3/m3 = 120 mm per m.
    // St. Augustine default root 150 mm: TAW = 0.12 x 150 = 18 mm; warm-season MAD 0.50: RAW = 9 mm.
    expect(totalAvailableWaterMm(0.23, 0.11, 150)).toBe(18);
    expect(readilyAvailableWaterMm(18, 0.5)).toBe(9);
    const z = zoneWaterCapacity({ species: 'st_augustine', soil_texture: 'sandy_loam' });
    expect(z).toEqual({
      taw_mm: 18,
      raw_mm: 9,
      root_depth_mm: 150,
      root_depth_source: 'species',
      mad: 0.5,
      mad_source: 'species',
      field_capacity: 0.23,
      wilting_point: 0.11,
    });
  });

  it('uses the zone overrides: root_depth_mm and mad_pct_override', () => {
    // Loam FC 0.25, WP 0.12 -> 130 mm/m. Root 250 mm: TAW = 0.13 x 250 = 32.5 mm; MAD 40 %: RAW = 13 mm.
    const z = zoneWaterCapacity({
      species: 'bermuda',
      soil_texture: 'loam',
      root_depth_mm: 250,
      mad_pct_override: 40,
    });
    expect(z?.taw_mm).toBeCloseTo(32.5, 9);
    expect(z?.raw_mm).toBeCloseTo(13, 9);
    expect(z?.root_depth_source).toBe('zone');
    expect(z?.mad_source).toBe('zone');
  });

  it('has no bucket without a species or a soil texture', () => {
    expect(zoneWaterCapacity({ species: null, soil_texture: 'loam' })).toBeNull();
    expect(zoneWaterCapacity({ species: 'bermuda', soil_texture: undefined })).toBeNull();
  });

  it('rejects impossible inputs', () => {
    expect(() => totalAvailableWaterMm(0.1, 0.2, 150)).toThrow(RangeError);
    expect(() => totalAvailableWaterMm(0.3, 0.1, 0)).toThrow(RangeError);
    expect(() => readilyAvailableWaterMm(18, 0)).toThrow(RangeError);
    expect(() =>
      zoneWaterCapacity({ species: 'bermuda', soil_texture: 'loam', mad_pct_override: 0 }),
    ).toThrow(RangeError);
  });

  it('covers every species x soil pair', () => {
    for (const soil of Object.keys(SOIL_CATALOG) as (keyof typeof SOIL_CATALOG)[]) {
      const z = zoneWaterCapacity({ species: 'other', soil_texture: soil });
      expect(z?.taw_mm).toBeGreaterThan(0);
      expect(z?.raw_mm).toBeLessThan(z?.taw_mm as number);
    }
  });
});

describe('rain credit cap', () => {
  it("uses the zone's rain_credit_cap_in, else TAW flagged inferred", () => {
    expect(resolveRainCap(0.5, 18)).toEqual({ cap_mm: 12.7, inferred: false });
    expect(resolveRainCap(null, 18)).toEqual({ cap_mm: 18, inferred: true });
    expect(resolveRainCap(undefined, null)).toEqual({ cap_mm: null, inferred: false });
    expect(() => resolveRainCap(0.01, 18)).toThrow(RangeError);
    expect(() => resolveRainCap(5.5, 18)).toThrow(RangeError);
  });
});

describe('one soil-water step', () => {
  it('the zone constants of the hand-computed seasons (root-zone-day.test.ts) come from here', () => {
    // Ornamental shrubs on sandy loam, full sun: AW = 120 mm/m, root 300 mm -> TAW 36 mm; MAD 0.50 -> RAW 18 mm.
    const zone = zoneWaterCapacity({ species: 'ornamental_shrubs', soil_texture: 'sandy_loam' });
    expect(zone).toMatchObject({ taw_mm: 36, raw_mm: 18 });
    expect(monthlyKc('ornamental_shrubs', 7, 38)).toBe(0.5);
    expect(sunFactor('full')).toBe(1);
  });

  it('this module sizes runs and buckets but keeps no daily step of its own: the day is rootZoneDay', () => {
    const exported = Object.keys(waterBalance);
    for (const name of ['bucketStep', 'replayBucket', 'isDue']) expect(exported).not.toContain(name);
    expect(exported.filter((name) => /step|replay|day$/i.test(name))).toEqual([]);
  });
});

describe('planned seconds', () => {
  it('sizes a run as depth / (rate x efficiency) x 3600, rounded', () => {
    // 10 mm on spray 38.1 mm/h at 0.70: 10 / 26.67 x 3600 = 1349.83 -> 1350 s.
    const p = plannedSeconds(10, SPRINKLER_CATALOG.spray.precip_rate_mm_hr, 0.7, null);
    expect(p).toMatchObject({
      seconds: 1350,
      uncapped_seconds: 1350,
      ceiling_seconds: 3600,
      cap_binding: false,
    });
    expect(p.planned_net_mm).toBeCloseTo(10, 2);
  });

  it('holds the run to max_run_minutes and flags cap_binding', () => {
    // 40 mm on rotor 12.7 mm/h at 0.70: 40 / 8.89 x 3600 = 16197.97 -> 16198 s > 3600 s (60 min default).
    const p = plannedSeconds(40, 12.7, 0.7, null);
    expect(p.uncapped_seconds).toBe(16198);
    expect(p.seconds).toBe(3600);
    expect(p.cap_binding).toBe(true);
    expect(p.planned_net_mm).toBeCloseTo(8.89, 9); // one hour x 12.7 x 0.7: planned, less than asked
    // A 300-minute ceiling (18000 s) does not bind.
    expect(plannedSeconds(40, 12.7, 0.7, 300)).toMatchObject({ seconds: 16198, cap_binding: false });
    // Exactly at the ceiling: the ceiling did not set the minutes.
    expect(plannedSeconds(8.89, 12.7, 0.7, 60)).toMatchObject({ seconds: 3600, cap_binding: false });
    // max_run_minutes 5 -> 300 s.
    expect(plannedSeconds(10, 38.1, 0.7, 5)).toMatchObject({ seconds: 300, cap_binding: true });
  });

  it('plans nothing for no depth, and defaults efficiency to the engine 0.70', () => {
    expect(plannedSeconds(0, 12.7)).toMatchObject({ seconds: 0, cap_binding: false, planned_net_mm: 0 });
    expect(plannedSeconds(10, 38.1).seconds).toBe(1350);
  });

  it('rejects impossible inputs', () => {
    expect(() => plannedSeconds(10, 0, 0.7, null)).toThrow(RangeError);
    expect(() => plannedSeconds(10, 12.7, 1.2, null)).toThrow(RangeError);
    expect(() => plannedSeconds(10, 12.7, 0.7, 4)).toThrow(RangeError);
    expect(() => plannedSeconds(10, 12.7, 0.7, 361)).toThrow(RangeError);
    expect(() => plannedSeconds(-1, 12.7, 0.7, null)).toThrow(RangeError);
  });

  it('converts run seconds to net depth', () => {
    // 1800 s at 38.1 mm/h x 0.7 = 0.5 h x 26.67 = 13.335 mm
    expect(netIrrigationMm(1800, 38.1, 0.7)).toBeCloseTo(13.335, 9);
  });
});

describe('cycle and soak', () => {
  const spray = SPRINKLER_CATALOG.spray.precip_rate_mm_hr; // 38.1 mm/h
  const sand = SOIL_CATALOG.sand.infiltration_mm_hr; // 30 mm/h
  const clay = SOIL_CATALOG.clay.infiltration_mm_hr; // 3 mm/h
  const sum = (cycles: { run_s: number }[]) => cycles.reduce((a, c) => a + c.run_s, 0);

  it('keeps one cycle on flat sand (the soil takes the spray in within a soak)', () => {
    // t_max = I x soak / (P - I) = 30 x 1800 / 8.1 = 6666.7 -> 6666 s >= 1350 s: 1 cycle.
    const plan = cycleSoak(1350, spray, sand, 0, 30);
    expect(plan.cycle_count).toBe(1);
    expect(plan.cycles).toEqual([{ run_s: 1350 }]);
    expect(plan.max_cycle_s).toBe(6666);
    expect(plan.total_elapsed_s).toBe(1350);
  });

  it('splits the same run on flat clay', () => {
    // t_max = 3 x 1800 / 35.1 = 153.8 -> 153 s; N = ceil(1350 / 153) = 9 cycles of 150 s, 8 soaks of 1800 s.
    const plan = cycleSoak(1350, spray, clay, 2, 30);
    expect(plan.max_cycle_s).toBe(153);
    expect(plan.cycle_count).toBe(9);
    expect(plan.cycles.every((c) => c.run_s === 150)).toBe(true);
    expect(plan.soak_s).toBe(1800);
    expect(plan.total_elapsed_s).toBe(1350 + 8 * 1800);
    expect(plan.min_cycle_binding).toBe(false);
    expect(plan.slope_class).toBe('flat');
  });

  it('uses more cycles on a slope (clay at 10 %)', () => {
    // Slope 8-12 %: I = 3 x 0.6 = 1.8 mm/h; t_max = 1.8 x 1800 / 36.3 = 89.3 -> 89 s < 120 s minimum:
    // cycles of at least 120 s: N = floor(1350 / 120) = 11; 1350 = 8 x 123 + 3 x 122.
    const plan = cycleSoak(1350, spray, clay, 10, 30);
    expect(plan.effective_infiltration_mm_hr).toBeCloseTo(1.8, 9);
    expect(plan.slope_class).toBe('moderate');
    expect(plan.max_cycle_s).toBe(89);
    expect(plan.min_cycle_binding).toBe(true);
    expect(plan.cycle_count).toBe(11);
    expect(plan.cycles.filter((c) => c.run_s === 123)).toHaveLength(8);
    expect(plan.cycles.filter((c) => c.run_s === 122)).toHaveLength(3);
    expect(sum(plan.cycles)).toBe(1350);
    expect(plan.cycles.every((c) => c.run_s >= MIN_CYCLE_SECONDS)).toBe(true);
    expect(plan.cycle_count).toBeGreaterThan(cycleSoak(1350, spray, clay, 0, 30).cycle_count);
  });

  it('splits on steep sand that took the run in one cycle when flat', () => {
    // Slope >= 12 %: I = 30 x 0.4 = 12 mm/h; t_max = 12 x 1800 / 26.1 = 827.6 -> 827 s; N = 2 x 675 s.
    const plan = cycleSoak(1350, spray, sand, 15, 30);
    expect(plan.slope_class).toBe('steep');
    expect(plan.cycles).toEqual([{ run_s: 675 }, { run_s: 675 }]);
    expect(plan.total_elapsed_s).toBe(1350 + 1800);
  });

  it('does not split when the rate is under infiltration, when soak is 0, or for no run', () => {
    const rotorOnLoam = cycleSoak(2000, 12.7, SOIL_CATALOG.loam.infiltration_mm_hr, null, 30);
    expect(rotorOnLoam.cycles).toEqual([{ run_s: 2000 }]);
    expect(rotorOnLoam.max_cycle_s).toBeNull();
    expect(rotorOnLoam.slope_known).toBe(false);
    expect(cycleSoak(1350, spray, clay, 0, 0).cycles).toEqual([{ run_s: 1350 }]);
    expect(cycleSoak(0, spray, clay, 0, 30)).toMatchObject({
      cycles: [],
      cycle_count: 0,
      total_elapsed_s: 0,
    });
  });

  it('never loses or invents seconds', () => {
    for (const seconds of [1, 119, 121, 599, 1000, 3600, 7199]) {
      for (const slope of [0, 6, 9, 20]) {
        for (const infiltration of [3, 7.5, 15, 30]) {
          const plan = cycleSoak(seconds, spray, infiltration, slope, 30);
          expect(sum(plan.cycles)).toBe(seconds);
          expect(plan.cycle_count).toBe(plan.cycles.length);
          const lengths = plan.cycles.map((c) => c.run_s);
          expect(Math.max(...lengths) - Math.min(...lengths)).toBeLessThanOrEqual(1);
        }
      }
    }
  });

  it('rejects fractional seconds and non-positive rates', () => {
    expect(() => cycleSoak(10.5, spray, clay, 0, 30)).toThrow(RangeError);
    expect(() => cycleSoak(10, 0, clay, 0, 30)).toThrow(RangeError);
    expect(() => cycleSoak(10, spray, 0, 0, 30)).toThrow(RangeError);
  });
});

describe('weekly model', () => {
  it('spaces sessions floor(7 / n) days apart for n = 1..7', () => {
    expect(sessionDays(1)).toEqual([0]);
    expect(sessionDays(2)).toEqual([0, 3]);
    expect(sessionDays(3)).toEqual([0, 2, 4]);
    expect(sessionDays(4)).toEqual([0, 1, 2, 3]);
    expect(sessionDays(5)).toEqual([0, 1, 2, 3, 4]);
    expect(sessionDays(6)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(sessionDays(7)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect([1, 2, 3, 4, 5, 6, 7].map(sessionSpacingDays)).toEqual([7, 3, 2, 1, 1, 1, 1]);
    for (const n of [0, 8, 2.5]) expect(() => sessionDays(n)).toThrow(RangeError);
  });

  it('settles the week with missing rain days excluded, not counted as zero', () => {
    // Target 1.0 in = 25.4 mm. Rain by day (mm): ?, 0, 30, ?, 2, 0, ? -> 4 days known, 3 missing.
    // Cap 12.7 mm (0.5 in): credited = 0 + 12.7 + 2 + 0 = 14.7; raw = 32.
    // needed = 25.4 - 14.7 - applied 5 = 5.7; 2 sessions, 1 done -> 1 remaining -> 5.7 mm per session.
    const b = weeklyBudget({
      weekly_budget_in: 1.0,
      sessions_per_week: 2,
      observed_rain_by_day: [null, 0, 30, null, 2, 0, null],
      applied_mm: 5,
      cap_mm: 12.7,
      completed_sessions: 1,
    });
    expect(b.target_mm).toBeCloseTo(25.4, 9);
    expect(b.observed_rain_mm).toBe(32);
    expect(b.observed_rain_credited_mm).toBeCloseTo(14.7, 9);
    expect(b.needed_mm).toBeCloseTo(5.7, 9);
    expect(b.remaining_sessions).toBe(1);
    expect(b.mm_per_session).toBeCloseTo(5.7, 9);
    expect(b.rain_days_known).toBe(4);
    expect(b.rain_days_missing).toBe(3);
    expect(b.rain_evidence_complete).toBe(false);
    expect(b.rain_credit_cap_mm).toBe(12.7);
    expect(b.rain_cap_inferred).toBe(false);
    expect(b.session_spacing_days).toBe(3);
  });

  it('reports no rain number at all when no day has evidence', () => {
    // needed = 25.4 - 5 = 20.4 over 2 remaining sessions = 10.2 each; the rain terms are null, not 0.
    const b = weeklyBudget({
      weekly_budget_in: 1.0,
      sessions_per_week: 2,
      observed_rain_by_day: [null, null, null, null, null, null, null],
      applied_mm: 5,
      cap_mm: 18,
      cap_inferred: true,
    });
    expect(b.observed_rain_mm).toBeNull();
    expect(b.observed_rain_credited_mm).toBeNull();
    expect(b.needed_mm).toBeCloseTo(20.4, 9);
    expect(b.mm_per_session).toBeCloseTo(10.2, 9);
    expect(b.rain_days_missing).toBe(7);
    expect(b.rain_cap_inferred).toBe(true);
    expect(b.rain_credit_cap_mm).toBe(18);
  });

  it('applies no cap when the cap is unknown (0 on the wire)', () => {
    // Credited = raw = 30 + 2 = 32 >= 25.4 target: nothing needed.
    const b = weeklyBudget({
      weekly_budget_in: 1.0,
      sessions_per_week: 3,
      observed_rain_by_day: [0, 30, 0, 2, 0, 0, 0],
      applied_mm: 0,
      cap_mm: null,
      cap_inferred: true,
    });
    expect(b.rain_credit_cap_mm).toBe(0);
    expect(b.rain_cap_inferred).toBe(false);
    expect(b.observed_rain_credited_mm).toBe(32);
    expect(b.needed_mm).toBe(0);
    expect(b.mm_per_session).toBe(0);
    expect(b.remaining_sessions).toBe(3);
    expect(b.rain_evidence_complete).toBe(true);
  });

  it('subtracts the forecast credit and keeps at least one remaining session', () => {
    // 1.5 in = 38.1 mm - rain 10 - applied 12 - forecast 6 = 10.1; 2 sessions, 3 done -> floor 1.
    const b = weeklyBudget({
      weekly_budget_in: 1.5,
      sessions_per_week: 2,
      observed_rain_by_day: [10, 0, 0, 0, 0, 0, 0],
      applied_mm: 12,
      cap_mm: 36,
      completed_sessions: 3,
      forecast_credit_mm: 6,
    });
    expect(b.needed_mm).toBeCloseTo(10.1, 9);
    expect(b.remaining_sessions).toBe(1);
    expect(b.forecast_credit_mm).toBe(6);
  });

  it('rejects out-of-range inputs', () => {
    const ok = {
      weekly_budget_in: 1,
      sessions_per_week: 2,
      observed_rain_by_day: [],
      applied_mm: 0,
      cap_mm: null,
    };
    expect(() => weeklyBudget({ ...ok, sessions_per_week: 8 })).toThrow(RangeError);
    expect(() => weeklyBudget({ ...ok, applied_mm: -1 })).toThrow(RangeError);
    expect(() => weeklyBudget({ ...ok, observed_rain_by_day: [-2] })).toThrow(RangeError);
  });
});
