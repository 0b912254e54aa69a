import type { WthDay } from '../wth';

/**
 * An independent FAO-56 single-bucket scheduler, the yardstick for a season
 * replay. It shares no code with the engine, the ledger or agronomy/: its own
 * Penman-Monteith ET0 (eq. 6, humidity from RHmax and RHmin by eq. 17,
 * measured Rs, the reader's 2 m wind) and its own bucket. The only things it
 * takes from the replay are the zone's numbers the engine reports (TAW, RAW,
 * Kc, sun factor): it judges the scheduling, not the catalogs.
 *
 * The ideal scheduler: start the season at field capacity; each morning,
 * when the depletion has reached RAW, refill to field capacity (net water,
 * exactly the depletion); then the day's rain enters (beyond field capacity
 * drains) and the crop draws ETc adj = Ks Kc ET0 (Ks by eq. 84).
 */

export interface ReferenceZoneDay {
  date: string;
  taw_mm: number;
  raw_mm: number;
  kc: number;
  sun_factor: number;
}

export interface ReferenceDay {
  date: string;
  et0_mm: number | null;
  start_depletion_mm: number;
  irrigation_net_mm: number;
  depletion_mm: number;
}

export interface Site {
  latitude_deg: number;
  elevation_m: number;
}

export function referenceSeason(
  weather: ReadonlyMap<string, WthDay>,
  zoneDays: readonly ReferenceZoneDay[],
  site: Site,
): ReferenceDay[] {
  const out: ReferenceDay[] = [];
  let d = 0;
  for (const z of zoneDays) {
    const w = weather.get(z.date);
    const et0 = w ? penmanMonteith(w, z.date, site) : null;
    const start = d;
    const irrigation = d >= z.raw_mm ? d : 0;
    d = Math.max(0, d - irrigation - Math.max(0, w?.rain_mm ?? 0));
    const ks = d <= z.raw_mm ? 1 : Math.max(0, (z.taw_mm - d) / (z.taw_mm - z.raw_mm));
    d = Math.min(z.taw_mm, d + ks * z.kc * z.sun_factor * (et0 ?? 0));
    out.push({
      date: z.date,
      et0_mm: et0,
      start_depletion_mm: start,
      irrigation_net_mm: irrigation,
      depletion_mm: d,
    });
  }
  return out;
}

/** FAO-56 eq. 6 for one day; null when a required input is missing. */
export function penmanMonteith(w: WthDay, date: string, site: Site): number | null {
  const {
    tmax_c: tmax,
    tmin_c: tmin,
    rh_max_pct: rhmax,
    rh_min_pct: rhmin,
    wind_2m_ms: u2,
    srad_mj_m2: rs,
  } = w;
  if (tmax === null || tmin === null || rhmax === null || rhmin === null || u2 === null || rs === null)
    return null;
  const e0 = (t: number) => 0.6108 * Math.exp((17.27 * t) / (t + 237.3)); // eq. 11
  const tmean = (tmax + tmin) / 2;
  const p = 101.3 * ((293 - 0.0065 * site.elevation_m) / 293) ** 5.26; // eq. 7
  const gamma = 0.000665 * p; // eq. 8
  const es = (e0(tmax) + e0(tmin)) / 2; // eq. 12
  const ea = (e0(tmin) * (rhmax / 100) + e0(tmax) * (rhmin / 100)) / 2; // eq. 17
  const delta = (4098 * e0(tmean)) / (tmean + 237.3) ** 2; // eq. 13
  const j = dayOfYear(date);
  const phi = (Math.PI / 180) * site.latitude_deg; // eq. 22
  const dr = 1 + 0.033 * Math.cos(((2 * Math.PI) / 365) * j); // eq. 23
  const decl = 0.409 * Math.sin(((2 * Math.PI) / 365) * j - 1.39); // eq. 24
  const ws = Math.acos(Math.max(-1, Math.min(1, -Math.tan(phi) * Math.tan(decl)))); // eq. 25
  const ra =
    ((24 * 60) / Math.PI) *
    0.082 *
    dr *
    (ws * Math.sin(phi) * Math.sin(decl) + Math.cos(phi) * Math.cos(decl) * Math.sin(ws)); // eq. 21
  const rso = (0.75 + 2e-5 * site.elevation_m) * ra; // eq. 37
  const rns = 0.77 * rs; // eq. 38
  const sigma = 4.903e-9;
  const ratio = rso > 0 ? Math.min(1, rs / rso) : 0;
  const rnl =
    sigma *
    (((tmax + 273.16) ** 4 + (tmin + 273.16) ** 4) / 2) *
    (0.34 - 0.14 * Math.sqrt(ea)) *
    (1.35 * ratio - 0.35); // eq. 39
  const rn = rns - rnl; // eq. 40
  const et0 =
    (0.408 * delta * rn + gamma * (900 / (tmean + 273)) * u2 * (es - ea)) / (delta + gamma * (1 + 0.34 * u2)); // eq. 6
  return Math.max(0, et0);
}

function dayOfYear(date: string): number {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return Math.round((Date.UTC(y, m - 1, d) - Date.UTC(y, 0, 1)) / 86400000) + 1;
}
