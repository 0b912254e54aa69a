import type { SourceBatch } from '../../../server/src/weather/source';
import {
  decodeForm,
  parseDateUtc,
  parseUpload,
  uploadCredential,
  uploadNumber,
  type ParsedUpload,
  type UploadOptions,
} from '../../../server/src/weather/sources/ecowitt/upload';
import { extraOf, readingOf, uploadBodies, valueOf } from './helpers';

/** Receive time well after every sample's dateutc, so each keeps its own time. */
const RECEIVED = Date.UTC(2025, 0, 1, 0, 0, 0) / 1000;

function parse(body: string, overrides: Partial<UploadOptions> = {}): ParsedUpload {
  return parseUpload(decodeForm(body), { sourceId: 'ingest1', receivedEpoch: RECEIVED, ...overrides });
}

function soil(batch: SourceBatch): [string, number, string | undefined][] {
  return (batch.extras ?? [])
    .filter((e) => e.key.startsWith('soil_moisture_pct:'))
    .map((e) => [e.key, e.value, e.label]);
}

const bodies = uploadBodies();

describe('the upload sample file', () => {
  it('holds 7 Ecowitt bodies and 1 Wunderground query', () => {
    expect(bodies).toHaveLength(8);
    expect(bodies.slice(0, 7).every((b) => b.startsWith('PASSKEY='))).toBe(true);
    expect(bodies[7]!.startsWith('ID=')).toBe(true);
  });
});

