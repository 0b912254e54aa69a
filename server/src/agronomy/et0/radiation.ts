/**
 * Radiation, FAO-56 chapter 3 ("Radiation", eq. 21 to 40), soil heat flux
 * (eq. 41 to 46) and the missing-radiation procedures of chapter 3 (eq. 50, 51).
 *
 * Latitudes here are in RADIANS, positive north (eq. 22 converts degrees).
 * Energy is MJ m-2 per day, or per hour for the hourly functions.
 */
import {
  ANGSTROM_AS,
  ANGSTROM_BS,
  GRASS_REFERENCE_ALBEDO,
  ISLAND_RADIATION_B,
  KELVIN_OFFSET_RADIATION,
  SOLAR_CONSTANT_MJ_M2_MIN,
  STEFAN_BOLTZMANN_MJ_K4_M2_DAY,
  STEFAN_BOLTZMANN_MJ_K4_M2_HOUR,
} from './constants';

/** Inverse relative distance Earth-Sun dr for day of year J (1..365 or 366), eq. 23. */
export function inverseRelativeDistance(dayOfYear: number): number {
  return 1 + 0.033 * Math.cos(((2 * Math.PI) / 365) * dayOfYear);
}

/** Solar declination delta (rad) for day of year J, eq. 24. */
export function solarDeclination(dayOfYear: number): number {
  return 0.409 * Math.sin(((2 * Math.PI) / 365) * dayOfYear - 1.39);
}

/**
 * Sunset hour angle omega_s (rad), eq. 25: omega_s = arccos(-tan(phi) tan(delta)).
 * The argument is clamped to [-1, 1] so that polar day (omega_s = pi) and polar
 * night (omega_s = 0) are defined, as eq. 26-27 intend for high latitudes.
 */
export function sunsetHourAngle(latitudeRad: number, declinationRad: number): number {
  const x = -Math.tan(latitudeRad) * Math.tan(declinationRad);
  return Math.acos(Math.min(1, Math.max(-1, x)));
}

/**
 * Extraterrestrial radiation Ra (MJ m-2 day-1) for daily periods, eq. 21:
 * Ra = 24(60)/pi Gsc dr [omega_s sin(phi) sin(delta) + cos(phi) cos(delta) sin(omega_s)],
 * with dr (eq. 23), delta (eq. 24) and omega_s (eq. 25).
 */
export function extraterrestrialRadiationDaily(latitudeRad: number, dayOfYear: number): number {
  const dr = inverseRelativeDistance(dayOfYear);
  const decl = solarDeclination(dayOfYear);
  const ws = sunsetHourAngle(latitudeRad, decl);
  const ra =
    ((24 * 60) / Math.PI) *
    SOLAR_CONSTANT_MJ_M2_MIN *
    dr *
    (ws * Math.sin(latitudeRad) * Math.sin(decl) + Math.cos(latitudeRad) * Math.cos(decl) * Math.sin(ws));
  return Math.max(0, ra);
}

/** Maximum possible duration of sunshine, daylight hours N, eq. 34: N = 24/pi omega_s. */
export function daylightHours(sunsetHourAngleRad: number): number {
  return (24 / Math.PI) * sunsetHourAngleRad;
}

/** Seasonal correction for solar time Sc (hour), eq. 32, with b from eq. 33. */
export function seasonalCorrection(dayOfYear: number): number {
  const b = (2 * Math.PI * (dayOfYear - 81)) / 364; // eq. 33
  return 0.1645 * Math.sin(2 * b) - 0.1255 * Math.cos(b) - 0.025 * Math.sin(b);
}

/** Wraps an angle into [-pi, pi). */
function wrapAngle(rad: number): number {
  const twoPi = 2 * Math.PI;
  return rad - twoPi * Math.floor((rad + Math.PI) / twoPi);
}

/**
 * Solar time angle omega (rad) at the midpoint of a period, eq. 31:
 * omega = pi/12 [(t + 0.06667 (Lz - Lm) + Sc) - 12].
 *
 * The paper measures Lz (centre of the local time zone) and Lm (the site) in
 * degrees WEST of Greenwich. This function takes both as the usual signed
 * longitudes, degrees EAST positive, so (Lz - Lm) becomes (lonSite - lonZone).
 * `clockHourMidpoint` is standard clock time (no daylight saving) at the middle
 * of the period, e.g. 14.5 for 14:00-15:00. The result is wrapped to [-pi, pi).
 */
export function solarTimeAngle(
  clockHourMidpoint: number,
  longitudeDegEast: number,
  timeZoneMeridianDegEast: number,
  dayOfYear: number,
): number {
  const sc = seasonalCorrection(dayOfYear);
  const w =
    (Math.PI / 12) * (clockHourMidpoint + 0.06667 * (longitudeDegEast - timeZoneMeridianDegEast) + sc - 12);
  return wrapAngle(w);
}

