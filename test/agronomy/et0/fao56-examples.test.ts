import {
  actualVapourPressureFromDewpoint,
  actualVapourPressureFromPsychrometer,
  actualVapourPressureFromRhMax,
  actualVapourPressureFromRhMaxMin,
  actualVapourPressureFromRhMean,
  atmosphericPressure,
  clearSkyRadiation,
  daylightHours,
  degreesToRadians,
  estimatedActualVapourPressureFromTmin,
  et0HargreavesSamani,
  et0PenmanMonteithDaily,
  et0PenmanMonteithHourly,
  extraterrestrialRadiationDaily,
  inverseRelativeDistance,
  meanSaturationVapourPressure,
  netLongwaveRadiationDaily,
  netRadiation,
  netShortwaveRadiation,
  psychrometricConstant,
  relativeShortwaveRadiation,
  saturationVapourPressure,
  slopeSaturationVapourPressure,
  soilHeatFluxMonthly,
  solarDeclination,
  solarRadiationFromSunshine,
  solarRadiationFromTemperature,
  sunsetHourAngle,
  windSpeedAt2m,
  type HourlyEt0Input,
} from '../../../server/src/agronomy/et0';

/**
 * The worked examples of FAO Irrigation and Drainage Paper 56 (Allen, Pereira,
 * Raes, Smith 1998), reproduced to the precision the paper prints them:
 * `printed(x, '3.9')` asserts that x rounded to the printed number of decimals
 * is exactly the printed string.
 *
 * Where the examples come from. The inputs and printed results were recalled
 * from the paper and cross-checked against public test suites that transcribe
 * the same examples (PyETo and pyet test_fao / testfao56, CSLSevap
 * test_atomic_inputs.R, NCL's crop function documentation). Two corrections to
 * the numbering we were briefed with:
 * - ea from psychrometric readings is Example 4; ea from RHmax/RHmin (and RHmean)
 *   is Example 5.
 * - Example 8 (Ra on 3 September) and Example 9 (N) are at 20 degrees S, not at Rio
 *   de Janeiro's 22 deg 54' S: at -22.9 deg Ra is 31.2, not the printed 32.2.
 *   Rio de Janeiro is Examples 7 (latitude), 10, 11 and 12 (May).
 * - Example 12 is net radiation (Rio, May); G for monthly periods is Example 13;
 *   Example 15 is Rs from temperature (Lyon, July); Example 16 is net radiation in
 *   the absence of radiation data (Bangkok, April, coastal kRs = 0.19); Example 20
 *   is ET0 with missing data (Lyon, July), including Hargreaves = 5.0 mm/day.
 * Example 6 (vapour pressure deficit) is not asserted: its printed inputs could
 * not be confirmed. The PM value of Example 20 is not asserted either (see there).
 */
function printed(actual: number, expected: string): void {
  const decimals = expected.includes('.') ? (expected.split('.')[1] ?? '').length : 0;
  expect(actual.toFixed(decimals)).toBe(expected);
}

