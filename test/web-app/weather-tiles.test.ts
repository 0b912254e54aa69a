import {
  buildTiles,
  compass,
  pressureTrend,
  tileProvenance,
} from '../../web/app/pages/dashboard/weather-tiles';
import type { Format } from '../../web/app/pages/zones/zone-model';

const fmt: Format = (q, v) => (v === null || v === undefined ? '—' : `${v} ${q}`);

const weather = {
  last_packet_epoch: 1000,
  air_temp_f: 67.1,
  feels_like_f: 67.1,
  dew_point_f: 58.9,
  rh_pct: 75,
  pressure_inhg: 29.89,
  pressure_trend_inhg: [29.8, 29.85, 29.9],
  wind_avg_mph: 2.2,
  wind_gust_mph: 4,
  wind_dir_deg: 113,
  rain_in_today: 0,
  rain_intensity_in_hr: null,
  uv_index: 0,
  lightning_strikes_last_hour: null,
  last_strike_distance_mi: null,
  source_label: 'Backyard station',
  air_temp_live_epoch: 990,
  wind_live_epoch: 980,
  rh_live_epoch: 970,
  rain_live_epoch: 960,
};

const current = {
  air_temp_f: {
    value: 67.1,
    source_id: 'tempest',
    observed_epoch: 995,
    max_age_s: 600,
    measured: true,
    selection_reason: 'priority',
  },
  rh_pct: {
    value: 75,
    source_id: 'openmeteo',
    observed_epoch: 900,
    max_age_s: 3600,
    measured: false,
    selection_reason: 'fallback',
  },
};

describe('buildTiles', () => {
  const tiles = buildTiles(weather, current, fmt, false);
  const byKey = Object.fromEntries(tiles.map((t) => [t.key, t]));

  it('shows only fields the snapshot carries, in a fixed order', () => {
    expect(tiles.map((t) => t.key)).toEqual([
      'air_temp_f',
      'feels_like_f',
      'rh_pct',
      'dew_point_f',
      'wind_avg_mph',
      'wind_gust_mph',
      'rain_in_today',
      'rain_intensity_in_hr',
      'pressure_inhg',
      'uv_index',
      'lightning_strikes_last_hour',
    ]);
  });

  it('keeps null unknown and a measured zero as zero', () => {
    expect(byKey.rain_intensity_in_hr?.value).toBeNull();
    expect(byKey.rain_intensity_in_hr?.source).toBe('no live reading');
    expect(byKey.rain_intensity_in_hr?.observedEpoch).toBeNull();
    expect(byKey.rain_in_today?.value).toBe('0 rain_in');
    expect(byKey.uv_index?.value).toBe('0.0');
    expect(byKey.lightning_strikes_last_hour?.value).toBeNull();
  });

  it('takes source and age from the per-field sample first', () => {
    expect(byKey.air_temp_f).toMatchObject({ source: 'tempest', observedEpoch: 995 });
    expect(byKey.rh_pct).toMatchObject({ source: 'openmeteo (modelled, not measured)', observedEpoch: 900 });
  });

  it('dates a derived value by its oldest input', () => {
    expect(byKey.dew_point_f?.observedEpoch).toBe(900);
    expect(byKey.dew_point_f?.source).toBe('computed from tempest, openmeteo (modelled, not measured)');
  });

  it("falls back to the group's observation time and the snapshot's source label", () => {
    expect(byKey.wind_avg_mph).toMatchObject({ source: 'Backyard station', observedEpoch: 980 });
    expect(byKey.pressure_inhg?.observedEpoch).toBe(1000); // no group: the last packet
  });

  it('adds wind direction and pressure trend as details', () => {
    expect(byKey.wind_avg_mph?.detail).toBe('from ESE (113°)');
    expect(byKey.pressure_inhg?.detail).toBe('rising');
    expect(byKey.rain_in_today?.value).toBe('0 rain_in');
    expect(byKey.rain_intensity_in_hr?.detail).toBeNull();
  });

  it('describes provenance for the title and screen readers', () => {
    expect(tileProvenance(byKey.air_temp_f!, 1_005_000)).toBe('Source: tempest; observed 10 s ago');
    expect(tileProvenance(byKey.rain_intensity_in_hr!, 1_005_000)).toBe('No live reading');
  });

  it('shows the last strike distance in the display units', () => {
    const strikes = buildTiles(
      { lightning_strikes_last_hour: 3, last_strike_distance_mi: 10 },
      null,
      fmt,
      true,
    );
    expect(strikes[0]).toMatchObject({ value: '3 strikes', detail: 'last 16 km away' });
  });
});

describe('helpers', () => {
  it('names compass points', () => {
    expect(compass(0)).toBe('N');
    expect(compass(359)).toBe('N');
    expect(compass(90)).toBe('E');
    expect(compass(-90)).toBe('W');
    expect(compass(202.5)).toBe('SSW');
  });

  it('reads a pressure trend only from two or more values', () => {
    expect(pressureTrend(undefined)).toBeNull();
    expect(pressureTrend([29.9])).toBeNull();
    expect(pressureTrend([29.9, 29.91])).toBe('steady');
    expect(pressureTrend([30.0, 29.9])).toBe('falling');
  });
});
