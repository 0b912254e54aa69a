import {
  LivedataUnparseable,
  parseLightningTimestamp,
  parseLivedata,
  parseVersion,
  type LivedataOptions,
} from '../../../server/src/weather/sources/ecowitt/livedata';
import { parseMeasure } from '../../../server/src/weather/sources/ecowitt/units';
import { TIMEZONE, extraOf, livedataFixture, readingOf, valueOf } from './helpers';

const POLL_EPOCH = Date.UTC(2024, 6, 16, 12, 0, 0) / 1000;

function options(overrides: Partial<LivedataOptions> = {}): LivedataOptions {
  return {
    sourceId: 'gw1',
    observedEpoch: POLL_EPOCH,
    timezone: TIMEZONE,
    host: '192.168.1.50',
    ...overrides,
  };
}

describe('parseLivedata on the captured gateway answer', () => {
  const batch = parseLivedata(livedataFixture(), options());

  it('converts the outdoor array from the units the gateway names', () => {
    expect(valueOf(batch, 'air_temp_f')).toBeCloseTo(74.3, 6); // "23.5" + unit "C"
    expect(valueOf(batch, 'rh_pct')).toBe(57); // "57%"
    expect(valueOf(batch, 'wind_avg_mph')).toBeCloseTo(5.5923, 4); // "9.00 km/h"
    expect(valueOf(batch, 'wind_gust_mph')).toBeCloseTo(5.5923, 4);
    expect(valueOf(batch, 'wind_dir_deg')).toBe(295);
    expect(valueOf(batch, 'solar_w_m2')).toBeCloseTo(646.57, 6); // "646.57 W/m2"
    expect(valueOf(batch, 'uv_index')).toBe(3);
    expect(readingOf(batch, 'illuminance_lx')).toBeUndefined(); // not cross-derived from W/m2
    expect(extraOf(batch, 'wind_max_day_mph')?.value).toBeCloseTo(16.5533, 4); // "26.64 km/h"
  });

  it('takes absolute pressure for pressure_inhg and keeps relative as an extra', () => {
    expect(valueOf(batch, 'pressure_inhg')).toBeCloseTo(29.3233, 4); // "993.0 hPa"
    expect(extraOf(batch, 'pressure_sea_level_inhg')?.value).toBeCloseTo(30.3391, 4); // "1027.4 hPa"
    expect(extraOf(batch, 'indoor_temp_f')?.value).toBeCloseTo(78.8, 6); // "26.0" C
    expect(extraOf(batch, 'indoor_rh_pct')?.value).toBe(56);
  });

  it('prefers the piezo gauge in auto mode and keeps a measured 0 as 0', () => {
    const today = readingOf(batch, 'rain_in_today');
    expect(today).toEqual({ field: 'rain_in_today', value: 0, observedEpoch: POLL_EPOCH });
    expect(valueOf(batch, 'rain_intensity_in_hr')).toBe(0); // "0.0 mm/Hr"
    expect(extraOf(batch, 'rain_week_in')?.value).toBeCloseTo(10.7 / 25.4, 6); // piezo week
    expect(extraOf(batch, 'rain_year_in')?.value).toBeCloseTo(678.3 / 25.4, 6);
    expect(extraOf(batch, 'battery:rain')?.value).toBe(0);
    expect(extraOf(batch, 'battery:rain_piezo')?.value).toBe(5);
  });

  it('reads the tipping bucket when configured to', () => {
    const tipping = parseLivedata(livedataFixture(), options({ rainGauge: 'tipping' }));
    expect(extraOf(tipping, 'rain_week_in')?.value).toBeCloseTo(5.0 / 25.4, 6);
    expect(extraOf(tipping, 'rain_month_in')?.value).toBeCloseTo(27.1 / 25.4, 6);
    expect(valueOf(tipping, 'rain_in_today')).toBe(0);
  });

  it('lists every soil channel as an extra with its label', () => {
    const soil = (batch.extras ?? []).filter((e) => e.key.startsWith('soil_moisture_pct:'));
    expect(soil.map((e) => [e.key, e.value, e.label])).toEqual([
      ['soil_moisture_pct:1', 56, 'Soil moisture CH1'],
      ['soil_moisture_pct:2', 47, 'Soil moisture CH2'],
      ['soil_moisture_pct:3', 27, 'Soil moisture CH3'],
      ['soil_moisture_pct:4', 50, 'Soil moisture CH4'],
      ['soil_moisture_pct:5', 54, 'Soil moisture CH5'],
      ['soil_moisture_pct:6', 47, 'Soil moisture CH6'],
    ]);
    expect(soil.every((e) => e.observedEpoch === POLL_EPOCH)).toBe(true);
    expect(extraOf(batch, 'battery:wh51:2')?.value).toBe(4);
  });

  it('keeps the other sensors as extras and skips "None"', () => {
    expect(extraOf(batch, 'temp_f:1')?.value).toBeCloseTo(76.82, 6); // 24.9 C
    expect(extraOf(batch, 'rh_pct:1')?.value).toBe(61);
    expect(extraOf(batch, 'temp_f:5')?.value).toBeCloseTo(6.08, 6); // -14.4 C
    expect(extraOf(batch, 'rh_pct:5')).toBeUndefined(); // "None"
    expect(extraOf(batch, 'probe_temp_f:1')?.value).toBeCloseTo(70.7, 6); // WH34 21.5 C
    expect(extraOf(batch, 'leak:2')?.value).toBe(0); // "Normal"
    expect(extraOf(batch, 'co2_ppm')?.value).toBe(323);
    expect(extraOf(batch, 'co2_temp_f')?.value).toBeCloseTo(75.92, 6);
    expect(extraOf(batch, 'pm25_ugm3:2')?.value).toBe(8);
    expect(extraOf(batch, 'leaf_wetness_pct:1')).toMatchObject({ value: 10, label: 'CH1 Leaf Wetness' });
    expect(valueOf(batch, 'leaf_wetness_pct')).toBe(10);
  });

  it('skips values the core derives itself', () => {
    const fields = (batch.readings ?? []).map((r) => r.field);
    expect(fields).not.toContain('rain_in_last_min');
    expect(batch.extras?.some((e) => /dew|feels|chill|heat/.test(e.key))).toBe(false);
  });

  it('reports the lightning block as day count, distance and the last strike', () => {
    expect(extraOf(batch, 'lightning_count_today')?.value).toBe(0);
    expect(extraOf(batch, 'lightning_distance_mi')?.value).toBeCloseTo(7.4565, 4); // "12 km"
    // 07/15/2024 20:46:42 in America/Chicago (CDT, UTC-5).
    expect(batch.strikes).toEqual([
      { epoch: Date.UTC(2024, 6, 16, 1, 46, 42) / 1000, distanceMi: expect.closeTo(7.4565, 4), energy: null },
    ]);
    expect(extraOf(batch, 'battery:wh57')?.value).toBe(3);
  });

  it('describes the gateway device', () => {
    const withVersion = parseLivedata(
      livedataFixture(),
      options({ version: { model: 'GW1100A', firmware: 'V2.3.4' } }),
    );
    expect(withVersion.devices).toHaveLength(1);
    const device = withVersion.devices![0]!;
    expect(device).toMatchObject({
      id: 'gw1:gateway',
      kind: 'gateway',
      source_id: 'gw1',
      model: 'GW1100A',
      firmware: 'V2.3.4',
      host: '192.168.1.50',
      serial: null,
      battery_v: null,
      last_seen_epoch: POLL_EPOCH,
    });
    expect(device.sensors).toEqual(
      expect.arrayContaining(['air_temp_f', 'soil_moisture_pct:6', 'rain_in_today']),
    );
    expect(batch.devices![0]!.model).toBeNull();
  });
});

