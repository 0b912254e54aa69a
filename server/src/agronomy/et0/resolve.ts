/**
 * Turns raw weather and site inputs into the terms every daily or hourly
 * reference equation shares, applying the FAO-56 chapter 3 procedures for
 * missing data where the paper prescribes one and recording each use.
 * Anything else that is missing makes the resolution fail with the names of
 * the missing inputs: a missing value is never read as 0.
 */
import { atmosphericPressure, meanAirTemperature, psychrometricConstant } from './atmosphere';
import {
  ANGSTROM_AS,
  ANGSTROM_BS,
  DEFAULT_WIND_SPEED_2M_MS,
  KRS_COASTAL,
  KRS_INTERIOR,
  STANDARD_WIND_HEIGHT_M,
  degreesToRadians,
  isNum,
} from './constants';
import {
  actualVapourPressureFromDewpoint,
  actualVapourPressureFromRhMax,
  actualVapourPressureFromRhMaxMin,
  actualVapourPressureFromRhMean,
  actualVapourPressureHourly,
  estimatedActualVapourPressureFromTmin,
  meanSaturationVapourPressure,
  saturationVapourPressure,
  slopeSaturationVapourPressure,
} from './humidity';
import {
  clearSkyRadiation,
  daylightHours,
  extraterrestrialRadiationDaily,
  extraterrestrialRadiationHourly,
  inverseRelativeDistance,
  netShortwaveRadiation,
  relativeShortwaveRadiation,
  solarDeclination,
  solarRadiationFromSunshine,
  solarRadiationFromTemperature,
  sunsetHourAngle,
} from './radiation';
import type { EstimatedInput, SolarRadiationSource, VapourPressureSource, WindSource } from './types';
import { windSpeedAt2m } from './wind';

/** Inputs for one day (or a month of daily means, with G supplied from eq. 43/44). */
export interface DailyEt0Input {
  /** Maximum and minimum air temperature at 2 m over the day, C. Both required (no estimate exists). */
  tMaxC: number | null;
  tMinC: number | null;
  /** Humidity, used in this order of preference: ea, dewpoint, RHmax+RHmin, RHmax, RHmean; else eq. 48. */
  actualVapourPressureKpa?: number | null;
  tDewC?: number | null;
  rhMaxPct?: number | null;
  rhMinPct?: number | null;
  rhMeanPct?: number | null;
  /** Mean wind speed, m/s, measured at `windHeightM` (default 2 m); missing: 2 m/s (chapter 3). */
  windSpeedMs?: number | null;
  windHeightM?: number | null;
  /** Measured solar radiation, MJ m-2 day-1; else sunshine hours (eq. 35); else eq. 50. */
  solarRadiationMjM2Day?: number | null;
  sunshineHours?: number | null;
  /** Site latitude in DECIMAL DEGREES, north positive (converted with eq. 22). */
  latitudeDeg: number | null;
  /** Site elevation above sea level, m (eq. 7, eq. 37). */
  elevationM: number | null;
  /** Day of the year, 1 to 366 (eq. 23, 24). For monthly means: the 15th of the month. */
  dayOfYear: number | null;
  /** Soil heat flux G, MJ m-2 day-1. Omitted: eq. 42 (G ~ 0 for a day). For months use eq. 43/44. */
  soilHeatFluxMjM2Day?: number | null;
  /** kRs of eq. 50; default 0.16 (interior), or 0.19 when `coastal`. */
  krs?: number;
  coastal?: boolean;
  /** Tdew = Tmin - offset for eq. 48 (0 humid; 2 to 3 C arid, chapter 3 and Annex 6). */
  dewpointOffsetC?: number;
  /** Calibrated Angstrom constants for eq. 35 (default 0.25 and 0.50). */
  angstromAs?: number;
  angstromBs?: number;
}

/** Site, atmosphere, vapour and wind terms every timestep shares. */
export interface SharedTerms {
  latitudeRad: number;
  dayOfYear: number;
  elevationM: number;
  pressureKpa: number;
  gammaKpaPerC: number;
  deltaKpaPerC: number;
  esKpa: number;
  eaKpa: number;
  eaSource: VapourPressureSource;
  vpdKpa: number;
  u2Ms: number;
  windSource: WindSource;
}