describe('parseUpload on every sample body', () => {
  it('line 1, PT-HP2550 Pro console', () => {
    const p = parse(bodies[0]!);
    const b = p.batch;
    expect(p.protocol).toBe('ecowitt');
    expect(p.credential).toBe('x'.repeat(32));
    expect(p.observedEpoch).toBe(Date.UTC(2021, 9, 4, 2, 28, 32) / 1000);
    expect(readingOf(b, 'air_temp_f')).toEqual({
      field: 'air_temp_f',
      value: 35.2,
      observedEpoch: p.observedEpoch,
    });
    expect(valueOf(b, 'rh_pct')).toBe(60);
    expect(valueOf(b, 'pressure_inhg')).toBe(28.196);
    expect(valueOf(b, 'wind_avg_mph')).toBe(2.7);
    expect(valueOf(b, 'wind_gust_mph')).toBe(6.9);
    expect(valueOf(b, 'wind_dir_deg')).toBe(289);
    expect(valueOf(b, 'rain_in_today')).toBe(0.134);
    expect(valueOf(b, 'rain_intensity_in_hr')).toBe(0);
    expect(valueOf(b, 'solar_w_m2')).toBe(174.81);
    expect(valueOf(b, 'uv_index')).toBe(1);
    expect(soil(b)).toEqual([['soil_moisture_pct:1', 22, 'Soil moisture CH1']]);
    expect(extraOf(b, 'battery:wh51:1')?.value).toBe(1.5);
    expect(extraOf(b, 'temp_f:1')?.value).toBe(66.4);
    expect(extraOf(b, 'wind_avg10m_mph')?.value).toBe(2.5);
    expect(extraOf(b, 'rain_hourly_in')?.value).toBe(0.012);
    expect(extraOf(b, 'pm25_ugm3:1')?.value).toBe(7);
    expect(b.devices![0]).toMatchObject({
      kind: 'gateway',
      model: 'PT-HP2550_Pro',
      firmware: 'V1.6.7',
      host: null,
    });
  });

  it('line 2, GW2000A V2.1.4 with piezo and tipping rain, 5 soil channels, lightning', () => {
    const p = parse(bodies[1]!);
    const b = p.batch;
    expect(p.observedEpoch).toBe(1650482087); // 2022-04-20 19:14:47 UTC
    expect(valueOf(b, 'air_temp_f')).toBe(59.7);
    expect(valueOf(b, 'pressure_inhg')).toBe(29.509); // absolute
    expect(extraOf(b, 'pressure_sea_level_inhg')?.value).toBe(29.87);
    expect(valueOf(b, 'rain_in_today')).toBe(0.075); // auto: piezo drain_piezo, not dailyrainin 0.000
    expect(extraOf(b, 'rain_year_in')?.value).toBe(4.114);
    expect(soil(b)).toEqual([
      ['soil_moisture_pct:1', 53, 'Soil moisture CH1'],
      ['soil_moisture_pct:2', 57, 'Soil moisture CH2'],
      ['soil_moisture_pct:3', 59, 'Soil moisture CH3'],
      ['soil_moisture_pct:4', 49, 'Soil moisture CH4'],
      ['soil_moisture_pct:5', 52, 'Soil moisture CH5'],
    ]);
    expect(extraOf(b, 'soil_moisture_pct:6')).toBeUndefined();
    expect(extraOf(b, 'temp_f:8')?.value).toBe(68);
    expect(extraOf(b, 'rh_pct:8')?.value).toBe(56);
    expect(extraOf(b, 'co2_ppm')?.value).toBe(455);
    expect(extraOf(b, 'lightning_count_today')?.value).toBe(13);
    expect(extraOf(b, 'lightning_distance_mi')?.value).toBeCloseTo(0.6214, 4); // 1 km
    expect(b.strikes).toEqual([{ epoch: 1650475037, distanceMi: expect.closeTo(0.6214, 4), energy: null }]);
    expect(extraOf(b, 'battery:wh80')?.value).toBe(3.28);
    expect(extraOf(b, 'battery:wh45')?.value).toBe(6);
    expect(b.devices![0]).toMatchObject({ model: 'GW2000A', firmware: 'V2.1.4' });

    const tipping = parse(bodies[1]!, { rainGauge: 'tipping' });
    expect(valueOf(tipping.batch, 'rain_in_today')).toBe(0);
    expect(extraOf(tipping.batch, 'rain_year_in')?.value).toBe(3.909);
  });

  it('line 3, GW1100B: soil 1-2, WH34 probes, and no wind or solar keys (no reading, not 0)', () => {
    const p = parse(bodies[2]!);
    const b = p.batch;
    expect(p.observedEpoch).toBe(Date.UTC(2021, 7, 23, 23, 13, 41) / 1000);
    expect(valueOf(b, 'air_temp_f')).toBe(91.4);
    expect(valueOf(b, 'rh_pct')).toBe(48);
    expect(soil(b)).toEqual([
      ['soil_moisture_pct:1', 40, 'Soil moisture CH1'],
      ['soil_moisture_pct:2', 56, 'Soil moisture CH2'],
    ]);
    expect(extraOf(b, 'battery:wh51:2')?.value).toBe(1.8);
    expect(extraOf(b, 'probe_temp_f:5')?.value).toBe(85.1);
    expect(extraOf(b, 'battery:wh34:2')?.value).toBe(1.47);
    expect(extraOf(b, 'battery:wh40')?.value).toBe(1.6);
    for (const field of [
      'wind_avg_mph',
      'wind_gust_mph',
      'wind_dir_deg',
      'solar_w_m2',
      'uv_index',
    ] as const) {
      expect(readingOf(b, field)).toBeUndefined();
    }
    expect(valueOf(b, 'rain_in_today')).toBe(0);
  });

  it('line 4, WS2900 console: event rain, measured zeros stay zero', () => {
    const b = parse(bodies[3]!).batch;
    expect(valueOf(b, 'air_temp_f')).toBe(22);
    expect(valueOf(b, 'rh_pct')).toBe(100);
    expect(valueOf(b, 'pressure_inhg')).toBe(28.122);
    expect(extraOf(b, 'rain_event_in')?.value).toBe(1.331);
    expect(valueOf(b, 'rain_in_today')).toBe(0);
    expect(valueOf(b, 'solar_w_m2')).toBe(0);
    expect(valueOf(b, 'uv_index')).toBe(0);
    expect(soil(b)).toEqual([]);
    expect(extraOf(b, 'battery:wh65')?.value).toBe(0);
    expect(b.devices![0]).toMatchObject({ model: 'WS2900', firmware: 'V2.01.13' });
  });

  it('line 5, GW2000A V3.1.5 with a WS90: piezo-only rain', () => {
    const b = parse(bodies[4]!).batch;
    expect(valueOf(b, 'air_temp_f')).toBe(51.44);
    expect(valueOf(b, 'pressure_inhg')).toBe(29.394);
    expect(valueOf(b, 'wind_avg_mph')).toBe(1.79);
    expect(valueOf(b, 'rain_in_today')).toBe(0);
    expect(extraOf(b, 'rain_week_in')?.value).toBe(0.181);
    expect(extraOf(b, 'battery:ws90cap')?.value).toBe(5);
    expect(extraOf(b, 'battery:wh90')?.value).toBe(3.04);
    expect(b.devices![0]).toMatchObject({ model: 'GW2000A', firmware: 'V3.1.5' });
    // Forcing the tipping bucket on a piezo-only station leaves rain unknown.
    expect(readingOf(parse(bodies[4]!, { rainGauge: 'tipping' }).batch, 'rain_in_today')).toBeUndefined();
  });

  it('line 6, HP3500 console with a real-format PASSKEY', () => {
    const p = parse(bodies[5]!);
    expect(p.credential).toBe('34271334ED1FADA6D8B988B14267E55D');
    expect(p.observedEpoch).toBe(Date.UTC(2020, 4, 4, 14, 34, 26) / 1000);
    expect(valueOf(p.batch, 'air_temp_f')).toBe(70.3);
    expect(valueOf(p.batch, 'rh_pct')).toBe(32);
    expect(valueOf(p.batch, 'solar_w_m2')).toBe(205.52);
    expect(valueOf(p.batch, 'uv_index')).toBe(2);
    expect(valueOf(p.batch, 'wind_avg_mph')).toBe(0.4);
    expect(extraOf(p.batch, 'rain_hourly_in')).toBeUndefined(); // not sent by this console
    expect(p.batch.devices![0]).toMatchObject({ model: 'HP3500', firmware: 'V1.6.2' });
  });

  it('line 7, GW2000A V2.1.5 with a WS90', () => {
    const p = parse(bodies[6]!);
    expect(p.credential).toBe('345544D8EAF42E1B8824A86D8250D5A3');
    expect(valueOf(p.batch, 'air_temp_f')).toBe(87.08);
    expect(valueOf(p.batch, 'pressure_inhg')).toBe(27.885);
    expect(valueOf(p.batch, 'solar_w_m2')).toBe(530.62);
    expect(valueOf(p.batch, 'uv_index')).toBe(4);
    expect(valueOf(p.batch, 'wind_gust_mph')).toBe(3.13);
    expect(extraOf(p.batch, 'battery:wh90')?.value).toBe(2.74);
  });

  it('line 8, Wunderground protocol: ID/PASSWORD, dateutc=now, sea-level baromin', () => {
    const p = parse(bodies[7]!);
    const b = p.batch;
    expect(p.protocol).toBe('wunderground');
    expect(p.credential).toBe('1909');
    expect(p.stationId).toBe('MCKEAN');
    expect(p.observedEpoch).toBe(RECEIVED); // "now"
    expect(valueOf(b, 'air_temp_f')).toBe(89.42);
    expect(valueOf(b, 'rh_pct')).toBe(54);
    expect(valueOf(b, 'wind_avg_mph')).toBe(0); // measured calm
    expect(valueOf(b, 'wind_gust_mph')).toBe(9.17);
    expect(valueOf(b, 'uv_index')).toBe(6);
    expect(valueOf(b, 'solar_w_m2')).toBe(732.04);
    expect(valueOf(b, 'rain_in_today')).toBe(0);
    expect(readingOf(b, 'pressure_inhg')).toBeUndefined();
    expect(extraOf(b, 'pressure_sea_level_inhg')?.value).toBe(30.135);
    expect(extraOf(b, 'rain_hourly_in')?.value).toBe(0);
    expect(extraOf(b, 'indoor_temp_f')?.value).toBe(79.34);
    expect(b.devices![0]).toMatchObject({ model: 'OBSERVERIP2', firmware: 'V2.2.3' });
  });
});