describe('parseLivedata unit handling (reconstructed bodies in the documented shape)', () => {
  it('reads imperial, m/s and klux displays', () => {
    const batch = parseLivedata(
      {
        common_list: [
          { id: '0x02', val: '80.4', unit: 'F' },
          { id: '0x07', val: '40%' },
          { id: '0x0b', val: '3.6 m/s' },
          { id: '0x0C', val: '8.1 mph' },
          { id: '0x15', val: '52.30 Klux' },
          { id: '0x0A', val: '180' },
        ],
        rain: [
          { id: '0x0E', val: '0.12 in/Hr' },
          { id: '0x10', val: '0.35 in', battery: '0' },
        ],
        wh25: [
          { intemp: '70.1', unit: '℉', inhumi: '40%', abs: '29.92 inHg', rel: '30.01 inHg', battery: '0' },
        ],
        lightning: [{ distance: '4.3 mi', timestamp: '--', count: '2', battery: '5' }],
      },
      options(),
    );
    expect(valueOf(batch, 'air_temp_f')).toBe(80.4);
    expect(valueOf(batch, 'rh_pct')).toBe(40);
    expect(valueOf(batch, 'wind_avg_mph')).toBeCloseTo(8.053, 3);
    expect(valueOf(batch, 'wind_gust_mph')).toBe(8.1);
    expect(valueOf(batch, 'illuminance_lx')).toBeCloseTo(52300, 6);
    expect(readingOf(batch, 'solar_w_m2')).toBeUndefined();
    expect(valueOf(batch, 'rain_intensity_in_hr')).toBe(0.12);
    expect(valueOf(batch, 'rain_in_today')).toBe(0.35); // auto, no piezo block: tipping
    expect(valueOf(batch, 'pressure_inhg')).toBe(29.92);
    expect(extraOf(batch, 'pressure_sea_level_inhg')?.value).toBe(30.01);
    expect(extraOf(batch, 'indoor_temp_f')?.value).toBe(70.1);
    expect(extraOf(batch, 'lightning_distance_mi')?.value).toBe(4.3);
    expect(extraOf(batch, 'lightning_count_today')?.value).toBe(2);
    expect(batch.strikes).toBeUndefined(); // no readable timestamp
  });

  it('gives no reading for a missing, placeholder or unknown unit (never 0)', () => {
    const batch = parseLivedata(
      {
        common_list: [
          { id: '0x02', val: '23.5' }, // no unit anywhere
          { id: '0x07', val: '--' },
          { id: '0x0B', val: '4 BFT' }, // Beaufort is not a speed
          { id: '0x0C', val: '---.-' },
          { id: '0x15', val: '12.0 furlongs' },
          { id: '0x17', val: 'None' },
        ],
        piezoRain: [{ id: '0x10', val: '' }],
      },
      options({ rainGauge: 'piezo' }),
    );
    expect(batch.readings).toEqual([]);
    expect(batch.extras).toEqual([]);
  });

  it('leaves rain out when the configured gauge is absent', () => {
    const body = { rain: [{ id: '0x10', val: '1.2 mm' }] };
    expect(readingOf(parseLivedata(body, options({ rainGauge: 'piezo' })), 'rain_in_today')).toBeUndefined();
    expect(valueOf(parseLivedata(body, options({ rainGauge: 'tipping' })), 'rain_in_today')).toBeCloseTo(
      1.2 / 25.4,
      6,
    );
  });

  it('answers an empty object with an empty batch and refuses a non-object', () => {
    const empty = parseLivedata({}, options());
    expect(empty.readings).toEqual([]);
    expect(empty.extras).toEqual([]);
    expect(() => parseLivedata([], options())).toThrow(LivedataUnparseable);
    expect(() => parseLivedata('{"common_list": []}', options())).toThrow(LivedataUnparseable);
    expect(() => parseLivedata(null, options())).toThrow(LivedataUnparseable);
  });
});