/** The daily terms shared by FAO-56 PM (eq. 6) and the ASCE standardized equation. */
export interface DailyTerms extends SharedTerms {
  tMaxC: number;
  tMinC: number;
  tMeanC: number;
  inverseRelativeDistance: number;
  declinationRad: number;
  sunsetHourAngleRad: number;
  raMjM2Day: number;
  daylightHours: number;
  rsMjM2Day: number;
  rsSource: SolarRadiationSource;
  rsoMjM2Day: number;
  /** Rs/Rso limited to <= 1.0 (eq. 39); null when Rso is 0 (polar night). */
  rsOverRso: number | null;
  rnsMjM2Day: number;
  gMjM2Day: number;
  gSource: 'eq42_daily_zero' | 'supplied';
  estimated: EstimatedInput[];
}

export type Resolution<T> = { ok: true; value: T } | { ok: false; missing: string[] };

function validRh(x: number | null | undefined): x is number {
  return isNum(x) && x >= 0 && x <= 100;
}

function validDayOfYear(j: number | null | undefined): j is number {
  return isNum(j) && Number.isInteger(j) && j >= 1 && j <= 366;
}

function validLatitude(lat: number | null | undefined): lat is number {
  return isNum(lat) && lat >= -90 && lat <= 90;
}

interface WindResolution {
  u2: number;
  source: WindSource;
}

/** Wind at 2 m: measured, adjusted with eq. 47, or the chapter 3 default of 2 m/s. */
function resolveWind(
  speed: number | null | undefined,
  height: number | null | undefined,
): WindResolution | null {
  if (isNum(speed) && speed >= 0) {
    const z = isNum(height) ? height : STANDARD_WIND_HEIGHT_M;
    if (z === STANDARD_WIND_HEIGHT_M) return { u2: speed, source: 'measured_2m' };
    const u2 = windSpeedAt2m(speed, z); // eq. 47
    return u2 === null ? null : { u2, source: 'adjusted_eq47' };
  }
  return { u2: DEFAULT_WIND_SPEED_2M_MS, source: 'default_2ms' };
}

