import type { WthFile } from '../wth';

/**
 * Writes days back in the pyfao56 `.wth` format parseWth reads (a generated
 * weather year for `npm run season`): null as NaN, RH in percent, wind at
 * 2 m (the days carry it at 2 m whatever height the source file measured).
 */

const STAR_LINE = '*'.repeat(72);
const COLUMNS = 'Year-DOY   Srad   Tmax   Tmin   Vapr   Tdew  RHmax  RHmin  Wndsp   Rain  ETref   MorP';

export function formatWth(
  file: Pick<WthFile, 'reference_crop' | 'elevation_m' | 'latitude_deg' | 'days'>,
): string {
  const header = [
    STAR_LINE,
    'pyfao56: FAO-56 in Python',
    'Weather Data',
    STAR_LINE,
    `${(file.reference_crop ?? 'S').padStart(12)} Reference crop - Short ('S') or Tall ('T')`,
    `${file.elevation_m.toFixed(7).padStart(12)} Weather station elevation (z) (m)`,
    `${file.latitude_deg.toFixed(7).padStart(12)} Weather station latitude (decimal degrees)`,
    `${(2).toFixed(7).padStart(12)} Wind speed measurement height (m)`,
    '',
    'Daily weather data:',
    COLUMNS,
  ];
  const rows = file.days.map((d) =>
    [
      yearDoy(d.date),
      ...[
        d.srad_mj_m2,
        d.tmax_c,
        d.tmin_c,
        d.vapr_kpa,
        d.tdew_c,
        d.rh_max_pct,
        d.rh_min_pct,
        d.wind_2m_ms,
        d.rain_mm,
        d.etref_mm,
      ].map(cell),
      (d.measured === null ? 'NaN' : d.measured ? 'M' : 'P').padStart(6),
    ].join(' '),
  );
  return `${[...header, ...rows].join('\n')}\n`;
}

function cell(v: number | null): string {
  return (v === null ? 'NaN' : String(Math.round(v * 10000) / 10000)).padStart(6);
}

function yearDoy(date: string): string {
  const [y] = date.split('-').map(Number) as [number];
  const doy = Math.round((Date.parse(`${date}T00:00:00Z`) - Date.UTC(y, 0, 1)) / 86_400_000) + 1;
  return `${y}-${String(doy).padStart(3, '0')}`;
}
