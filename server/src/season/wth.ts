import { windSpeedAt2m } from '../agronomy/et0/wind';

/**
 * Reader of the pyfao56 weather format (`.wth`): a header block (reference
 * crop, station elevation, latitude, wind measurement height), then one
 * whitespace-separated row per day under a `Year-DOY ...` column line.
 *
 * What it survives, because files from other stations differ: `NaN` in any
 * column but the date (the `MorP` flag too) becomes null, never 0; relative
 * humidity written as fractions (every value of the file <= 1) is read as
 * percent; wind measured at 3 m or 10 m is brought to 2 m by FAO-56 eq. 47;
 * columns are found by name, not position.
 */

export interface WthDay {
  /** Local calendar date, YYYY-MM-DD. */
  date: string;
  srad_mj_m2: number | null;
  tmax_c: number | null;
  tmin_c: number | null;
  vapr_kpa: number | null;
  tdew_c: number | null;
  rh_max_pct: number | null;
  rh_min_pct: number | null;
  /** Mean wind at 2 m, m/s (eq. 47 from the file's height). */
  wind_2m_ms: number | null;
  rain_mm: number | null;
  /** The station network's published reference ET (short or tall, see `reference_crop`): a cross-check only. */
  etref_mm: number | null;
  /** `M` measured, `P` predicted; null when the flag is NaN or absent. */
  measured: boolean | null;
}

export interface WthFile {
  reference_crop: 'S' | 'T' | null;
  elevation_m: number;
  latitude_deg: number;
  wind_height_m: number;
  /** The file wrote relative humidity as fractions; the days carry percent. */
  rh_fraction: boolean;
  days: WthDay[];
}

export class WthFormatError extends Error {}

const COLUMNS = ['Srad', 'Tmax', 'Tmin', 'Vapr', 'Tdew', 'RHmax', 'RHmin', 'Wndsp', 'Rain', 'ETref'] as const;
type Column = (typeof COLUMNS)[number];

export function parseWth(text: string): WthFile {
  const lines = text.split(/\r?\n/);
  const headerAt = lines.findIndex((l) => /^\s*Year-DOY\b/.test(l));
  if (headerAt < 0) throw new WthFormatError('no "Year-DOY" column line: not a pyfao56 weather file');
  const header = parseHeader(lines.slice(0, headerAt));
  const names = (lines[headerAt] as string).trim().split(/\s+/);
  const rows = lines
    .slice(headerAt + 1)
    .map((l) => l.trim())
    .filter((l) => l.length > 0)
    .map((l, i) => parseRow(l.split(/\s+/), names, headerAt + 2 + i));
  const rhValues = rows.flatMap((r) => [r.values.RHmax, r.values.RHmin]).filter(isNumber);
  const rhFraction = rhValues.length > 0 && rhValues.every((v) => v <= 1);
  const days = rows.map((r) => toDay(r, rhFraction, header.wind_height_m));
  return { ...header, rh_fraction: rhFraction, days };
}

interface Row {
  date: string;
  values: Record<Column, number | null>;
  flag: string | null;
}

function parseHeader(lines: string[]): Omit<WthFile, 'days' | 'rh_fraction'> {
  const valueOf = (pattern: RegExp): string | null => {
    const line = lines.find((l) => pattern.test(l));
    return line ? (line.trim().split(/\s+/)[0] ?? null) : null;
  };
  const number = (pattern: RegExp, what: string): number => {
    const v = Number(valueOf(pattern));
    if (!Number.isFinite(v)) throw new WthFormatError(`header has no ${what}`);
    return v;
  };
  const crop = valueOf(/Reference crop/i);
  return {
    reference_crop: crop === 'S' || crop === 'T' ? crop : null,
    elevation_m: number(/elevation/i, 'station elevation'),
    latitude_deg: number(/latitude/i, 'station latitude'),
    wind_height_m: number(/Wind speed measurement height/i, 'wind measurement height'),
  };
}

function parseRow(cells: string[], names: string[], lineNo: number): Row {
  const [year, doy] = (cells[0] ?? '').split('-').map(Number);
  if (!Number.isInteger(year) || !Number.isInteger(doy) || (doy as number) < 1 || (doy as number) > 366) {
    throw new WthFormatError(`line ${lineNo}: "${cells[0]}" is not a Year-DOY date`);
  }
  const values = {} as Record<Column, number | null>;
  for (const column of COLUMNS) {
    const at = names.indexOf(column);
    values[column] = at < 0 ? null : numberOrNull(cells[at]);
  }
  const flagAt = names.indexOf('MorP');
  const flag = flagAt < 0 ? null : (cells[flagAt] ?? null);
  return { date: dateOf(year as number, doy as number), values, flag: flag === 'NaN' ? null : flag };
}

function toDay(row: Row, rhFraction: boolean, windHeightM: number): WthDay {
  const v = row.values;
  const rh = (x: number | null) => (x === null ? null : rhFraction ? x * 100 : x);
  const wind = v.Wndsp === null ? null : windHeightM === 2 ? v.Wndsp : windSpeedAt2m(v.Wndsp, windHeightM);
  return {
    date: row.date,
    srad_mj_m2: v.Srad,
    tmax_c: v.Tmax,
    tmin_c: v.Tmin,
    vapr_kpa: v.Vapr,
    tdew_c: v.Tdew,
    rh_max_pct: rh(v.RHmax),
    rh_min_pct: rh(v.RHmin),
    wind_2m_ms: wind,
    rain_mm: v.Rain,
    etref_mm: v.ETref,
    measured: row.flag === 'M' ? true : row.flag === 'P' ? false : null,
  };
}

function numberOrNull(cell: string | undefined): number | null {
  if (cell === undefined || /^nan$/i.test(cell)) return null;
  const v = Number(cell);
  return Number.isFinite(v) ? v : null;
}

function isNumber(x: number | null): x is number {
  return x !== null;
}

/** YYYY-MM-DD of day-of-year `doy` in `year`, by arithmetic (no clock, no time zone). */
export function dateOf(year: number, doy: number): string {
  const d = new Date(Date.UTC(year, 0, doy));
  return d.toISOString().slice(0, 10);
}