/** Resolves every shared daily term, or names the required inputs that are missing. */
export function resolveDaily(input: DailyEt0Input): Resolution<DailyTerms> {
  const missing: string[] = [];
  const { tMaxC, tMinC, latitudeDeg, elevationM, dayOfYear } = input;
  if (!isNum(tMaxC)) missing.push('tMaxC');
  if (!isNum(tMinC)) missing.push('tMinC');
  if (!validLatitude(latitudeDeg)) missing.push('latitudeDeg');
  if (!isNum(elevationM)) missing.push('elevationM');
  if (!validDayOfYear(dayOfYear)) missing.push('dayOfYear');
  if (
    !isNum(tMaxC) ||
    !isNum(tMinC) ||
    !validLatitude(latitudeDeg) ||
    !isNum(elevationM) ||
    !validDayOfYear(dayOfYear)
  ) {
    return { ok: false, missing };
  }
  if (tMaxC < tMinC) return { ok: false, missing: ['tMaxC >= tMinC'] };

  const estimated: EstimatedInput[] = [];
  const tMeanC = meanAirTemperature(tMaxC, tMinC); // eq. 9
  const pressureKpa = atmosphericPressure(elevationM); // eq. 7
  const gammaKpaPerC = psychrometricConstant(pressureKpa); // eq. 8
  const deltaKpaPerC = slopeSaturationVapourPressure(tMeanC); // eq. 13
  const esKpa = meanSaturationVapourPressure(tMaxC, tMinC); // eq. 11, 12

  let eaKpa: number;
  let eaSource: VapourPressureSource;
  if (isNum(input.actualVapourPressureKpa) && input.actualVapourPressureKpa >= 0) {
    eaKpa = input.actualVapourPressureKpa;
    eaSource = 'measured';
  } else if (isNum(input.tDewC)) {
    eaKpa = actualVapourPressureFromDewpoint(input.tDewC); // eq. 14
    eaSource = 'dewpoint_eq14';
  } else if (validRh(input.rhMaxPct) && validRh(input.rhMinPct)) {
    eaKpa = actualVapourPressureFromRhMaxMin(tMinC, tMaxC, input.rhMaxPct, input.rhMinPct); // eq. 17
    eaSource = 'rh_max_min_eq17';
  } else if (validRh(input.rhMaxPct)) {
    eaKpa = actualVapourPressureFromRhMax(tMinC, input.rhMaxPct); // eq. 18
    eaSource = 'rh_max_eq18';
  } else if (validRh(input.rhMeanPct)) {
    eaKpa = actualVapourPressureFromRhMean(tMinC, tMaxC, input.rhMeanPct); // eq. 19
    eaSource = 'rh_mean_eq19';
  } else {
    eaKpa = estimatedActualVapourPressureFromTmin(tMinC, input.dewpointOffsetC ?? 0); // eq. 48
    eaSource = 'tmin_eq48';
    estimated.push('humidity');
  }

  const wind = resolveWind(input.windSpeedMs, input.windHeightM);
  if (wind === null) return { ok: false, missing: ['windHeightM'] };
  if (wind.source === 'default_2ms') estimated.push('wind');

  const latitudeRad = degreesToRadians(latitudeDeg); // eq. 22
  const dr = inverseRelativeDistance(dayOfYear); // eq. 23
  const decl = solarDeclination(dayOfYear); // eq. 24
  const ws = sunsetHourAngle(latitudeRad, decl); // eq. 25
  const raMjM2Day = extraterrestrialRadiationDaily(latitudeRad, dayOfYear); // eq. 21
  const nHours = daylightHours(ws); // eq. 34

  let rsMjM2Day: number;
  let rsSource: SolarRadiationSource;
  if (isNum(input.solarRadiationMjM2Day) && input.solarRadiationMjM2Day >= 0) {
    rsMjM2Day = input.solarRadiationMjM2Day;
    rsSource = 'measured';
  } else if (isNum(input.sunshineHours) && input.sunshineHours >= 0) {
    rsMjM2Day = solarRadiationFromSunshine(
      input.sunshineHours,
      nHours,
      raMjM2Day,
      input.angstromAs ?? ANGSTROM_AS,
      input.angstromBs ?? ANGSTROM_BS,
    ); // eq. 35
    rsSource = 'sunshine_eq35';
  } else {
    const krs = input.krs ?? (input.coastal ? KRS_COASTAL : KRS_INTERIOR);
    // Tmax >= Tmin was checked above, so eq. 50 always yields a number here.
    rsMjM2Day = solarRadiationFromTemperature(tMaxC, tMinC, raMjM2Day, krs) ?? 0; // eq. 50
    rsSource = 'temperature_eq50';
    estimated.push('radiation');
  }

  const rsoMjM2Day = clearSkyRadiation(raMjM2Day, elevationM); // eq. 37
  const rsOverRso = relativeShortwaveRadiation(rsMjM2Day, rsoMjM2Day); // eq. 39 (<= 1.0)
  const rnsMjM2Day = netShortwaveRadiation(rsMjM2Day); // eq. 38

  const suppliedG = isNum(input.soilHeatFluxMjM2Day) ? input.soilHeatFluxMjM2Day : null;

  return {
    ok: true,
    value: {
      tMaxC,
      tMinC,
      tMeanC,
      latitudeRad,
      dayOfYear,
      elevationM,
      pressureKpa,
      gammaKpaPerC,
      deltaKpaPerC,
      esKpa,
      eaKpa,
      eaSource,
      vpdKpa: esKpa - eaKpa,
      u2Ms: wind.u2,
      windSource: wind.source,
      inverseRelativeDistance: dr,
      declinationRad: decl,
      sunsetHourAngleRad: ws,
      raMjM2Day,
      daylightHours: nHours,
      rsMjM2Day,
      rsSource,
      rsoMjM2Day,
      rsOverRso,
      rnsMjM2Day,
      gMjM2Day: suppliedG ?? 0, // eq. 42
      gSource: suppliedG === null ? 'eq42_daily_zero' : 'supplied',
      estimated,
    },
  };
}

/** Climate class for the night-time Rs/Rso simplification of hourly periods. */
export type HourlyClimate = 'humid' | 'arid';

/**
 * Rs/Rso assumed for night (and low-sun) hours when no value from the 2 to 3
 * hours before sunset is supplied: the paper's simplification of about 0.4 to
 * 0.6 in humid and subhumid climates and 0.7 to 0.8 in arid and semiarid ones.
 * The humid value is the middle of its range; the arid value is the one the
 * paper's Example 19 uses.
 */