describe('value and version helpers', () => {
  it('splits value strings and folds unit spellings', () => {
    expect(parseMeasure('9.00 km/h')).toEqual({ value: 9, unit: 'km/h' });
    expect(parseMeasure('0.0 mm/Hr')).toEqual({ value: 0, unit: 'mm/h' });
    expect(parseMeasure('23.5', 'C')).toEqual({ value: 23.5, unit: 'c' });
    expect(parseMeasure('-14.4', '°C')).toEqual({ value: -14.4, unit: 'c' });
    expect(parseMeasure('1013.2 hPa')).toEqual({ value: 1013.2, unit: 'hpa' });
    expect(parseMeasure('-9999')).toBeNull();
    expect(parseMeasure('None')).toBeNull();
    expect(parseMeasure(undefined)).toBeNull();
  });

  it('reads the lightning timestamp quirk in the deployment zone', () => {
    expect(parseLightningTimestamp('07/15/2024 20: 46: 42', 'UTC')).toBe(
      Date.UTC(2024, 6, 15, 20, 46, 42) / 1000,
    );
    expect(parseLightningTimestamp('01/02/2024 03:04:05', 'America/Chicago')).toBe(
      Date.UTC(2024, 0, 2, 9, 4, 5) / 1000,
    );
    expect(parseLightningTimestamp('--/--/---- --:--:--', 'UTC')).toBeNull();
    expect(parseLightningTimestamp('13/45/2024 20:46:42', 'UTC')).toBeNull();
  });

  it('parses /get_version', () => {
    expect(
      parseVersion({ version: 'Version: GW1100A_V2.3.4', newVersion: '0', platform: 'ecowitt' }),
    ).toEqual({
      model: 'GW1100A',
      firmware: 'V2.3.4',
    });
    expect(parseVersion({})).toBeNull();
    expect(parseVersion('Version: GW1100A_V2.3.4')).toBeNull();
  });
});