describe('missing values', () => {
  it('treats -9999, empty and non-numbers as missing, never 0', () => {
    const body = bodies[1]!
      .replace('tempf=59.7', 'tempf=-9999')
      .replace('humidity=65', 'humidity=')
      .replace('soilmoisture3=59', 'soilmoisture3=--')
      .replace('lightning=1&lightning_time=1650475037', 'lightning=&lightning_time=');
    const b = parse(body).batch;
    expect(readingOf(b, 'air_temp_f')).toBeUndefined();
    expect(readingOf(b, 'rh_pct')).toBeUndefined();
    expect(extraOf(b, 'soil_moisture_pct:3')).toBeUndefined();
    expect(extraOf(b, 'soil_moisture_pct:2')?.value).toBe(57);
    expect(extraOf(b, 'lightning_distance_mi')).toBeUndefined();
    expect(b.strikes).toBeUndefined();
    expect(extraOf(b, 'lightning_count_today')?.value).toBe(13);
    expect((b.readings ?? []).every((r) => r.value !== null)).toBe(true);
  });

  it('drops out-of-range soil moisture and humidity', () => {
    const b = parse('PASSKEY=k&soilmoisture1=140&humidity=-3&tempf=50').batch;
    expect(extraOf(b, 'soil_moisture_pct:1')).toBeUndefined();
    expect(readingOf(b, 'rh_pct')).toBeUndefined();
    expect(valueOf(b, 'air_temp_f')).toBe(50);
  });
});