export const NIGHT_RS_OVER_RSO: Record<HourlyClimate, number> = { humid: 0.5, arid: 0.8 };

/**
 * Sun elevation (rad) under which an hour's Rs/Rso is not trusted and the
 * night-time value is used instead (ASCE-EWRI 2005: 0.3 rad, about 17 degrees).
 * FAO-56 only says "night"; low-sun hours have Rso near zero and an erratic ratio.
 */
export const LOW_SUN_ELEVATION_RAD = 0.3;

/** Inputs for one hourly (or shorter) period. */
export interface HourlyEt0Input {
  /** Mean air temperature over the period at 2 m, C. Required. */
  tempC: number | null;
  /** Humidity, in order of preference: ea, dewpoint, RH of the period (eq. 54); else eq. 48 from the day's Tmin. */
  actualVapourPressureKpa?: number | null;
  tDewC?: number | null;
  rhPct?: number | null;
  /** The day's minimum temperature, C, only used by eq. 48 when humidity is missing. */
  dailyTMinC?: number | null;
  /** Mean wind speed over the period, m/s, at `windHeightM` (default 2 m); missing: 2 m/s. */
  windSpeedMs?: number | null;
  windHeightM?: number | null;
  /** Measured solar radiation over the period, MJ m-2 per period. Required (no hourly estimate exists). */
  solarRadiationMjM2: number | null;
  /** Site latitude in DECIMAL DEGREES, north positive. */
  latitudeDeg: number | null;
  elevationM: number | null;
  dayOfYear: number | null;
  /** Standard clock time (no daylight saving) at the middle of the period, hours: 14.5 for 14:00-15:00. */
  clockHourMidpoint: number | null;
  /** Site longitude, DECIMAL DEGREES EAST (west negative). */
  longitudeDegEast: number | null;
  /** Longitude of the centre of the local standard time zone, degrees EAST (15 x the UTC offset in hours). */
  timeZoneMeridianDegEast: number | null;
  /** Length of the period, hours (default 1). */
  periodHours?: number;
  /** Rs/Rso of the 2-3 hours before sunset, used for night and low-sun hours (eq. 39). */
  nightRsOverRso?: number | null;
  /** Used for the night-time Rs/Rso when `nightRsOverRso` is missing; that use is recorded as estimated. */
  climate?: HourlyClimate;
}

/** Hourly terms shared by FAO-56 eq. 53 and the ASCE hourly equation. */
export interface HourlyTerms extends SharedTerms {
  tempC: number;
  solarTimeAngleRad: number;
  omega1Rad: number;
  omega2Rad: number;
  sunElevationRad: number;
  raMjM2: number;
  rsMjM2: number;
  rsoMjM2: number;
  /** Rs/Rso from the measured Rs, limited to <= 1.0; null when Rso is 0 (sun below the horizon). */
  rsOverRsoMeasured: number | null;
  /** The night-time Rs/Rso (supplied, or from the climate class); null when neither was given. */
  nightRsOverRso: number | null;
  /** True when the sun is above the horizon during part of the period (Ra > 0). */
  daylight: boolean;
  /** True when the sun elevation at the midpoint is under LOW_SUN_ELEVATION_RAD. */
  lowSun: boolean;
  rnsMjM2: number;
  estimated: EstimatedInput[];
}