/** Intermediate values of the hourly extraterrestrial radiation (eq. 28-31). */
export interface HourlyExtraterrestrial {
  raMjM2: number;
  solarTimeAngleRad: number;
  omega1Rad: number;
  omega2Rad: number;
  sunsetHourAngleRad: number;
  declinationRad: number;
  inverseRelativeDistance: number;
  /** Sun elevation angle at the period midpoint (rad); negative when below the horizon. */
  sunElevationRad: number;
}

/**
 * Extraterrestrial radiation Ra (MJ m-2 per period) for hourly or shorter
 * periods, eq. 28: Ra = 12(60)/pi Gsc dr [(w2 - w1) sin(phi) sin(delta)
 * + cos(phi) cos(delta) (sin(w2) - sin(w1))], with w1 = w - pi t1/24 (eq. 29),
 * w2 = w + pi t1/24 (eq. 30) and w from eq. 31. The paper sets Ra to zero when
 * w lies outside [-ws, ws] (sun below the horizon); the period ends are also
 * clamped to [-ws, ws] so that periods containing sunrise or sunset count only
 * their sunlit part.
 */
export function extraterrestrialRadiationHourly(
  latitudeRad: number,
  dayOfYear: number,
  clockHourMidpoint: number,
  longitudeDegEast: number,
  timeZoneMeridianDegEast: number,
  periodHours = 1,
): HourlyExtraterrestrial {
  const dr = inverseRelativeDistance(dayOfYear);
  const decl = solarDeclination(dayOfYear);
  const ws = sunsetHourAngle(latitudeRad, decl);
  const w = solarTimeAngle(clockHourMidpoint, longitudeDegEast, timeZoneMeridianDegEast, dayOfYear);
  const half = (Math.PI * periodHours) / 24;
  const w1 = Math.min(ws, Math.max(-ws, w - half)); // eq. 29
  const w2 = Math.min(ws, Math.max(-ws, w + half)); // eq. 30
  const ra =
    ((12 * 60) / Math.PI) *
    SOLAR_CONSTANT_MJ_M2_MIN *
    dr *
    ((w2 - w1) * Math.sin(latitudeRad) * Math.sin(decl) +
      Math.cos(latitudeRad) * Math.cos(decl) * (Math.sin(w2) - Math.sin(w1)));
  const sinBeta =
    Math.sin(latitudeRad) * Math.sin(decl) + Math.cos(latitudeRad) * Math.cos(decl) * Math.cos(w);
  return {
    raMjM2: Math.max(0, ra),
    solarTimeAngleRad: w,
    omega1Rad: w1,
    omega2Rad: w2,
    sunsetHourAngleRad: ws,
    declinationRad: decl,
    inverseRelativeDistance: dr,
    sunElevationRad: Math.asin(Math.min(1, Math.max(-1, sinBeta))),
  };
}

/**
 * Solar (shortwave) radiation Rs from the relative sunshine duration n/N, the
 * Angstrom formula, eq. 35: Rs = (as + bs n/N) Ra, with as = 0.25 and bs = 0.50
 * where no calibration exists. n/N is capped at 1 (n cannot exceed N).
 */
export function solarRadiationFromSunshine(
  sunshineHours: number,
  daylightHoursN: number,
  raMjM2: number,
  as = ANGSTROM_AS,
  bs = ANGSTROM_BS,
): number {
  const ratio = daylightHoursN > 0 ? Math.min(1, sunshineHours / daylightHoursN) : 0;
  return (as + bs * ratio) * raMjM2;
}

/** Clear-sky solar radiation Rso where calibrated as and bs exist, eq. 36: Rso = (as + bs) Ra. */
export function clearSkyRadiationAngstrom(raMjM2: number, as = ANGSTROM_AS, bs = ANGSTROM_BS): number {
  return (as + bs) * raMjM2;
}

/** Clear-sky solar radiation Rso from the station elevation z (m), eq. 37: Rso = (0.75 + 2e-5 z) Ra. */
export function clearSkyRadiation(raMjM2: number, elevationM: number): number {
  return (0.75 + 2e-5 * elevationM) * raMjM2;
}

/**
 * Solar radiation estimated from the air temperature difference when radiation
 * data are missing, the Hargreaves radiation formula, eq. 50:
 * Rs = kRs sqrt(Tmax - Tmin) Ra, kRs = 0.16 for interior and 0.19 for coastal
 * locations. Returns null when Tmax < Tmin.
 */
export function solarRadiationFromTemperature(
  tMaxC: number,
  tMinC: number,
  raMjM2Day: number,
  krs: number,
): number | null {
  if (tMaxC < tMinC) return null;
  return krs * Math.sqrt(tMaxC - tMinC) * raMjM2Day;
}

/**
 * Solar radiation for island locations (land mass under 20 km across, elevation
 * up to 100 m) when radiation data are missing, eq. 51: Rs = 0.7 Ra - b, b = 4 MJ m-2 day-1.
 */
