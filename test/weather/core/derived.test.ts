import {
  cToF,
  dewPointF,
  feelsLikeF,
  fToC,
  heatIndexF,
  wetBulbF,
  windChillF,
} from '../../../server/src/weather/derived';

/**
 * Derived quantities against published values: the NWS heat index chart, the
 * NWS (2001) wind chill chart, the Magnus dew point and Stull's (2011) own
 * check value for his wet-bulb fit.
 */

/** The bare Rothfusz regression, coefficients as printed on the NWS/WPC heat index page. */
function rothfusz(T: number, R: number): number {
  return (
    -42.379 +
    2.04901523 * T +
    10.14333127 * R -
    0.22475541 * T * R -
    0.00683783 * T * T -
    0.05481717 * R * R +
    0.00122874 * T * T * R +
    0.00085282 * T * R * R -
    0.00000199 * T * T * R * R
  );
}

describe('heat index (NWS)', () => {
  it.each([
    // [air F, RH %, NWS chart value F]
    [90, 60, 100],
    [80, 40, 80],
    [100, 40, 109],
    [96, 50, 108],
    [86, 75, 97],
    [80, 90, 86],
    [84, 90, 98],
    [110, 40, 136],
  ])('%s F at %s %% RH reads %s F on the NWS chart', (t, rh, chart) => {
    expect(Math.round(heatIndexF(t, rh))).toBe(chart);
  });

  it('subtracts the low-humidity adjustment when RH < 13 % and 80 <= T <= 112', () => {
    const adjustment = ((13 - 10) / 4) * Math.sqrt((17 - Math.abs(100 - 95)) / 17);
    expect(heatIndexF(100, 10)).toBeCloseTo(rothfusz(100, 10) - adjustment, 6);
    expect(heatIndexF(100, 10)).toBeCloseTo(94.1, 1);
    // No adjustment at RH 13 or above, nor above 112 F.
    expect(heatIndexF(100, 13)).toBeCloseTo(rothfusz(100, 13), 6);
    expect(heatIndexF(114, 10)).toBeCloseTo(rothfusz(114, 10), 6);
  });

  it('adds the high-humidity adjustment when RH > 85 % and 80 <= T <= 87', () => {
    const adjustment = ((90 - 85) / 10) * ((87 - 85) / 5);
    expect(heatIndexF(85, 90)).toBeCloseTo(rothfusz(85, 90) + adjustment, 6);
    expect(heatIndexF(88, 90)).toBeCloseTo(rothfusz(88, 90), 6);
    expect(heatIndexF(85, 85)).toBeCloseTo(rothfusz(85, 85), 6);
  });

  it('uses the simple Steadman formula where the regression does not apply (below about 80 F)', () => {
    expect(heatIndexF(70, 50)).toBeCloseTo(0.5 * (70 + 61 + (70 - 68) * 1.2 + 50 * 0.094), 6);
  });
});

describe('wind chill (NWS 2001)', () => {
  it.each([
    // [air F, wind mph, NWS chart value F]
    [0, 15, -19],
    [40, 10, 34],
    [-20, 30, -53],
    [30, 5, 25],
    [10, 60, -19],
  ])('%s F in a %s mph wind reads %s F on the NWS chart', (t, wind, chart) => {
    expect(Math.round(windChillF(t, wind) as number)).toBe(chart);
  });

  it('is undefined (null) above 50 F or at 3 mph and below', () => {
    expect(windChillF(51, 20)).toBeNull();
    expect(windChillF(30, 3)).toBeNull();
    expect(windChillF(30, 0)).toBeNull();
    expect(windChillF(50, 3.1)).not.toBeNull();
  });
});

describe('dew point (Magnus, Alduchov-Eskridge constants)', () => {
  it('77 F at 50 % RH is 13.86 C (56.9 F)', () => {
    const dp = dewPointF(77, 50) as number;
    expect(fToC(dp)).toBeCloseTo(13.86, 1);
    expect(dp).toBeCloseTo(56.9, 1);
  });

  it('equals the air temperature at saturation and clamps RH above 100 %', () => {
    expect(dewPointF(68, 100)).toBeCloseTo(68, 6);
    expect(dewPointF(68, 104)).toBeCloseTo(68, 6);
  });

  it('matches published pairs within 0.2 F', () => {
    // 30 C at 70 % RH -> 23.9 C; 0 C at 50 % RH -> -9.2 C (psychrometric tables).
    expect(fToC(dewPointF(cToF(30), 70) as number)).toBeCloseTo(23.9, 0);
    expect(Math.abs(fToC(dewPointF(cToF(0), 50) as number) - -9.2)).toBeLessThan(0.15);
  });

  it('is null without evidence or at 0 % RH', () => {
    expect(dewPointF(null, 50)).toBeNull();
    expect(dewPointF(70, null)).toBeNull();
    expect(dewPointF(70, 0)).toBeNull();
  });
});

describe('wet bulb (Stull 2011)', () => {
  it("reproduces Stull's own check: 20 C at 50 % RH -> 13.7 C", () => {
    expect(fToC(wetBulbF(cToF(20), 50) as number)).toBeCloseTo(13.7, 1);
  });

  it('stays between the dew point and the air temperature', () => {
    const wb = wetBulbF(90, 40) as number;
    expect(wb).toBeLessThan(90);
    expect(wb).toBeGreaterThan(dewPointF(90, 40) as number);
  });

  it('is null without evidence', () => {
    expect(wetBulbF(null, 50)).toBeNull();
    expect(wetBulbF(70, null)).toBeNull();
    expect(wetBulbF(70, 0)).toBeNull();
  });
});

describe('feels like', () => {
  it('is the wind chill when cold and windy', () => {
    expect(feelsLikeF(0, 40, 15)).toBeCloseTo(windChillF(0, 15) as number, 9);
    expect(feelsLikeF(50, null, 10)).toBeCloseTo(windChillF(50, 10) as number, 9);
  });

  it('is the air temperature when cold and calm', () => {
    expect(feelsLikeF(40, 50, 2)).toBe(40);
    expect(feelsLikeF(40, 50, 0)).toBe(40);
  });

  it('is the heat index when hot', () => {
    expect(feelsLikeF(90, 60, 10)).toBeCloseTo(heatIndexF(90, 60), 9);
    expect(feelsLikeF(80, 40, null)).toBeCloseTo(heatIndexF(80, 40), 9);
  });

  it('is the air temperature in between, with or without the other inputs', () => {
    expect(feelsLikeF(65, 50, 20)).toBe(65);
    expect(feelsLikeF(65, null, null)).toBe(65);
  });

  it('is null when an input it needs is missing (never a guess)', () => {
    expect(feelsLikeF(null, 50, 10)).toBeNull();
    expect(feelsLikeF(30, 50, null)).toBeNull();
    expect(feelsLikeF(95, null, 10)).toBeNull();
  });

  it('keeps a measured 0 wind as a calm reading, not as missing', () => {
    expect(feelsLikeF(30, null, 0)).toBe(30);
  });
});
