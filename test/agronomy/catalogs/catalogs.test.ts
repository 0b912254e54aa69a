import { SOIL_TEXTURES, SPECIES, SPRINKLER_TYPES, SUN_EXPOSURES } from '../../../server/src/config/schema';
import {
  DORMANCY_WINDOW_DAYS,
  SPECIES_CATALOG,
  isDormant,
  kcCurveForLatitude,
  monthlyKc,
  shiftSixMonths,
  speciesEntry,
} from '../../../server/src/agronomy/catalogs/species';
import { SOIL_CATALOG, slopeInfiltrationFactor, soilEntry } from '../../../server/src/agronomy/catalogs/soil';
import {
  SPRINKLER_CATALOG,
  resolvePrecipRate,
  sprinklerEntry,
} from '../../../server/src/agronomy/catalogs/sprinklers';
import { DEFAULT_SUN_EXPOSURE, SUN_CATALOG, sunFactor } from '../../../server/src/agronomy/catalogs/sun';
import { MM_PER_INCH, inchesToMm } from '../../../server/src/agronomy/catalogs/units';

describe('species catalog', () => {
  it('has an entry for every species enum value and nothing else', () => {
    expect(Object.keys(SPECIES_CATALOG).sort()).toEqual([...SPECIES].sort());
    for (const s of SPECIES) {
      const e = speciesEntry(s);
      expect(e.species).toBe(s);
      expect(e.label.length).toBeGreaterThan(0);
      expect(e.kc_monthly).toHaveLength(12);
      for (const kc of e.kc_monthly) {
        expect(kc).toBeGreaterThan(0);
        expect(kc).toBeLessThanOrEqual(1.2);
      }
      expect(e.root_depth_mm).toBeGreaterThan(0);
      expect(e.mad).toBeGreaterThan(0);
      expect(e.mad).toBeLessThan(1);
      expect(e.sources.kc.length).toBeGreaterThan(0);
      expect(e.sources.root_depth_mm.length).toBeGreaterThan(0);
      expect(e.sources.mad.length).toBeGreaterThan(0);
    }
  });

  it('classes the turfgrasses as warm or cool season with their FAO-56 Table 22 p', () => {
    for (const s of ['st_augustine', 'bermuda', 'zoysia', 'bahia', 'centipede'] as const) {
      expect(SPECIES_CATALOG[s].season).toBe('warm');
      expect(SPECIES_CATALOG[s].mad).toBe(0.5);
    }
    for (const s of ['kentucky_bluegrass', 'tall_fescue', 'perennial_ryegrass'] as const) {
      expect(SPECIES_CATALOG[s].season).toBe('cool');
      expect(SPECIES_CATALOG[s].mad).toBe(0.4);
    }
    for (const s of ['ornamental_shrubs', 'vegetable_garden', 'drip_xeriscape', 'other'] as const) {
      expect(SPECIES_CATALOG[s].season).toBe('none');
      expect(SPECIES_CATALOG[s].dormancy).toBeNull();
    }
  });

  it('turf curves are the UC monthly columns as published', () => {
    expect(SPECIES_CATALOG.bermuda.kc_monthly).toEqual([
      0.61, 0.54, 0.76, 0.72, 0.79, 0.68, 0.71, 0.71, 0.62, 0.54, 0.58, 0.55,
    ]);
    expect(SPECIES_CATALOG.tall_fescue.kc_monthly).toEqual([
      0.61, 0.64, 0.75, 1.04, 0.95, 0.88, 0.94, 0.86, 0.74, 0.75, 0.69, 0.6,
    ]);
    // UC states annual averages of 0.60 (warm) and 0.80 (cool); the plain means of its monthly columns are
    // 7.81 / 12 = 0.651 and 9.45 / 12 = 0.788 (the published annual figure is not the unweighted mean).
    const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(mean(SPECIES_CATALOG.bermuda.kc_monthly)).toBeCloseTo(0.651, 3);
    expect(mean(SPECIES_CATALOG.tall_fescue.kc_monthly)).toBeCloseTo(0.7875, 4);
    // `other` sits between them, flat.
    expect(new Set(SPECIES_CATALOG.other.kc_monthly)).toEqual(new Set([0.7]));
  });

  it('shifts curves six months south of the equator', () => {
    const north = SPECIES_CATALOG.kentucky_bluegrass.kc_monthly;
    const south = shiftSixMonths(north);
    expect(south[0]).toBe(north[6]); // southern January = northern July
    expect(south[6]).toBe(north[0]);
    expect(shiftSixMonths(south)).toEqual(north);
    expect(kcCurveForLatitude(north, 45)).toBe(north);
    expect(kcCurveForLatitude(north, 0)).toBe(north);
    expect(kcCurveForLatitude(north, -33.9)).toEqual(south);
    expect(() => kcCurveForLatitude(north, 91)).toThrow(RangeError);
  });

  it('looks up a month by latitude', () => {
    expect(monthlyKc('kentucky_bluegrass', 4, 40)).toBe(1.04); // UC cool-season April
    expect(monthlyKc('kentucky_bluegrass', 4, -35)).toBe(0.75); // southern April = northern October
    expect(monthlyKc('st_augustine', 1, -27.5)).toBe(0.71); // southern January = northern July
    expect(monthlyKc('vegetable_garden', 7, 40)).toBe(1.05); // FAO-56 Table 12 small vegetables Kc_mid
    expect(() => monthlyKc('bermuda', 0, 40)).toThrow(RangeError);
    expect(() => monthlyKc('bermuda', 13, 40)).toThrow(RangeError);
  });

  describe('temperature dormancy', () => {
    const week = (t: number | null) => Array.from({ length: DORMANCY_WINDOW_DAYS }, () => t);

    it('warm-season turf is dormant when the trailing week averages under 50 F', () => {
      expect(isDormant('bermuda', week(45))).toBe(true);
      expect(isDormant('bermuda', week(55))).toBe(false);
      expect(isDormant('st_augustine', [60, 60, 60, 40, 40, 40, 40, 40])).toBe(true); // last 7: mean 42.9
      expect(isDormant('st_augustine', [40, 40, 40, 60, 60, 60, 60, 60])).toBe(false); // last 7: mean 54.3
    });

    it('cool-season turf is dormant only when the week averages below freezing, never in summer heat', () => {
      expect(isDormant('kentucky_bluegrass', week(40))).toBe(false);
      expect(isDormant('kentucky_bluegrass', week(25))).toBe(true);
      expect(isDormant('tall_fescue', week(98))).toBe(false);
    });

    it('an unknown day in the window makes dormancy unknown, not false', () => {
      expect(isDormant('bermuda', [45, 45, 45, null, 45, 45, 45])).toBeNull();
      expect(isDormant('bermuda', week(45).slice(1))).toBeNull(); // only 6 days
      expect(isDormant('bermuda', [null, 45, 45, 45, 45, 45, 45, 45])).toBe(true); // the null is outside the window
    });

    it('non-turf species have no dormancy rule', () => {
      expect(isDormant('ornamental_shrubs', week(20))).toBe(false);
      expect(isDormant('other', [])).toBe(false);
    });
  });
});