export function solarRadiationIsland(raMjM2Day: number, b = ISLAND_RADIATION_B): number {
  return 0.7 * raMjM2Day - b;
}

/** Net solar or net shortwave radiation Rns, eq. 38: Rns = (1 - albedo) Rs, albedo 0.23 for the grass reference. */
export function netShortwaveRadiation(rsMjM2: number, albedo = GRASS_REFERENCE_ALBEDO): number {
  return (1 - albedo) * rsMjM2;
}

/**
 * Relative shortwave radiation Rs/Rso of eq. 39, limited to at most 1.0 as the
 * paper requires. Returns null when Rso is not positive (sun below the horizon).
 */
export function relativeShortwaveRadiation(rsMjM2: number, rsoMjM2: number): number | null {
  if (!(rsoMjM2 > 0)) return null;
  return Math.min(1, rsMjM2 / rsoMjM2);
}

/**
 * Net outgoing longwave radiation Rnl (MJ m-2 day-1) for daily periods, eq. 39:
 * Rnl = sigma [(Tmax,K^4 + Tmin,K^4)/2] (0.34 - 0.14 sqrt(ea)) (1.35 Rs/Rso - 0.35).
 * `rsOverRso` is the relative shortwave radiation, already limited to <= 1.0.
 */
export function netLongwaveRadiationDaily(
  tMaxC: number,
  tMinC: number,
  eaKpa: number,
  rsOverRso: number,
): number {
  const tMaxK = tMaxC + KELVIN_OFFSET_RADIATION;
  const tMinK = tMinC + KELVIN_OFFSET_RADIATION;
  const meanT4 = (Math.pow(tMaxK, 4) + Math.pow(tMinK, 4)) / 2;
  return (
    STEFAN_BOLTZMANN_MJ_K4_M2_DAY * meanT4 * (0.34 - 0.14 * Math.sqrt(eaKpa)) * (1.35 * rsOverRso - 0.35)
  );
}

/**
 * Net outgoing longwave radiation Rnl (MJ m-2 hour-1) for hourly periods, eq. 39
 * with sigma / 24 = 2.043e-10 MJ K-4 m-2 hour-1 and the mean hourly temperature.
 */
export function netLongwaveRadiationHourly(tC: number, eaKpa: number, rsOverRso: number): number {
  const tK = tC + KELVIN_OFFSET_RADIATION;
  return (
    STEFAN_BOLTZMANN_MJ_K4_M2_HOUR *
    Math.pow(tK, 4) *
    (0.34 - 0.14 * Math.sqrt(eaKpa)) *
    (1.35 * rsOverRso - 0.35)
  );
}

/** Net radiation Rn, eq. 40: Rn = Rns - Rnl. */
export function netRadiation(rnsMjM2: number, rnlMjM2: number): number {
  return rnsMjM2 - rnlMjM2;
}

/**
 * Soil heat flux G (MJ m-2 per period), eq. 41: G = cs (Ti - Ti-1) / dt * dz,
 * with the soil heat capacity cs (MJ m-3 C-1), the effective soil depth dz (m)
 * and the period length dt (days).
 */
export function soilHeatFlux(
  tCurrentC: number,
  tPreviousC: number,
  periodDays: number,
  soilHeatCapacityMjM3C = 2.1,
  effectiveDepthM = 0.1,
): number {
  return soilHeatCapacityMjM3C * ((tCurrentC - tPreviousC) / periodDays) * effectiveDepthM;
}

/** Soil heat flux beneath the grass reference for day and ten-day periods, eq. 42: G ~ 0. */
export function soilHeatFluxDaily(): number {
  return 0;
}

/**
 * Soil heat flux for a month i (MJ m-2 day-1) from the mean air temperatures of
 * the previous and next months, eq. 43: G = 0.07 (Tmonth,i+1 - Tmonth,i-1).
 * When the next month is unknown, eq. 44: G = 0.14 (Tmonth,i - Tmonth,i-1).
 */
export function soilHeatFluxMonthly(
  tPreviousMonthC: number,
  tNextMonthC: number | null,
  tCurrentMonthC: number | null = null,
): number | null {
  if (tNextMonthC !== null && Number.isFinite(tNextMonthC)) return 0.07 * (tNextMonthC - tPreviousMonthC); // eq. 43
  if (tCurrentMonthC !== null && Number.isFinite(tCurrentMonthC))
    return 0.14 * (tCurrentMonthC - tPreviousMonthC); // eq. 44
  return null;
}

/**
 * Soil heat flux for hourly or shorter periods beneath the grass reference:
 * G = 0.1 Rn during daylight (eq. 45), G = 0.5 Rn during the night (eq. 46).
 */
export function soilHeatFluxHourly(rnMjM2Hour: number, daylight: boolean): number {
  return (daylight ? 0.1 : 0.5) * rnMjM2Hour;
}
