import { WEATHER_FIELDS } from '../../server/src/weather/fields';
import {
  FIELD_UNIT_FAMILY,
  normalizeUnit,
  parseHaNumber,
  toSnapshotUnits,
} from '../../server/src/weather/sources/ha/units';

function converted(field: Parameters<typeof toSnapshotUnits>[0], value: number, unit?: string): number {
  const result = toSnapshotUnits(field, value, unit);
  if (!result.ok) throw new Error(result.reason);
  return result.value;
}

describe('HA unit conversion', () => {
  it('gives every snapshot field a unit family', () => {
    expect(Object.keys(FIELD_UNIT_FAMILY).sort()).toEqual([...WEATHER_FIELDS].sort());
  });

  it('converts temperature to °F', () => {
    expect(converted('air_temp_f', 20, '°C')).toBeCloseTo(68, 10);
    expect(converted('air_temp_f', -40, '°C')).toBeCloseTo(-40, 10);
    expect(converted('air_temp_f', 0, '℃')).toBeCloseTo(32, 10);
    expect(converted('air_temp_f', 273.15, 'K')).toBeCloseTo(32, 10);
    expect(converted('air_temp_f', 71.3, '°F')).toBe(71.3);
  });

  it('converts pressure to inHg', () => {
    expect(converted('pressure_inhg', 1013.25, 'hPa')).toBeCloseTo(29.921, 3);
    expect(converted('pressure_inhg', 1013.25, 'mbar')).toBeCloseTo(29.921, 3);
    expect(converted('pressure_inhg', 101.325, 'kPa')).toBeCloseTo(29.921, 3);
    expect(converted('pressure_inhg', 101325, 'Pa')).toBeCloseTo(29.921, 3);
    expect(converted('pressure_inhg', 760, 'mmHg')).toBeCloseTo(29.921, 3);
    expect(converted('pressure_inhg', 14.696, 'psi')).toBeCloseTo(29.921, 2);
    expect(converted('pressure_inhg', 29.92, 'inHg')).toBe(29.92);
  });

  it('converts wind speed to mph', () => {
    expect(converted('wind_avg_mph', 16.09344, 'km/h')).toBeCloseTo(10, 4);
    expect(converted('wind_gust_mph', 4.4704, 'm/s')).toBeCloseTo(10, 4);
    expect(converted('wind_lull_mph', 10, 'kn')).toBeCloseTo(11.5078, 3);
    expect(converted('rapid_wind_mph', 12, 'mph')).toBe(12);
  });

  it('converts rain to inches and rain rate to in/h', () => {
    expect(converted('rain_in_today', 25.4, 'mm')).toBeCloseTo(1, 10);
    expect(converted('rain_in_last_min', 0.254, 'cm')).toBeCloseTo(0.1, 10);
    expect(converted('rain_in_today', 0.37, 'in')).toBe(0.37);
    expect(converted('rain_intensity_in_hr', 12.7, 'mm/h')).toBeCloseTo(0.5, 10);
    expect(converted('rain_intensity_in_hr', 24, 'in/d')).toBeCloseTo(1, 10);
  });

  it('accepts irradiance, illuminance, percent, degrees, distance and voltage in their units', () => {
    expect(converted('solar_w_m2', 640, 'W/m²')).toBe(640);
    expect(converted('solar_w_m2', 640, 'W/m2')).toBe(640);
    expect(converted('illuminance_lx', 12.5, 'klx')).toBe(12500);
    expect(converted('rh_pct', 54, '%')).toBe(54);
    expect(converted('wind_dir_deg', 270, '°')).toBe(270);
    expect(converted('lightning_avg_dist_mi', 16.09344, 'km')).toBeCloseTo(10, 4);
    expect(converted('battery_v', 2650, 'mV')).toBeCloseTo(2.65, 10);
    expect(converted('uv_index', 6, 'UV index')).toBe(6);
  });

  it('takes a value without a unit as already in snapshot units', () => {
    expect(converted('air_temp_f', 70, undefined)).toBe(70);
    expect(converted('rh_pct', 40, '')).toBe(40);
  });

  it('refuses a unit the field cannot take', () => {
    expect(toSnapshotUnits('rh_pct', 21, '°C')).toEqual({
      ok: false,
      reason: 'unit "°C" cannot be converted to % for rh_pct',
    });
    expect(toSnapshotUnits('wind_avg_mph', 3, 'Beaufort').ok).toBe(false);
    expect(toSnapshotUnits('pressure_inhg', 1000, 'hpa ').ok).toBe(true);
  });

  it('normalises unit spellings', () => {
    expect(normalizeUnit(' ° C ')).toBe('°c');
    expect(normalizeUnit('℉')).toBe('°f');
    expect(normalizeUnit('ºC')).toBe('°c');
    expect(normalizeUnit('W/m²')).toBe('w/m2');
  });
});

describe('parseHaNumber', () => {
  it.each([
    ['21.4', 21.4],
    ['0', 0],
    ['-3.5', -3.5],
    [' 7 ', 7],
    ['1e3', 1000],
    ['.5', 0.5],
  ])('reads %s as %s', (input, expected) => {
    expect(parseHaNumber(input)).toBe(expected);
  });

  it.each(['unknown', 'unavailable', '', 'NaN', 'inf', 'Infinity', '12 °C', 'on', '0x10'])(
    'gives null for %s (never 0)',
    (input) => {
      expect(parseHaNumber(input)).toBeNull();
    },
  );

  it('gives null for a non-string', () => {
    expect(parseHaNumber(undefined)).toBeNull();
    expect(parseHaNumber(12)).toBeNull();
  });
});