describe('soil catalog', () => {
  it('has an entry for every soil texture enum value', () => {
    expect(Object.keys(SOIL_CATALOG).sort()).toEqual([...SOIL_TEXTURES].sort());
    for (const t of SOIL_TEXTURES) {
      const e = soilEntry(t);
      expect(e.texture).toBe(t);
      expect(e.field_capacity).toBeGreaterThan(e.wilting_point);
      expect(e.wilting_point).toBeGreaterThan(0);
      expect(e.available_water_mm_per_m).toBeCloseTo((e.field_capacity - e.wilting_point) * 1000, 6);
      expect(e.infiltration_mm_hr).toBeGreaterThan(0);
      expect(e.sources.water.length).toBeGreaterThan(0);
      expect(e.sources.infiltration.length).toBeGreaterThan(0);
    }
  });

  it('keeps every FC and WP inside the FAO-56 Table 19 range for the classes the table covers', () => {
    // FAO-56 Table 19: [theta_FC min, max], [theta_WP min, max], [FC - WP min, max]
    const table19 = {
      sand: [0.07, 0.17, 0.02, 0.07, 0.05, 0.11],
      loamy_sand: [0.11, 0.19, 0.03, 0.1, 0.06, 0.12],
      sandy_loam: [0.18, 0.28, 0.06, 0.16, 0.11, 0.15],
      loam: [0.2, 0.3, 0.07, 0.17, 0.13, 0.18],
      silt_loam: [0.22, 0.36, 0.09, 0.21, 0.13, 0.19],
      clay: [0.32, 0.4, 0.2, 0.24, 0.12, 0.2],
    } as const;
    for (const [texture, [fcLo, fcHi, wpLo, wpHi, awLo, awHi]] of Object.entries(table19)) {
      const e = SOIL_CATALOG[texture as keyof typeof table19];
      expect(e.field_capacity).toBeGreaterThanOrEqual(fcLo);
      expect(e.field_capacity).toBeLessThanOrEqual(fcHi);
      expect(e.wilting_point).toBeGreaterThanOrEqual(wpLo);
      expect(e.wilting_point).toBeLessThanOrEqual(wpHi);
      expect(e.available_water_mm_per_m / 1000).toBeGreaterThanOrEqual(awLo - 1e-9);
      expect(e.available_water_mm_per_m / 1000).toBeLessThanOrEqual(awHi + 1e-9);
    }
  });

  it('orders infiltration from sand (fastest) to clay (slowest)', () => {
    const rates = SOIL_TEXTURES.map((t) => SOIL_CATALOG[t].infiltration_mm_hr);
    for (let i = 1; i < rates.length; i += 1) {
      expect(rates[i]).toBeLessThanOrEqual(rates[i - 1] as number);
    }
  });

  it('reduces infiltration by USDA slope class', () => {
    expect(slopeInfiltrationFactor(null)).toEqual({ slope_class: 'flat', factor: 1, slope_known: false });
    expect(slopeInfiltrationFactor(0).factor).toBe(1);
    expect(slopeInfiltrationFactor(4.9).factor).toBe(1);
    expect(slopeInfiltrationFactor(5)).toEqual({ slope_class: 'gentle', factor: 0.8, slope_known: true });
    expect(slopeInfiltrationFactor(8).factor).toBe(0.6);
    expect(slopeInfiltrationFactor(11.9).factor).toBe(0.6);
    expect(slopeInfiltrationFactor(12)).toEqual({ slope_class: 'steep', factor: 0.4, slope_known: true });
    expect(slopeInfiltrationFactor(60).factor).toBe(0.4);
    expect(() => slopeInfiltrationFactor(-1)).toThrow(RangeError);
  });
});

