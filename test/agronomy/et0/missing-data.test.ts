import {
  DEFAULT_WIND_SPEED_2M_MS,
  KRS_COASTAL,
  KRS_INTERIOR,
  et0AsceDaily,
  et0HargreavesSamani,
  et0PenmanMonteithDaily,
  et0PenmanMonteithHourly,
  estimatedActualVapourPressureFromTmin,
  evaluatePenmanMonteithDaily,
  saturationVapourPressure,
  type DailyEt0Input,
  type HourlyEt0Input,
} from '../../../server/src/agronomy/et0';

/**
 * FAO-56 chapter 3, "Procedures for calculating ETo when data are missing":
 * a missing input with a prescribed estimate is estimated and recorded in
 * `estimated`; a missing input without one gives null, never a guessed 0.
 */

// A measured summer day (Example 18's site, Uccle, 6 July).
const measured: DailyEt0Input = {
  tMaxC: 21.5,
  tMinC: 12.3,
  rhMaxPct: 84,
  rhMinPct: 63,
  windSpeedMs: 2.078,
  solarRadiationMjM2Day: 22.07,
  latitudeDeg: 50.8,
  elevationM: 100,
  dayOfYear: 187,
};

describe('daily Penman-Monteith with missing data', () => {
  it('measures everything: no estimate recorded', () => {
    const r = et0PenmanMonteithDaily(measured);
    expect(r?.estimated).toEqual([]);
    expect(r?.steps.rsSource).toBe('measured');
    expect(r?.steps.windSource).toBe('measured_2m');
  });

  it('missing humidity: ea from Tmin (eq. 48), recorded as estimated', () => {
    const r = et0PenmanMonteithDaily({ ...measured, rhMaxPct: null, rhMinPct: undefined });
    expect(r).not.toBeNull();
    expect(r?.estimated).toEqual(['humidity']);
    expect(r?.steps.eaSource).toBe('tmin_eq48');
    expect(r?.steps.eaKpa).toBeCloseTo(estimatedActualVapourPressureFromTmin(12.3), 12);
    expect(r?.steps.eaKpa).toBeCloseTo(saturationVapourPressure(12.3), 3);
  });

  it('eq. 48 for arid sites: Tdew = Tmin - offset', () => {
    const r = et0PenmanMonteithDaily({ ...measured, rhMaxPct: null, rhMinPct: null, dewpointOffsetC: 2 });
    expect(r?.steps.eaKpa).toBeCloseTo(estimatedActualVapourPressureFromTmin(10.3), 12);
  });

  it('humidity sources in order of preference: ea, dewpoint, RHmax+RHmin, RHmax, RHmean', () => {
    const base = { ...measured, rhMaxPct: null, rhMinPct: null };
    expect(et0PenmanMonteithDaily({ ...base, actualVapourPressureKpa: 1.3, tDewC: 9 })?.steps.eaSource).toBe(
      'measured',
    );
    expect(et0PenmanMonteithDaily({ ...base, tDewC: 9, rhMaxPct: 80, rhMinPct: 60 })?.steps.eaSource).toBe(
      'dewpoint_eq14',
    );
    expect(
      et0PenmanMonteithDaily({ ...base, rhMaxPct: 80, rhMinPct: 60, rhMeanPct: 70 })?.steps.eaSource,
    ).toBe('rh_max_min_eq17');
    expect(et0PenmanMonteithDaily({ ...base, rhMaxPct: 80, rhMeanPct: 70 })?.steps.eaSource).toBe(
      'rh_max_eq18',
    );
    expect(et0PenmanMonteithDaily({ ...base, rhMeanPct: 70 })?.steps.eaSource).toBe('rh_mean_eq19');
  });

  it('a relative humidity outside 0..100 % is not used', () => {
    const r = et0PenmanMonteithDaily({ ...measured, rhMaxPct: 140, rhMinPct: -3 });
    expect(r?.steps.eaSource).toBe('tmin_eq48');
    expect(r?.estimated).toEqual(['humidity']);
  });

  it('missing radiation: Rs from the temperature range (eq. 50), kRs 0.16 interior, 0.19 coastal', () => {
    const r = et0PenmanMonteithDaily({ ...measured, solarRadiationMjM2Day: null });
    expect(r?.estimated).toEqual(['radiation']);
    expect(r?.steps.rsSource).toBe('temperature_eq50');
    const ra = r?.steps.raMjM2Day ?? NaN;
    expect(r?.steps.rsMjM2Day).toBeCloseTo(KRS_INTERIOR * Math.sqrt(21.5 - 12.3) * ra, 12);
    const coastal = et0PenmanMonteithDaily({ ...measured, solarRadiationMjM2Day: null, coastal: true });
    expect(coastal?.steps.rsMjM2Day).toBeCloseTo(KRS_COASTAL * Math.sqrt(21.5 - 12.3) * ra, 12);
    const custom = et0PenmanMonteithDaily({ ...measured, solarRadiationMjM2Day: null, krs: 0.17 });
    expect(custom?.steps.rsMjM2Day).toBeCloseTo(0.17 * Math.sqrt(21.5 - 12.3) * ra, 12);
  });

  it('sunshine hours are a measurement (eq. 35), not an estimate', () => {
    const r = et0PenmanMonteithDaily({ ...measured, solarRadiationMjM2Day: null, sunshineHours: 9.25 });
    expect(r?.estimated).toEqual([]);
    expect(r?.steps.rsSource).toBe('sunshine_eq35');
  });

  it('missing wind: u2 = 2 m/s (chapter 3), recorded as estimated', () => {
    const r = et0PenmanMonteithDaily({ ...measured, windSpeedMs: null });
    expect(r?.estimated).toEqual(['wind']);
    expect(r?.steps.u2Ms).toBe(DEFAULT_WIND_SPEED_2M_MS);
    expect(r?.steps.windSource).toBe('default_2ms');
  });

  it('wind measured at 10 m is brought to 2 m with eq. 47', () => {
    const r = et0PenmanMonteithDaily({ ...measured, windSpeedMs: 3.2, windHeightM: 10 });
    expect(r?.steps.windSource).toBe('adjusted_eq47');
    expect(r?.steps.u2Ms).toBeCloseTo(2.393, 3);
    expect(r?.estimated).toEqual([]);
  });

  it('all three missing: every estimate recorded', () => {
    const r = et0PenmanMonteithDaily({
      tMaxC: 21.5,
      tMinC: 12.3,
      latitudeDeg: 50.8,
      elevationM: 100,
      dayOfYear: 187,
    });
    expect([...(r?.estimated ?? [])].sort()).toEqual(['humidity', 'radiation', 'wind']);
  });

  it.each([
    ['tMaxC', { tMaxC: null }],
    ['tMinC', { tMinC: null }],
    ['tMaxC', { tMaxC: Number.NaN }],
  ])('missing temperature (%s) gives null from every method', (name, patch) => {
    const input = { ...measured, ...patch };
    expect(et0PenmanMonteithDaily(input)).toBeNull();
    expect(et0AsceDaily(input)).toBeNull();
    expect(et0HargreavesSamani(input)).toBeNull();
    const r = evaluatePenmanMonteithDaily(input);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.missing).toContain(name);
  });

  it('Tmax below Tmin gives null', () => {
    expect(et0PenmanMonteithDaily({ ...measured, tMaxC: 10, tMinC: 12 })).toBeNull();
    expect(et0HargreavesSamani({ ...measured, tMaxC: 10, tMinC: 12 })).toBeNull();
  });

  it('missing site data (latitude, elevation, day of year) gives null: no estimate exists', () => {
    expect(et0PenmanMonteithDaily({ ...measured, latitudeDeg: null })).toBeNull();
    expect(et0PenmanMonteithDaily({ ...measured, elevationM: null })).toBeNull();
    expect(et0PenmanMonteithDaily({ ...measured, dayOfYear: null })).toBeNull();
    expect(et0PenmanMonteithDaily({ ...measured, dayOfYear: 400 })).toBeNull();
    expect(et0PenmanMonteithDaily({ ...measured, latitudeDeg: 95 })).toBeNull();
    // Hargreaves does not need the elevation.
    const noElevation: DailyEt0Input = { ...measured, elevationM: null };
    expect(et0HargreavesSamani(noElevation)).not.toBeNull();
  });

  it('the soil heat flux defaults to eq. 42 (0) for a day and takes a supplied monthly value', () => {
    expect(et0PenmanMonteithDaily(measured)?.steps.gSource).toBe('eq42_daily_zero');
    const monthly = et0PenmanMonteithDaily({ ...measured, soilHeatFluxMjM2Day: 0.33 });
    expect(monthly?.steps.gSource).toBe('supplied');
    expect(monthly?.steps.gMjM2Day).toBe(0.33);
    expect(monthly?.et0_mm ?? NaN).toBeLessThan(et0PenmanMonteithDaily(measured)?.et0_mm ?? NaN);
  });
});

