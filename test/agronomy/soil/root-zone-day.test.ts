import {
  rootZoneDay,
  waterStressCoefficient,
  type DepletionBounds,
  type RootZone,
  type RootZoneDayInput,
} from '../../../server/src/agronomy/soil/root-zone-day';

/**
 * The FAO-56 root-zone day (Allen et al. 1998, chapter 8): Ks (eq. 84),
 * the daily balance (eq. 85) with the day's water in before its ETc, deep
 * percolation on overflow, and honest intervals for missing evidence.
 *
 * Examples 37 and 38 of chapter 8 are the paper's worked depletion sequences
 * for these two steps (water stress beyond RAW; rain and irrigation in the
 * balance). Their inputs below are as recalled, not re-read (no copy of the
 * book was at hand): every expected value is derived here by hand from eq.
 * 82-85, so the sequences hold on the equations whatever a reprint says.
 */

function day(values: Partial<RootZoneDayInput>): RootZoneDayInput {
  return { et0_mm: 5, kc: 1, sun_factor: 1, rain_mm: 0, net_irrigation_mm: 0, ...values };
}

function run(zone: RootZone, start: number, days: Partial<RootZoneDayInput>[]) {
  let state: DepletionBounds = { lo: start, hi: start };
  return days.map((d) => {
    const r = rootZoneDay(state, day(d), zone);
    state = r.end;
    return r;
  });
}

describe('FAO-56 Example 37: soil water stress, depletion beyond RAW', () => {
  // Zr 0.5 m, theta_FC 0.32, theta_WP 0.10: TAW = 1000 (0.32 - 0.10) 0.5 = 110 mm (eq. 82);
  // p = 0.5: RAW = 55 mm (eq. 83). ETc 5 mm/day (Kc 1.0 x ET0 5), no rain, no irrigation,
  // starting at field capacity.
  const zone: RootZone = { taw_mm: 110, raw_mm: 55, rain_cap_mm: 110 };
  const days = run(
    zone,
    0,
    Array.from({ length: 20 }, () => ({})),
  );

  it('uses all the readily available water at the full rate: 5 mm a day for 11 days', () => {
    expect(days.slice(0, 11).map((d) => d.end.lo)).toEqual([5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55]);
    expect(days.slice(0, 11).every((d) => d.ks === 1)).toBe(true);
  });

  it('beyond RAW Ks = (TAW - Dr) / (TAW - RAW) cuts ET: 110 - Dr shrinks by 1 - 5/55 a day', () => {
    // Day 12 starts at 55 = RAW: Ks 1, Dr 60. Day 13: Ks = 50/55 = 0.9091, ETc adj 4.545, Dr 64.545.
    expect(days[11]?.ks).toBe(1);
    expect(days[11]?.end.lo).toBeCloseTo(60, 9);
    expect(days[12]?.ks).toBeCloseTo(50 / 55, 9);
    expect(days[12]?.etc_adj_mm).toBeCloseTo(4.5454545, 6);
    expect(days[12]?.end.lo).toBeCloseTo(64.5454545, 6);
    for (let i = 13; i < 20; i++) {
      const before = 110 - (days[i - 1]?.end.lo as number);
      expect(110 - (days[i]?.end.lo as number)).toBeCloseTo(before * (1 - 5 / 55), 9);
    }
    // Day 20: 110 - 50 x (10/11)^8 = 86.675 mm; the crop draws 2.12 mm that day.
    expect(days[19]?.end.lo).toBeCloseTo(110 - 50 * (10 / 11) ** 8, 6);
    expect(days[19]?.etc_adj_mm).toBeCloseTo(5 * ((50 * (10 / 11) ** 7) / 55), 6);
  });

  it('eq. 84 at its ends: 1 up to RAW, 0 at TAW; MAD 100 % never stresses before empty', () => {
    expect(waterStressCoefficient(55, zone)).toBe(1);
    expect(waterStressCoefficient(110, zone)).toBe(0);
    expect(waterStressCoefficient(82.5, zone)).toBeCloseTo(0.5, 9);
    expect(waterStressCoefficient(109, { taw_mm: 110, raw_mm: 110 })).toBe(1);
    expect(waterStressCoefficient(110, { taw_mm: 110, raw_mm: 110 })).toBe(0);
  });
});