describe('FAO-56 chapter 3 examples', () => {
  it('Example 2: atmospheric parameters at 1800 m (eq. 7, 8): P = 81.8 kPa, gamma = 0.054 kPa/C', () => {
    const p = atmosphericPressure(1800);
    printed(p, '81.8');
    printed(psychrometricConstant(p), '0.054');
  });

  it('Example 3: mean saturation vapour pressure, Tmax 24.5 C, Tmin 15 C (eq. 11, 12)', () => {
    printed(saturationVapourPressure(24.5), '3.075');
    printed(saturationVapourPressure(15), '1.705');
    printed(meanSaturationVapourPressure(24.5, 15), '2.39');
    // The paper notes that e°(Tmean = 19.75) = 2.30 kPa underestimates es.
    printed(saturationVapourPressure(19.75), '2.30');
  });

  it('Example 4: ea from psychrometric readings at 1200 m, Tdry 25.6, Twet 19.5, Asmann (eq. 15, 16)', () => {
    const p = atmosphericPressure(1200);
    printed(p, '87.9');
    printed(saturationVapourPressure(19.5), '2.267');
    printed(0.000662 * p, '0.058');
    printed(actualVapourPressureFromPsychrometer(25.6, 19.5, p), '1.91');
  });

  it('Example 5: ea from RHmax 82 / RHmin 54 at Tmin 18 / Tmax 25 (eq. 17), and from RHmean 68 (eq. 19)', () => {
    printed(saturationVapourPressure(18), '2.064');
    printed(saturationVapourPressure(25), '3.168');
    printed(actualVapourPressureFromRhMaxMin(18, 25, 82, 54), '1.70');
    printed(actualVapourPressureFromRhMean(18, 25, (82 + 54) / 2), '1.78');
    // eq. 18 (RHmax only) on the same data; not a printed value of the paper.
    printed(actualVapourPressureFromRhMax(18, 82), '1.69');
  });

  it('Example 7: latitudes in radians, Bangkok 13 deg 44 N = 0.240, Rio de Janeiro 22 deg 54 S = -0.400 (eq. 22)', () => {
    printed(degreesToRadians(13 + 44 / 60), '0.240');
    printed(degreesToRadians(-(22 + 54 / 60)), '-0.400');
  });

  it('Example 8: Ra on 3 September (J = 246) at 20 deg S (eq. 21-25): 32.2 MJ/m2/day, 13.1 mm/day', () => {
    const phi = degreesToRadians(-20);
    printed(phi, '-0.35');
    printed(inverseRelativeDistance(246), '0.985');
    const decl = solarDeclination(246);
    printed(decl, '0.120');
    printed(sunsetHourAngle(phi, decl), '1.527');
    const ra = extraterrestrialRadiationDaily(phi, 246);
    printed(ra, '32.2');
    printed(0.408 * ra, '13.1');
  });

  it('Example 9: daylight hours on 3 September at 20 deg S (eq. 34): N = 11.7 hours', () => {
    const phi = degreesToRadians(-20);
    printed(daylightHours(sunsetHourAngle(phi, solarDeclination(246))), '11.7');
  });

  // Rio de Janeiro (22 deg 54' S, sea level), May, 220 hours of bright sunshine; J = 135 (15 May).
  const rio = degreesToRadians(-(22 + 54 / 60));
  const raMay = extraterrestrialRadiationDaily(rio, 135);
  const nMay = daylightHours(sunsetHourAngle(rio, solarDeclination(135)));
  const rsMay = solarRadiationFromSunshine(220 / 31, nMay, raMay);

  it('Example 10: Rs from sunshine duration, Rio de Janeiro, May (eq. 35): Rs = 14.5 MJ/m2/day', () => {
    printed(220 / 31, '7.1');
    printed(raMay, '25.1');
    printed(nMay, '10.9');
    printed(rsMay, '14.5');
  });

  it('Example 11: net longwave radiation, Rio de Janeiro, May: Tmax 25.1, Tmin 19.1, ea 2.1 (eq. 39): Rnl = 3.5', () => {
    const rso = clearSkyRadiation(raMay, 0);
    printed(rso, '18.8');
    // From the printed Rs and Rso, and from the unrounded chain: both 3.5.
    printed(netLongwaveRadiationDaily(25.1, 19.1, 2.1, 14.5 / 18.8), '3.5');
    const ratio = relativeShortwaveRadiation(rsMay, rso);
    expect(ratio).not.toBeNull();
    printed(netLongwaveRadiationDaily(25.1, 19.1, 2.1, ratio ?? 0), '3.5');
  });

  it('Example 12: net radiation, Rio de Janeiro, May (eq. 38, 40): Rns 11.1, Rn 7.6 MJ/m2/day = 3.1 mm/day', () => {
    const rns = netShortwaveRadiation(rsMay);
    printed(rns, '11.1');
    const rnl = netLongwaveRadiationDaily(
      25.1,
      19.1,
      2.1,
      relativeShortwaveRadiation(rsMay, clearSkyRadiation(raMay, 0)) ?? 0,
    );
    const rn = netRadiation(rns, rnl);
    printed(rn, '7.6');
    printed(0.408 * rn, '3.1');
  });

  it('Example 13: soil heat flux for April, March 14.1 C, April 16.1 C, May 18.8 C (eq. 43, 44)', () => {
    const g43 = soilHeatFluxMonthly(14.1, 18.8);
    expect(g43).not.toBeNull();
    printed(g43 ?? NaN, '0.33');
    printed(0.408 * (g43 ?? NaN), '0.13');
    // Without May (eq. 44).
    printed(soilHeatFluxMonthly(14.1, null, 16.1) ?? NaN, '0.28');
    expect(soilHeatFluxMonthly(14.1, null, null)).toBeNull();
  });

  it('Example 14: wind 3.2 m/s at 10 m to 2 m (eq. 47): 2.4 m/s', () => {
    printed(windSpeedAt2m(3.2, 10) ?? NaN, '2.4');
  });

  it('Example 15: Rs from temperature, Lyon (45 deg 43 N, 200 m), 15 July, Tmax 26.6, Tmin 14.8, kRs 0.16 (eq. 50): 22.3', () => {
    const ra = extraterrestrialRadiationDaily(degreesToRadians(45 + 43 / 60), 196);
    printed(ra, '40.6');
    printed(solarRadiationFromTemperature(26.6, 14.8, ra, 0.16) ?? NaN, '22.3');
  });

  it('Example 16: Rn without radiation data, Bangkok (13 deg 44 N, 2 m), April, Tmax 34.8, Tmin 25.6, ea 2.85, coastal kRs 0.19', () => {
    const ra = extraterrestrialRadiationDaily(degreesToRadians(13 + 44 / 60), 105);
    printed(ra, '38.1');
    const rs = solarRadiationFromTemperature(34.8, 25.6, ra, 0.19) ?? NaN;
    printed(rs, '21.9');
    const rso = clearSkyRadiation(ra, 2);
    printed(rso, '28.5');
    const rns = netShortwaveRadiation(rs);
    printed(rns, '16.9');
    const rnl = netLongwaveRadiationDaily(34.8, 25.6, 2.85, relativeShortwaveRadiation(rs, rso) ?? 0);
    printed(rnl, '3.0');
    printed(netRadiation(rns, rnl), '13.9');
  });
});