describe('hourly Penman-Monteith with missing data', () => {
  // Example 19's site and afternoon hour.
  const hour: HourlyEt0Input = {
    tempC: 38,
    rhPct: 52,
    windSpeedMs: 3.3,
    solarRadiationMjM2: 2.45,
    latitudeDeg: 16 + 13 / 60,
    elevationM: 8,
    dayOfYear: 274,
    clockHourMidpoint: 14.5,
    longitudeDegEast: -16.25,
    timeZoneMeridianDegEast: -15,
  };
  const night: HourlyEt0Input = {
    ...hour,
    tempC: 28,
    rhPct: 90,
    windSpeedMs: 1.9,
    solarRadiationMjM2: 0,
    clockHourMidpoint: 2.5,
  };

  it('missing solar radiation gives null (eq. 50 is for days, not hours)', () => {
    expect(et0PenmanMonteithHourly({ ...hour, solarRadiationMjM2: null })).toBeNull();
  });

  it('missing temperature gives null', () => {
    expect(et0PenmanMonteithHourly({ ...hour, tempC: null })).toBeNull();
  });

  it('missing time or longitude gives null (eq. 31 needs them)', () => {
    expect(et0PenmanMonteithHourly({ ...hour, clockHourMidpoint: null })).toBeNull();
    expect(et0PenmanMonteithHourly({ ...hour, longitudeDegEast: null })).toBeNull();
    expect(et0PenmanMonteithHourly({ ...hour, timeZoneMeridianDegEast: null })).toBeNull();
  });

  it('missing humidity: eq. 48 from the day’s Tmin when given (recorded), else null', () => {
    expect(et0PenmanMonteithHourly({ ...hour, rhPct: null })).toBeNull();
    const r = et0PenmanMonteithHourly({ ...hour, rhPct: null, dailyTMinC: 24 });
    expect(r?.estimated).toEqual(['humidity']);
    expect(r?.steps.eaSource).toBe('tmin_eq48');
  });

  it('missing wind: 2 m/s, recorded', () => {
    const r = et0PenmanMonteithHourly({ ...hour, windSpeedMs: null });
    expect(r?.estimated).toEqual(['wind']);
    expect(r?.steps.u2Ms).toBe(2);
  });

  it('night hour without Rs/Rso from before sunset and without a climate class gives null', () => {
    expect(et0PenmanMonteithHourly(night)).toBeNull();
  });

  it('night hour with a climate class: Rs/Rso 0.8 (arid) or 0.5 (humid), recorded as estimated', () => {
    const arid = et0PenmanMonteithHourly({ ...night, climate: 'arid' });
    const explicit = et0PenmanMonteithHourly({ ...night, nightRsOverRso: 0.8 });
    expect(arid?.estimated).toEqual(['night_cloudiness']);
    expect(explicit?.estimated).toEqual([]);
    expect(arid?.et0_mm).toBeCloseTo(explicit?.et0_mm ?? NaN, 12);
    const humid = et0PenmanMonteithHourly({ ...night, climate: 'humid' });
    expect(humid?.steps.rsOverRso).toBe(0.5);
  });

  it('a daytime hour does not need the night-time ratio', () => {
    const r = et0PenmanMonteithHourly({ ...hour, climate: 'humid' });
    expect(r?.estimated).toEqual([]);
    expect(r?.steps.lowSun).toBe(false);
  });
});
