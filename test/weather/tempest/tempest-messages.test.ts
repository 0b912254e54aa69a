import {
  decodeSensorStatus,
  intervalLightning,
  intervalRain,
  parseTempestDatagram,
  tempestToBatch,
  type TempestMessage,
} from '../../../server/src/weather/sources/tempest/tempest-messages';
import { FIXTURE_LINES, line, reading, values } from './helpers';

function parsed(n: number): TempestMessage {
  const message = parseTempestDatagram(line(n));
  if (!message) throw new Error(`fixture line ${n} did not parse`);
  return message;
}

function batchOf(n: number) {
  return tempestToBatch(parsed(n), 'tempest');
}

describe('parseTempestDatagram: every fixture line', () => {
  const types = [
    'evt_precip',
    'evt_strike',
    'rapid_wind',
    'obs_st',
    'obs_air',
    'obs_sky',
    'device_status',
    'hub_status',
    'rapid_wind',
    'hub_status',
    'device_status',
    'obs_st',
    'rapid_wind',
    'device_status',
    'obs_st',
    'obs_st',
    'obs_st',
  ];

  it('has the 17 lines the fixture table lists', () => {
    expect(FIXTURE_LINES).toHaveLength(17);
  });

  it.each(types.map((type, i) => [i + 1, type] as const))('line %i parses as %s', (n, type) => {
    expect(parsed(n).type).toBe(type);
  });
});