describe('FAO-56 Example 38: the root-zone balance, water in before the day ETc', () => {
  // TAW 100 mm, RAW 50 mm, ETc 5 mm/day; start of day 1 at 40 mm.
  //   day 1  dry:                       40 + 5                  = 45
  //   day 2  rain 15:                   45 - 15 = 30, + 5        = 35
  //   day 3  dry:                       40
  //   day 4  irrigation 50 (> 40):      0, drains 10, + 5        = 5
  //   day 5  rain 3:                    5 - 3 = 2, + 5           = 7
  //   day 6..11 dry:                    12, 17, 22, 27, 32, 37
  //   day 12 rain 60 (cap 100):         0, drains 23, + 5        = 5
  const zone: RootZone = { taw_mm: 100, raw_mm: 50, rain_cap_mm: 100 };
  const plan: Partial<RootZoneDayInput>[] = [
    {},
    { rain_mm: 15 },
    {},
    { net_irrigation_mm: 50 },
    { rain_mm: 3 },
    {},
    {},
    {},
    {},
    {},
    {},
    { rain_mm: 60 },
  ];
  const days = run(zone, 40, plan);

  it('reproduces the depletion sequence', () => {
    expect(days.map((d) => d.end.lo)).toEqual([45, 35, 40, 5, 7, 12, 17, 22, 27, 32, 37, 5]);
    expect(days.every((d) => d.end.lo === d.end.hi)).toBe(true);
  });

  it('water beyond field capacity leaves as deep percolation, before the crop draws', () => {
    expect(days.map((d) => d.drainage_mm)).toEqual([0, 0, 0, 10, 0, 0, 0, 0, 0, 0, 0, 23]);
    // The day's ETc is taken from a full root zone: water in first (with ETc first, day 4 would end at 0).
    expect(days[3]?.after_water).toEqual({ lo: 0, hi: 0 });
    expect(days[3]?.etc_adj_mm).toBe(5);
  });

  it('rain is credited after the per-day cap', () => {
    const capped = rootZoneDay({ lo: 40, hi: 40 }, day({ rain_mm: 60 }), {
      taw_mm: 100,
      raw_mm: 50,
      rain_cap_mm: 25,
    });
    expect(capped.rain_credited_mm).toBe(25);
    expect(capped.end.lo).toBe(20);
  });
});

describe('missing evidence keeps the state a range, never a guessed 0', () => {
  const zone: RootZone = { taw_mm: 40, raw_mm: 20, rain_cap_mm: 40 };

  it('unknown rain spans [0, cap]; unknown ET0 spans [0, inf); unknown irrigation [0, inf)', () => {
    const rain = rootZoneDay({ lo: 10, hi: 10 }, day({ rain_mm: null }), zone);
    expect(rain.end).toEqual({ lo: 5, hi: 15 });
    expect(rain.missing).toEqual(['rain']);
    expect(rain.drainage_mm).toBeNull();
    expect(rain.ks).toBeNull();
    const et = rootZoneDay({ lo: 10, hi: 10 }, day({ et0_mm: null }), zone);
    expect(et.end).toEqual({ lo: 10, hi: 40 });
    expect(et.etc_mm).toBeNull();
    const irr = rootZoneDay({ lo: 10, hi: 10 }, day({ net_irrigation_mm: null }), zone);
    expect(irr.end).toEqual({ lo: 5, hi: 15 });
  });

  it('water reaching the upper bound collapses an unknown start: a known day erases history', () => {
    const r = rootZoneDay({ lo: 0, hi: 40 }, day({ rain_mm: 45 }), zone);
    expect(r.after_water).toEqual({ lo: 0, hi: 0 });
    expect(r.end).toEqual({ lo: 5, hi: 5 });
    expect(r.ks).toBe(1);
  });

  it('past RAW a range narrows: its drier end draws less (Ks)', () => {
    // TAW 30, RAW 10, ETc 5: end(12) = 12 + 5 x 18/20 = 16.5; end(18) = 18 + 5 x 12/20 = 21.
    const r = rootZoneDay({ lo: 12, hi: 18 }, day({}), { taw_mm: 30, raw_mm: 10, rain_cap_mm: 30 });
    expect(r.end.lo).toBeCloseTo(16.5, 9);
    expect(r.end.hi).toBeCloseTo(21, 9);
    expect(r.end.hi - r.end.lo).toBeLessThan(18 - 12);
  });

  it('refuses numbers that are not evidence (negative, NaN) instead of computing with them', () => {
    expect(() => rootZoneDay({ lo: 0, hi: 0 }, day({ rain_mm: -1 }), zone)).toThrow(RangeError);
    expect(() => rootZoneDay({ lo: 0, hi: 0 }, day({ et0_mm: Number.NaN }), zone)).toThrow(RangeError);
  });
});