describe('FAO-56 chapter 4 examples', () => {
  it('Example 17: monthly ET0, Bangkok, April: 5.72 mm/day', () => {
    // 13 deg 44' N, 2 m; Tmax 34.8, Tmin 25.6 (monthly means), ea 2.85 kPa, u2 2 m/s,
    // n 8.5 h/day, mean March temperature 29.2 C; J = 105 (15 April).
    const g = soilHeatFluxMonthly(29.2, null, 30.2); // eq. 44
    const r = et0PenmanMonteithDaily({
      tMaxC: 34.8,
      tMinC: 25.6,
      actualVapourPressureKpa: 2.85,
      windSpeedMs: 2,
      sunshineHours: 8.5,
      latitudeDeg: 13 + 44 / 60,
      elevationM: 2,
      dayOfYear: 105,
      soilHeatFluxMjM2Day: g,
    });
    expect(r).not.toBeNull();
    if (r === null) return;
    const s = r.steps;
    printed(s.tMeanC, '30.2');
    printed(s.pressureKpa, '101.3');
    // The paper takes P = 101.3 kPa, hence gamma = 0.0674 (0.0673 from P at 2 m: 101.28).
    printed(psychrometricConstant(101.3), '0.0674');
    expect(Math.abs(s.gammaKpaPerC - 0.0674)).toBeLessThan(1e-4);
    printed(s.deltaKpaPerC, '0.246');
    printed(s.esKpa, '4.42');
    printed(s.vpdKpa, '1.57');
    printed(s.raMjM2Day, '38.06');
    printed(s.daylightHours, '12.31');
    printed(s.rsMjM2Day, '22.65');
    printed(s.rsoMjM2Day, '28.54');
    printed(s.rnsMjM2Day, '17.44');
    printed(s.rnlMjM2Day, '3.11');
    printed(s.rnMjM2Day, '14.33');
    printed(s.gMjM2Day, '0.14');
    printed(r.et0_mm, '5.72');
    expect(r.estimated).toEqual([]);
    expect(s.rsSource).toBe('sunshine_eq35');
  });

  it('Example 18: daily ET0, Uccle (Brussels), 6 July: 3.9 mm/day', () => {
    // 50 deg 48' N, 100 m; Tmax 21.5, Tmin 12.3, RHmax 84 %, RHmin 63 %,
    // wind 10 km/h at 10 m, n 9.25 h; J = 187.
    const r = et0PenmanMonteithDaily({
      tMaxC: 21.5,
      tMinC: 12.3,
      rhMaxPct: 84,
      rhMinPct: 63,
      windSpeedMs: 10 / 3.6,
      windHeightM: 10,
      sunshineHours: 9.25,
      latitudeDeg: 50 + 48 / 60,
      elevationM: 100,
      dayOfYear: 187,
    });
    expect(r).not.toBeNull();
    if (r === null) return;
    const s = r.steps;
    printed(s.u2Ms, '2.078');
    printed(s.pressureKpa, '100.1');
    printed(s.gammaKpaPerC, '0.0666');
    printed(s.tMeanC, '16.9');
    printed(s.deltaKpaPerC, '0.122');
    printed(saturationVapourPressure(21.5), '2.564');
    printed(saturationVapourPressure(12.3), '1.431');
    printed(s.esKpa, '1.997');
    printed(s.eaKpa, '1.409');
    printed(s.vpdKpa, '0.589');
    printed(s.inverseRelativeDistance, '0.967');
    printed(s.raMjM2Day, '41.09');
    printed(s.daylightHours, '16.1');
    printed(s.rsMjM2Day, '22.07');
    printed(s.rsoMjM2Day, '30.90');
    printed(s.rnlMjM2Day, '3.71');
    printed(s.rnMjM2Day, '13.28');
    expect(s.gMjM2Day).toBe(0); // eq. 42
    printed(r.et0_mm, '3.9');
    expect(r.method).toBe('penman_monteith');
    expect(r.estimated).toEqual([]);
    expect(s.eaSource).toBe('rh_max_min_eq17');
    expect(s.windSource).toBe('adjusted_eq47');
  });

  describe('Example 19: hourly ET0, N’Diaye (Senegal), 1 October', () => {
    // 16 deg 13' N, 16 deg 15' W, 8 m; J = 274. The paper takes Lz = 15 deg west for
    // the time zone centre and Lm = 16.25 deg west for the site (eq. 31), and for the
    // night hour assumes Rs/Rso = 0.8 (the value before sunset).
    const site: Omit<HourlyEt0Input, 'tempC' | 'solarRadiationMjM2' | 'clockHourMidpoint'> = {
      latitudeDeg: 16 + 13 / 60,
      elevationM: 8,
      dayOfYear: 274,
      longitudeDegEast: -(16 + 15 / 60),
      timeZoneMeridianDegEast: -15,
      nightRsOverRso: 0.8,
    };

    it('14:00-15:00: Thr 38 C, RH 52 %, u2 3.3 m/s, Rs 2.450 MJ/m2/hour: 0.63 mm/hour', () => {
      const r = et0PenmanMonteithHourly({
        ...site,
        tempC: 38,
        rhPct: 52,
        windSpeedMs: 3.3,
        solarRadiationMjM2: 2.45,
        clockHourMidpoint: 14.5,
      });
      expect(r).not.toBeNull();
      if (r === null) return;
      const s = r.steps;
      printed(s.pressureKpa, '101.2');
      printed(s.gammaKpaPerC, '0.0673');
      printed(s.esKpa, '6.625');
      printed(s.eaKpa, '3.445');
      printed(s.vpdKpa, '3.180');
      printed(s.deltaKpaPerC, '0.358');
      printed(s.solarTimeAngleRad, '0.682');
      printed(s.raMjM2, '3.543');
      printed(s.rsoMjM2, '2.658');
      printed(s.rsOverRso, '0.922');
      printed(s.rnsMjM2, '1.887');
      printed(s.rnlMjM2, '0.137');
      printed(s.rnMjM2, '1.749');
      printed(s.gMjM2, '0.175'); // eq. 45
      printed(r.et0_mm, '0.63');
      expect(r.timestep).toBe('hourly');
      expect(r.estimated).toEqual([]);
    });

    it('02:00-03:00: Thr 28 C, RH 90 %, u2 1.9 m/s, Rs 0: 0.0 mm/hour', () => {
      const r = et0PenmanMonteithHourly({
        ...site,
        tempC: 28,
        rhPct: 90,
        windSpeedMs: 1.9,
        solarRadiationMjM2: 0,
        clockHourMidpoint: 2.5,
      });
      expect(r).not.toBeNull();
      if (r === null) return;
      const s = r.steps;
      printed(s.esKpa, '3.780');
      printed(s.eaKpa, '3.402');
      printed(s.vpdKpa, '0.378');
      printed(s.deltaKpaPerC, '0.220');
      expect(s.raMjM2).toBe(0); // sun below the horizon
      expect(s.daylight).toBe(false);
      expect(s.rsOverRso).toBe(0.8);
      printed(s.rnlMjM2, '0.100');
      printed(s.rnMjM2, '-0.100');
      printed(s.gMjM2, '-0.050'); // eq. 46
      printed(r.et0_mm, '0.0');
      printed(r.et0_mm, '0.00');
    });
  });

  describe('Example 20: ET0 with missing data, Lyon (45 deg 43 N, 200 m), July: only Tmax 26.6 and Tmin 14.8', () => {
    const lyon = { tMaxC: 26.6, tMinC: 14.8, latitudeDeg: 45 + 43 / 60, elevationM: 200, dayOfYear: 196 };

    it('ea from Tmin (eq. 48): 1.68 kPa; Rs from the temperature range (eq. 50): 22.3; u2 = 2 m/s', () => {
      printed(estimatedActualVapourPressureFromTmin(14.8), '1.68');
      printed(actualVapourPressureFromDewpoint(14.8), '1.68');
      const r = et0PenmanMonteithDaily(lyon);
      expect(r).not.toBeNull();
      if (r === null) return;
      expect([...r.estimated].sort()).toEqual(['humidity', 'radiation', 'wind']);
      printed(r.steps.eaKpa, '1.68');
      printed(r.steps.rsMjM2Day, '22.3');
      expect(r.steps.u2Ms).toBe(2);
      // The PM result with these estimates (4.56 mm/day here) is not asserted
      // against the paper: its printed value could not be confirmed.
      expect(r.et0_mm).toBeGreaterThan(4.4);
      expect(r.et0_mm).toBeLessThan(4.7);
    });

    it('Hargreaves (eq. 52): 5.0 mm/day', () => {
      const r = et0HargreavesSamani(lyon);
      expect(r).not.toBeNull();
      if (r === null) return;
      printed(r.steps.raMjM2Day, '40.6');
      printed(r.et0_mm, '5.0');
      expect(r.method).toBe('hargreaves_samani');
    });
  });
});

describe('equation spot checks', () => {
  it('eq. 13 against the paper’s Annex 2 table: Delta(1) = 0.047, Delta(20) = 0.145, Delta(30.2) = 0.246', () => {
    printed(slopeSaturationVapourPressure(1), '0.047');
    printed(slopeSaturationVapourPressure(20), '0.145');
    printed(slopeSaturationVapourPressure(30.2), '0.246');
  });

  it('eq. 47 is not defined below about 9.5 cm', () => {
    expect(windSpeedAt2m(3, 0.05)).toBeNull();
    expect(windSpeedAt2m(3, 2)).toBeCloseTo(3, 2);
  });

  it('eq. 25 is clamped: polar night gives Ra = 0 and N = 0, polar day N = 24', () => {
    const north = degreesToRadians(80);
    expect(extraterrestrialRadiationDaily(north, 355)).toBe(0);
    expect(daylightHours(sunsetHourAngle(north, solarDeclination(355)))).toBe(0);
    expect(daylightHours(sunsetHourAngle(north, solarDeclination(172)))).toBeCloseTo(24, 6);
  });
});