describe('tempestToBatch: concrete converted values per fixture line', () => {
  it('line 1 evt_precip: serials only, no reading invented', () => {
    const b = batchOf(1);
    expect(b).toEqual({ stationSerial: 'SK-00008453', hubSerial: 'HB-00000001' });
  });

  it('line 2 evt_strike: a strike event, 27 km = 16.78 mi, energy 3848', () => {
    const b = batchOf(2);
    expect(b.readings).toBeUndefined();
    expect(b.strikes).toHaveLength(1);
    expect(b.strikes![0]!.epoch).toBe(1493322445);
    expect(b.strikes![0]!.distanceMi).toBeCloseTo(16.777, 3);
    expect(b.strikes![0]!.energy).toBe(3848);
    expect(b.stationSerial).toBe('AR-00004049');
  });

  it('line 3 rapid_wind: 2.3 m/s = 5.14 mph from 128 degrees at the message epoch', () => {
    const b = batchOf(3);
    expect(reading(b, 'rapid_wind_mph')!.value).toBeCloseTo(5.145, 3);
    expect(reading(b, 'rapid_wind_dir')).toEqual({
      field: 'rapid_wind_dir',
      value: 128,
      observedEpoch: 1493322445,
    });
    expect(b.readings).toHaveLength(2);
  });

  it('line 4 obs_st (official example): every field in snapshot units', () => {
    const b = batchOf(4);
    const v = values(b);
    expect(v.air_temp_f).toBeCloseTo(72.27, 2); // 22.37 C
    expect(v.rh_pct).toBe(50.26);
    expect(v.pressure_inhg).toBeCloseTo(30.05, 2); // 1017.57 mb station pressure
    expect(v.wind_lull_mph).toBeCloseTo(0.403, 3); // 0.18 m/s
    expect(v.wind_avg_mph).toBeCloseTo(0.49, 2); // 0.22 m/s
    expect(v.wind_gust_mph).toBeCloseTo(0.604, 3); // 0.27 m/s
    expect(v.wind_dir_deg).toBe(144);
    expect(v.illuminance_lx).toBe(328);
    expect(v.uv_index).toBe(0.03);
    expect(v.solar_w_m2).toBe(3);
    // A measured zero stays zero.
    expect(v.rain_in_last_min).toBe(0);
    expect(v.rain_intensity_in_hr).toBe(0);
    expect(v.precip_type).toBe(0);
    expect(v.lightning_count_last_min).toBe(0);
    // No strikes in the interval: the average distance is null, not 0.
    expect(v).toHaveProperty('lightning_avg_dist_mi', null);
    expect(v.battery_v).toBe(2.41);
    expect(v).not.toHaveProperty('battery_pct');
    expect(v).not.toHaveProperty('rain_in_today');
    expect(b.readings!.every((r) => r.observedEpoch === 1588948614)).toBe(true);
    expect(b.stationSerial).toBe('ST-00000512');
    expect(b.hubSerial).toBe('HB-00013030');
  });

  it('line 5 obs_air (legacy): temperature, humidity, station pressure, lightning', () => {
    const v = values(batchOf(5));
    expect(v.air_temp_f).toBe(50);
    expect(v.rh_pct).toBe(45);
    expect(v.pressure_inhg).toBeCloseTo(24.658, 3); // 835 mb
    expect(v.lightning_count_last_min).toBe(0);
    expect(v).toHaveProperty('lightning_avg_dist_mi', null);
    expect(v).not.toHaveProperty('battery_v');
  });

  it('line 6 obs_sky (legacy): wind, light, rain', () => {
    const b = batchOf(6);
    const v = values(b);
    expect(v.illuminance_lx).toBe(9000);
    expect(v.uv_index).toBe(10);
    expect(v.rain_in_last_min).toBe(0);
    expect(v.rain_intensity_in_hr).toBe(0);
    expect(v.wind_lull_mph).toBeCloseTo(5.816, 3);
    expect(v.wind_avg_mph).toBeCloseTo(10.29, 2);
    expect(v.wind_gust_mph).toBeCloseTo(16.553, 3);
    expect(v.wind_dir_deg).toBe(187);
    expect(v.solar_w_m2).toBe(130);
    expect(v.precip_type).toBe(0);
    expect(b.readings!.every((r) => r.observedEpoch === 1493321340)).toBe(true);
    const rain = intervalRain(parsed(6));
    expect(rain).toEqual([{ epoch: 1493321340, inches: 0, localDayInches: null }]);
  });

  it('line 7 device_status (AIR): a station device record', () => {
    const b = batchOf(7);
    expect(b.devices).toEqual([
      {
        id: 'tempest:AR-00004049',
        kind: 'station',
        source_id: 'tempest',
        model: 'AIR',
        serial: 'AR-00004049',
        firmware: '17',
        host: null,
        sensors: [
          'air_temp_f',
          'rh_pct',
          'pressure_inhg',
          'lightning_count_last_min',
          'lightning_avg_dist_mi',
        ],
        battery_v: 3.5,
        rssi_dbm: -17,
        last_seen_epoch: 1510855923,
        status_note: 'sensors OK',
      },
    ]);
    expect(b.stationSerial).toBe('AR-00004049');
    expect(b.hubSerial).toBe('HB-00000001');
    expect(b.readings).toBeUndefined();
  });

  it('line 8 hub_status: a hub device record with firmware string, rssi and reset flags', () => {
    const b = batchOf(8);
    expect(b.hubSerial).toBe('HB-00000001');
    expect(b.stationSerial).toBeUndefined();
    const hub = b.devices![0]!;
    expect(hub).toMatchObject({
      id: 'tempest:HB-00000001',
      kind: 'hub',
      serial: 'HB-00000001',
      firmware: '35',
      rssi_dbm: -62,
      battery_v: null,
      last_seen_epoch: 1495724691,
    });
    expect(hub.status_note).toBe(
      'reset flags: BOR (brownout), PIN (pin reset), POR (power reset); radio: active',
    );
  });

  it('line 9 rapid_wind calm: speed 0 stays 0, the placeholder direction 0 becomes null', () => {
    const b = batchOf(9);
    expect(reading(b, 'rapid_wind_mph')).toEqual({
      field: 'rapid_wind_mph',
      value: 0,
      observedEpoch: 1643245968,
    });
    expect(reading(b, 'rapid_wind_dir')!.value).toBeNull();
  });

  it('line 10 hub_status (real capture): firmware "177"', () => {
    const hub = batchOf(10).devices![0]!;
    expect(hub.firmware).toBe('177');
    expect(hub.rssi_dbm).toBe(-50);
    expect(hub.serial).toBe('HB-00069665');
  });

  it('line 11 device_status (real capture): undocumented bits are masked away', () => {
    const device = batchOf(11).devices![0]!;
    expect(device.model).toBe('Tempest');
    expect(device.battery_v).toBe(2.683);
    expect(device.rssi_dbm).toBe(-72);
    expect(device.firmware).toBe('165');
    // 655364 = 0xA0004: only bit 2 is documented.
    expect(device.status_note).toBe('lightning disturber');
    expect(device.sensors).toContain('air_temp_f');
  });

  it('line 12 obs_st (real capture): cold, calm, dark', () => {
    const b = batchOf(12);
    const v = values(b);
    expect(v.air_temp_f).toBeCloseTo(8.92, 2); // -12.82 C
    expect(v.pressure_inhg).toBeCloseTo(30.255, 3);
    expect(v.rh_pct).toBe(47.84);
    expect(v.wind_avg_mph).toBe(0);
    expect(v.wind_lull_mph).toBe(0);
    expect(v.wind_gust_mph).toBe(0);
    expect(v).toHaveProperty('wind_dir_deg', null);
    expect(v.illuminance_lx).toBe(0);
    expect(v.solar_w_m2).toBe(0);
    expect(v.battery_v).toBe(2.683);
    expect(reading(b, 'air_temp_f')!.observedEpoch).toBe(1643246016);
  });

  it('line 13 rapid_wind (real capture): 0.39 m/s from 308', () => {
    const v = values(batchOf(13));
    expect(v.rapid_wind_mph).toBeCloseTo(0.872, 3);
    expect(v.rapid_wind_dir).toBe(308);
  });

  it('line 14 device_status low battery: 2.358 V, status 8196 reads lightning disturber only', () => {
    const device = batchOf(14).devices![0]!;
    expect(device.battery_v).toBe(2.358);
    expect(device.status_note).toBe('lightning disturber');
  });

  it('line 15 obs_st low power: null wind gives no wind readings, the rest converts', () => {
    const b = batchOf(15);
    const v = values(b);
    for (const field of ['wind_lull_mph', 'wind_avg_mph', 'wind_gust_mph', 'wind_dir_deg']) {
      expect(v).not.toHaveProperty(field);
    }
    expect(v.air_temp_f).toBeCloseTo(45.824, 3);
    expect(v.pressure_inhg).toBeCloseTo(30.641, 3);
    expect(v.rh_pct).toBe(94.45);
    expect(v.battery_v).toBe(2.358);
    expect(v.rain_in_last_min).toBe(0);
  });

  it('line 16 obs_st all nulls: no readings at all, and nothing is a zero', () => {
    const message = parsed(16);
    expect(message.type).toBe('obs_st');
    const b = tempestToBatch(message, 'tempest');
    expect(b.readings).toBeUndefined();
    expect(b.stationSerial).toBe('ST-00000001');
    expect(intervalRain(message)).toEqual([{ epoch: 1640083867, inches: null, localDayInches: null }]);
    expect(intervalLightning(message)).toEqual([]);
  });

  it('line 17 obs_st with 0.01 mm of rain in a 1-minute interval', () => {
    const v = values(batchOf(17));
    expect(v.rain_in_last_min).toBeCloseTo(0.01 / 25.4, 10);
    // The rate over the interval: 0.01 mm/min x 60 = 0.6 mm/h.
    expect(v.rain_intensity_in_hr).toBeCloseTo(0.6 / 25.4, 10);
  });
});