describe('sprinkler catalog', () => {
  it('has an entry for every sprinkler type enum value', () => {
    expect(Object.keys(SPRINKLER_CATALOG).sort()).toEqual([...SPRINKLER_TYPES].sort());
    for (const t of SPRINKLER_TYPES) {
      const e = sprinklerEntry(t);
      expect(e.type).toBe(t);
      expect(e.precip_rate_mm_hr).toBeGreaterThan(0);
      expect(e.distribution_uniformity).toBeGreaterThan(0);
      expect(e.distribution_uniformity).toBeLessThanOrEqual(1);
      expect(e.sources.precip_rate.length).toBeGreaterThan(0);
      expect(e.sources.distribution_uniformity.length).toBeGreaterThan(0);
    }
  });

  it('carries the published typical rates', () => {
    expect(SPRINKLER_CATALOG.rotor.precip_rate_mm_hr).toBe(12.7); // 0.5 in/h
    expect(SPRINKLER_CATALOG.spray.precip_rate_mm_hr).toBe(38.1); // 1.5 in/h
    expect(SPRINKLER_CATALOG.mp_rotator.precip_rate_mm_hr).toBe(10.2); // 0.4 in/h
    expect(SPRINKLER_CATALOG.drip.precip_rate_mm_hr).toBe(16.3); // 231 x 0.6 / (12 x 18) = 0.642 in/h
    expect(SPRINKLER_CATALOG.bubbler.precip_rate_mm_hr).toBe(48.9); // 96.3 x 0.5 / 25 = 1.926 in/h
  });

  it('uses the zone rate when set and the catalog default when null', () => {
    expect(resolvePrecipRate('spray', null)).toEqual({ precip_rate_mm_hr: 38.1, from_catalog: true });
    expect(resolvePrecipRate('spray', undefined)).toEqual({ precip_rate_mm_hr: 38.1, from_catalog: true });
    expect(resolvePrecipRate('spray', 31.5)).toEqual({ precip_rate_mm_hr: 31.5, from_catalog: false });
    expect(() => resolvePrecipRate('spray', 0)).toThrow(RangeError);
  });
});

describe('sun exposure catalog', () => {
  it('has an entry for every sun exposure enum value, full = 1.0 and shade the smallest', () => {
    expect(Object.keys(SUN_CATALOG).sort()).toEqual([...SUN_EXPOSURES].sort());
    for (const s of SUN_EXPOSURES) {
      expect(SUN_CATALOG[s].exposure).toBe(s);
      expect(SUN_CATALOG[s].source.length).toBeGreaterThan(0);
    }
    expect(sunFactor('full')).toBe(1);
    expect(sunFactor('partial')).toBe(0.9);
    expect(sunFactor('shade')).toBe(0.7);
    expect(sunFactor(null)).toBe(SUN_CATALOG[DEFAULT_SUN_EXPOSURE].factor);
  });
});

describe('units', () => {
  it('converts inches to mm exactly', () => {
    expect(MM_PER_INCH).toBe(25.4);
    expect(inchesToMm(0.5)).toBe(12.7);
  });
});