describe('time and form helpers', () => {
  it('decodes both dateutc encodings seen in real bodies', () => {
    expect(decodeForm('dateutc=2023-05-18+17:47:20').dateutc).toBe('2023-05-18 17:47:20');
    expect(decodeForm('dateutc=2025-08-07%2013%3A02%3A00').dateutc).toBe('2025-08-07 13:02:00');
    expect(parseDateUtc('2025-08-07 13:02:00')).toBe(Date.UTC(2025, 7, 7, 13, 2, 0) / 1000);
    expect(parseDateUtc('now')).toBeNull();
    expect(parseDateUtc('2025-02-30 10:00:00')).toBeNull();
    expect(parseDateUtc(undefined)).toBeNull();
  });

  it('uses the receive time when dateutc is absent, and never a time after it', () => {
    expect(parse('PASSKEY=k&tempf=50').observedEpoch).toBe(RECEIVED);
    expect(parse('PASSKEY=k&tempf=50&dateutc=2031-01-01+00%3A00%3A00').observedEpoch).toBe(RECEIVED);
    expect(parse('PASSKEY=k&tempf=50&dateutc=2024-12-31+23%3A59%3A00').observedEpoch).toBe(RECEIVED - 60);
  });

  it('reads numbers strictly and finds the credential', () => {
    expect(uploadNumber('0.000')).toBe(0);
    expect(uploadNumber('-9999')).toBeNull();
    expect(uploadNumber('-9999.0')).toBeNull();
    expect(uploadNumber('12abc')).toBeNull();
    expect(uploadNumber('')).toBeNull();
    expect(uploadCredential({ PASSKEY: ' abc ' })).toBe('abc');
    expect(uploadCredential({ ID: 'X', PASSWORD: 'pw' })).toBe('pw');
    expect(uploadCredential({ PASSKEY: '' })).toBeNull();
    expect(uploadCredential({ tempf: '50' })).toBeNull();
  });

  it('marks a body without any usable value', () => {
    expect(parse('PASSKEY=k&stationtype=GW2000A_V3.1.5&freq=868M').usable).toBe(false);
    expect(parse('PASSKEY=k&tempf=50').usable).toBe(true);
  });
});