describe('conversion details', () => {
  function obsWith(overrides: Record<number, number | null>, length = 18): string {
    const base: (number | null)[] = [
      1700000000, 1, 2, 3, 90, 3, 1000, 20, 50, 1000, 1, 10, 0.5, 1, 12, 3, 2.6, 5, 7.5, 0, 0, 1,
    ].slice(0, length);
    for (const [i, value] of Object.entries(overrides)) base[Number(i)] = value;
    return JSON.stringify({ type: 'obs_st', serial_number: 'ST-1', hub_sn: 'HB-1', obs: [base] });
  }

  it('lightning: a distance when the interval saw strikes, null when it saw none, nothing when unknown', () => {
    const seen = values(tempestToBatch(parseTempestDatagram(obsWith({}))!, 's'));
    expect(seen.lightning_count_last_min).toBe(3);
    expect(seen.lightning_avg_dist_mi).toBeCloseTo(12 * 0.621371, 4);

    const none = values(tempestToBatch(parseTempestDatagram(obsWith({ 15: 0, 14: 0 }))!, 's'));
    expect(none.lightning_count_last_min).toBe(0);
    expect(none).toHaveProperty('lightning_avg_dist_mi', null);

    const unknown = values(tempestToBatch(parseTempestDatagram(obsWith({ 15: null, 14: 5 }))!, 's'));
    expect(unknown).not.toHaveProperty('lightning_count_last_min');
    expect(unknown).not.toHaveProperty('lightning_avg_dist_mi');
  });

  it('rain intensity is the rate over the report interval, absent without an interval', () => {
    // 0.5 mm over 5 minutes = 6 mm/h.
    const v = values(tempestToBatch(parseTempestDatagram(obsWith({}))!, 's'));
    expect(v.rain_in_last_min).toBeCloseTo(0.5 / 25.4, 10);
    expect(v.rain_intensity_in_hr).toBeCloseTo(6 / 25.4, 10);
    const noInterval = values(tempestToBatch(parseTempestDatagram(obsWith({ 17: null }))!, 's'));
    expect(noInterval.rain_in_last_min).toBeCloseTo(0.5 / 25.4, 10);
    expect(noInterval).not.toHaveProperty('rain_intensity_in_hr');
  });

  it('accepts the 22-element REST/websocket obs_st and exposes the local-day rain', () => {
    const message = parseTempestDatagram(obsWith({}, 22))!;
    expect(message.type).toBe('obs_st');
    if (message.type !== 'obs_st') throw new Error('unreachable');
    expect(message.obs[0]!.localDayRainMm).toBe(7.5);
    expect(message.obs[0]!.precipAnalysisType).toBe(1);
    expect(intervalRain(message)[0]!.localDayInches).toBeCloseTo(7.5 / 25.4, 10);
    // Today's rain depends on the clock: it is served by readingsAt, not in the batch.
    expect(values(tempestToBatch(message, 's'))).not.toHaveProperty('rain_in_today');
    // The 18-element UDP record has no local-day total.
    const udp = parseTempestDatagram(obsWith({}))!;
    expect(intervalRain(udp)[0]!.localDayInches).toBeNull();
  });

  it('a record without an epoch gives no readings (no time, no evidence)', () => {
    const b = tempestToBatch(parseTempestDatagram(obsWith({ 0: null }))!, 's');
    expect(b.readings).toBeUndefined();
  });

  it('decodes every documented sensor_status bit, v171 power booster bits included', () => {
    expect(decodeSensorStatus(0)).toEqual([]);
    expect(decodeSensorStatus(0x1ff)).toEqual([
      'lightning failed',
      'lightning noise',
      'lightning disturber',
      'pressure failed',
      'temperature failed',
      'rh failed',
      'wind failed',
      'precip failed',
      'light/uv failed',
    ]);
    expect(decodeSensorStatus(0x8000)).toEqual(['power booster depleted']);
    expect(decodeSensorStatus(0x10000 | 0x40)).toEqual(['wind failed', 'power booster shore power']);
    // Undocumented bits alone: nothing failed.
    expect(decodeSensorStatus(0xa0000 | 0x2000)).toEqual([]);
  });

  it('a device_status with a failing sensor and power booster bits says so in the note', () => {
    const text = JSON.stringify({
      serial_number: 'ST-00000009',
      type: 'device_status',
      hub_sn: 'HB-1',
      timestamp: 1700000000,
      voltage: null,
      firmware_revision: 171,
      rssi: null,
      hub_rssi: -60,
      sensor_status: 0x8000 | 0x10 | 0x80000,
      debug: 0,
    });
    const device = tempestToBatch(parseTempestDatagram(text)!, 's').devices![0]!;
    expect(device.status_note).toBe('temperature failed, power booster depleted');
    expect(device.battery_v).toBeNull();
    expect(device.rssi_dbm).toBeNull();
  });

  it('obs_st carries several records: each keeps its own epoch', () => {
    const text = JSON.stringify({
      type: 'obs_st',
      serial_number: 'ST-1',
      obs: [
        [100, 1, 1, 1, 10, 3, 1000, 10, 50, 0, 0, 0, 0, 0, 0, 0, 2.5, 1],
        [160, 1, 1, 1, 10, 3, 1000, 11, 50, 0, 0, 0, 0, 0, 0, 0, 2.5, 1],
      ],
    });
    const temps = tempestToBatch(parseTempestDatagram(text)!, 's').readings!.filter(
      (r) => r.field === 'air_temp_f',
    );
    expect(temps.map((r) => [r.observedEpoch, r.value])).toEqual([
      [100, 50],
      [160, 51.8],
    ]);
  });
});