/** Resolves the shared hourly terms, or names the required inputs that are missing. */
export function resolveHourly(input: HourlyEt0Input): Resolution<HourlyTerms> {
  const missing: string[] = [];
  const {
    tempC,
    latitudeDeg,
    elevationM,
    dayOfYear,
    clockHourMidpoint,
    longitudeDegEast,
    timeZoneMeridianDegEast,
  } = input;
  const rs = input.solarRadiationMjM2;
  if (!isNum(tempC)) missing.push('tempC');
  if (!(isNum(rs) && rs >= 0)) missing.push('solarRadiationMjM2');
  if (!validLatitude(latitudeDeg)) missing.push('latitudeDeg');
  if (!isNum(elevationM)) missing.push('elevationM');
  if (!validDayOfYear(dayOfYear)) missing.push('dayOfYear');
  if (!isNum(clockHourMidpoint)) missing.push('clockHourMidpoint');
  if (!isNum(longitudeDegEast)) missing.push('longitudeDegEast');
  if (!isNum(timeZoneMeridianDegEast)) missing.push('timeZoneMeridianDegEast');
  const periodHours = input.periodHours ?? 1;
  if (!(isNum(periodHours) && periodHours > 0 && periodHours <= 24)) missing.push('periodHours');
  if (
    !isNum(tempC) ||
    !(isNum(rs) && rs >= 0) ||
    !validLatitude(latitudeDeg) ||
    !isNum(elevationM) ||
    !validDayOfYear(dayOfYear) ||
    !isNum(clockHourMidpoint) ||
    !isNum(longitudeDegEast) ||
    !isNum(timeZoneMeridianDegEast) ||
    missing.length > 0
  ) {
    return { ok: false, missing };
  }

  const estimated: EstimatedInput[] = [];
  const pressureKpa = atmosphericPressure(elevationM); // eq. 7
  const gammaKpaPerC = psychrometricConstant(pressureKpa); // eq. 8
  const deltaKpaPerC = slopeSaturationVapourPressure(tempC); // eq. 13 at Thr
  const esKpa = saturationVapourPressure(tempC); // eq. 11 at Thr

  let eaKpa: number;
  let eaSource: VapourPressureSource;
  if (isNum(input.actualVapourPressureKpa) && input.actualVapourPressureKpa >= 0) {
    eaKpa = input.actualVapourPressureKpa;
    eaSource = 'measured';
  } else if (isNum(input.tDewC)) {
    eaKpa = actualVapourPressureFromDewpoint(input.tDewC); // eq. 14
    eaSource = 'dewpoint_eq14';
  } else if (validRh(input.rhPct)) {
    eaKpa = actualVapourPressureHourly(tempC, input.rhPct); // eq. 54
    eaSource = 'rh_hourly_eq54';
  } else if (isNum(input.dailyTMinC)) {
    eaKpa = estimatedActualVapourPressureFromTmin(input.dailyTMinC); // eq. 48
    eaSource = 'tmin_eq48';
    estimated.push('humidity');
  } else {
    return { ok: false, missing: ['humidity (ea, tDewC, rhPct or dailyTMinC)'] };
  }

  const wind = resolveWind(input.windSpeedMs, input.windHeightM);
  if (wind === null) return { ok: false, missing: ['windHeightM'] };
  if (wind.source === 'default_2ms') estimated.push('wind');

  const latitudeRad = degreesToRadians(latitudeDeg); // eq. 22
  const ext = extraterrestrialRadiationHourly(
    latitudeRad,
    dayOfYear,
    clockHourMidpoint,
    longitudeDegEast,
    timeZoneMeridianDegEast,
    periodHours,
  ); // eq. 28-33
  const rsoMjM2 = clearSkyRadiation(ext.raMjM2, elevationM); // eq. 37
  const daylight = ext.raMjM2 > 0;
  const lowSun = ext.sunElevationRad < LOW_SUN_ELEVATION_RAD;

  let nightRsOverRso: number | null = null;
  if (isNum(input.nightRsOverRso)) {
    nightRsOverRso = Math.min(1, Math.max(0, input.nightRsOverRso));
  } else if (input.climate !== undefined) {
    nightRsOverRso = NIGHT_RS_OVER_RSO[input.climate];
    if (lowSun) estimated.push('night_cloudiness');
  }
  if (lowSun && nightRsOverRso === null) {
    return { ok: false, missing: ['nightRsOverRso (or climate) for a night or low-sun hour'] };
  }

  return {
    ok: true,
    value: {
      tempC,
      latitudeRad,
      dayOfYear,
      elevationM,
      pressureKpa,
      gammaKpaPerC,
      deltaKpaPerC,
      esKpa,
      eaKpa,
      eaSource,
      vpdKpa: esKpa - eaKpa,
      u2Ms: wind.u2,
      windSource: wind.source,
      solarTimeAngleRad: ext.solarTimeAngleRad,
      omega1Rad: ext.omega1Rad,
      omega2Rad: ext.omega2Rad,
      sunElevationRad: ext.sunElevationRad,
      raMjM2: ext.raMjM2,
      rsMjM2: rs,
      rsoMjM2,
      rsOverRsoMeasured: relativeShortwaveRadiation(rs, rsoMjM2),
      nightRsOverRso,
      daylight,
      lowSun,
      rnsMjM2: netShortwaveRadiation(rs), // eq. 38
      estimated,
    },
  };
}
