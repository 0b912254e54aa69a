import { parseWth, WthFormatError } from '../../server/src/season/wth';
import { readSeason } from './fixtures';

/** The pyfao56 .wth reader, on the shared files and on the variants other stations write. */

const HEADER = (
  windHeight: number,
) => `************************************************************************
pyfao56: FAO-56 Evapotranspiration in Python
Weather Data
************************************************************************
           S Reference crop - Short ('S') or Tall ('T')
 361.0000000 Weather station elevation (z) (m)
  33.0690000 Weather station latitude (decimal degrees)
  ${windHeight.toFixed(7)} Wind speed measurement height (m)

Daily weather data:
Year-DOY   Srad   Tmax   Tmin   Vapr   Tdew  RHmax  RHmin  Wndsp   Rain  ETref   MorP
`;

describe('parseWth', () => {
  it('reads both shared files: header, every day, NaN as null', () => {
    const greeley = readSeason('greeley');
    expect(greeley).toMatchObject({
      reference_crop: 'T',
      elevation_m: 1425,
      wind_height_m: 2,
      rh_fraction: false,
    });
    expect(greeley.latitude_deg).toBeCloseTo(40.391537, 6);
    expect(greeley.days).toHaveLength(333);
    expect(greeley.days[0]).toMatchObject({
      date: '2022-01-01',
      tmax_c: 2.02,
      tdew_c: null,
      rain_mm: 0,
      measured: true,
    });
    const maricopa = readSeason('maricopa');
    expect(maricopa).toMatchObject({ reference_crop: 'S', wind_height_m: 3 });
    expect(maricopa.days).toHaveLength(365);
    expect(maricopa.days.at(-1)?.date).toBe('2013-12-31');
    // 3 m wind brought to 2 m by eq. 47: 1.2 x 4.87 / ln(67.8 x 3 - 5.42) = 1.1097 m/s.
    expect(maricopa.days[0]?.wind_2m_ms).toBeCloseTo((1.2 * 4.87) / Math.log(67.8 * 3 - 5.42), 9);
  });

  it('survives NaN in any column, the flag too; RH as fractions; wind at 10 m', () => {
    const text =
      HEADER(10) +
      '2024-001  15.00  20.00   5.00    NaN    NaN   0.93   0.21   4.00    NaN    NaN    NaN\n' +
      '2024-060    NaN    NaN   6.00    NaN    NaN   0.88    NaN    NaN   2.50   3.00      P\n';
    const f = parseWth(text);
    expect(f.rh_fraction).toBe(true);
    expect(f.days[0]).toMatchObject({
      date: '2024-01-01',
      rh_max_pct: 93,
      rh_min_pct: 21,
      rain_mm: null,
      measured: null,
    });
    expect(f.days[0]?.wind_2m_ms).toBeCloseTo((4 * 4.87) / Math.log(67.8 * 10 - 5.42), 9);
    expect(f.days[1]).toMatchObject({
      date: '2024-02-29',
      srad_mj_m2: null,
      tmax_c: null,
      wind_2m_ms: null,
      measured: false,
    });
  });

  it('refuses a file that is not the format', () => {
    expect(() => parseWth('date,tmax\n2024-01-01,3\n')).toThrow(WthFormatError);
    expect(() => parseWth(HEADER(2) + '2024-400 1 2 3 4 5 6 7 8 9 10 M\n')).toThrow(/Year-DOY/);
  });
});