describe('parseTempestDatagram rejects what it does not understand (null, never a throw)', () => {
  const obs18 = [
    1588948614, 0.18, 0.22, 0.27, 144, 6, 1017.57, 22.37, 50.26, 328, 0.03, 3, 0, 0, 0, 0, 2.41, 1,
  ];
  const bad: [string, string][] = [
    ['empty text', ''],
    ['garbage', '\u0000\u00ff garbage {'],
    ['truncated JSON', line(4).slice(0, 40)],
    ['JSON null', 'null'],
    ['a JSON array', '[1,2,3]'],
    ['a JSON string', '"obs_st"'],
    ['no type', '{"obs":[[1]]}'],
    ['a numeric type', '{"type":5}'],
    ['an unknown type', '{"type":"obs_zz","obs":[[1,2,3]]}'],
    ['obs_st without obs', '{"type":"obs_st"}'],
    ['obs_st with empty obs', '{"type":"obs_st","obs":[]}'],
    ['obs_st with a flat array', JSON.stringify({ type: 'obs_st', obs: obs18 })],
    ['obs_st with 17 elements', JSON.stringify({ type: 'obs_st', obs: [obs18.slice(0, 17)] })],
    [
      'obs_st with a string element',
      JSON.stringify({ type: 'obs_st', obs: [[...obs18.slice(0, 7), '22.3']] }),
    ],
    ['obs_st with an object element', JSON.stringify({ type: 'obs_st', obs: [[{}, ...obs18.slice(1)]] })],
    ['rapid_wind with 2 elements', '{"type":"rapid_wind","ob":[1643245968,0.5]}'],
    ['rapid_wind nested', '{"type":"rapid_wind","ob":[[1643245968,0.5,10]]}'],
    ['evt_strike with strings', '{"type":"evt_strike","evt":["1493322445","27","3848"]}'],
    ['evt_precip without evt', '{"type":"evt_precip"}'],
    ['obs_air too short', '{"type":"obs_air","obs":[[1493164835,835.0,10.0]]}'],
    ['obs_sky too short', '{"type":"obs_sky","obs":[[1493321340,9000,10,0.0,2.6]]}'],
    ['device_status without serial', '{"type":"device_status","voltage":2.5}'],
    ['hub_status with a numeric serial', '{"type":"hub_status","serial_number":12}'],
  ];

  it.each(bad)('%s', (_name, text) => {
    expect(() => parseTempestDatagram(text)).not.toThrow();
    expect(parseTempestDatagram(text)).toBeNull();
  });

  it('tolerates nulls anywhere in status messages', () => {
    const hub = parseTempestDatagram(
      '{"type":"hub_status","serial_number":"HB-1","firmware_revision":null,"rssi":null,"timestamp":null,"reset_flags":null,"radio_stats":[null,null,null,null,null]}',
    );
    expect(hub).not.toBeNull();
    const device = tempestToBatch(hub!, 's').devices![0]!;
    expect(device).toMatchObject({
      firmware: null,
      rssi_dbm: null,
      last_seen_epoch: null,
      status_note: null,
    });
  });
});
