import {
  buildHourly,
  HOUR,
  observedRainByHour,
  observedTempByHour,
  rainSummary,
  tempSummary,
} from '../../web/app/pages/dashboard/forecast-series';
import type { ForecastSnapshot, WeatherHistory } from '../../web/app/pages/dashboard/weather-types';
import type { Format } from '../../web/app/pages/zones/zone-model';

const fmt: Format = (q, v) => (v === null || v === undefined ? '—' : `${Number(v.toFixed(3))} ${q}`);
const T = 1_795_300_000 - (1_795_300_000 % HOUR); // an hour start

function rows(...values: [number, number | null, number | null][]): WeatherHistory['rows'] {
  return values.map(([epoch, rain, temp]) => ({ epoch, rain_in_today: rain, air_temp_f: temp }));
}

describe('observedRainByHour', () => {
  it('adds the increase of the running total to the later reading’s hour', () => {
    const byHour = observedRainByHour(
      rows(
        [T + 60, 0.1, null],
        [T + 120, 0.15, null],
        [T + HOUR + 60, 0.15, null],
        [T + HOUR + 120, 0.3, null],
      ),
    );
    expect(byHour.get(T)).toBeCloseTo(0.05, 10);
    expect(byHour.get(T + HOUR)).toBeCloseTo(0.15, 10);
  });

  it('treats a drop as the midnight reset', () => {
    const byHour = observedRainByHour(rows([T, 0.5, null], [T + 60, 0.02, null]));
    expect(byHour.get(T)).toBeCloseTo(0.02, 10);
  });

  it('skips null readings and leaves hours without a step absent (unknown)', () => {
    const byHour = observedRainByHour(rows([T, 0.1, null], [T + 60, null, null], [T + 2 * HOUR, 0.1, null]));
    expect(byHour.has(T)).toBe(false);
    expect(byHour.get(T + 2 * HOUR)).toBe(0); // a measured zero step stays zero
    expect(byHour.has(T + HOUR)).toBe(false);
  });
});

describe('observedTempByHour', () => {
  it('averages the hour’s readings', () => {
    const byHour = observedTempByHour(rows([T, null, 60], [T + 60, null, 62], [T + HOUR, null, null]));
    expect(byHour.get(T)).toBe(61);
    expect(byHour.has(T + HOUR)).toBe(false);
  });
});

describe('buildHourly', () => {
  const forecast: ForecastSnapshot = {
    last_refresh_epoch: 0,
    source_reachable: true,
    source_label: 'x',
    source_is_backup: false,
    timezone: 'UTC',
    daily: [],
    past_daily: [],
    hourly: [
      { time_epoch: T - HOUR, temp_f: 50, precip_in: 9, precip_probability: 99 },
      { time_epoch: T, temp_f: 64, precip_in: 0, precip_probability: 5 },
      { time_epoch: T + HOUR, temp_f: 65, precip_in: 0.1, precip_probability: 60 },
      { time_epoch: T + 2 * HOUR, temp_f: null, precip_in: null, precip_probability: null },
    ],
  };
  const history: WeatherHistory = {
    hours: 24,
    fields: ['rain_in_today', 'air_temp_f'],
    rows: rows([T - HOUR, 0.1, 60], [T - HOUR + 60, 0.2, 62], [T + 60, 0.2, 64]),
  };
  const h = buildHourly(history, forecast, T + 1800, 2, 3);

  it('spans past to ahead on hour starts', () => {
    expect(h.x).toEqual([T - 2 * HOUR, T - HOUR, T, T + HOUR, T + 2 * HOUR, T + 3 * HOUR]);
  });

  it('puts observations in the past and the current hour, forecast from the current hour on', () => {
    expect(h.observedRainIn).toEqual([null, 0.1, 0, null, null, null]);
    expect(h.observedTempF).toEqual([null, 61, 64, null, null, null]);
    // The forecast for an hour already gone is not drawn; a null forecast hour stays a gap.
    expect(h.forecastRainIn).toEqual([null, null, 0, 0.1, null, null]);
    expect(h.forecastPct).toEqual([null, null, 5, 60, null, null]);
    expect(h.forecastTempF).toEqual([null, null, 64, 65, null, null]);
  });

  it('works without history (not mounted)', () => {
    const bare = buildHourly(null, forecast, T, 1, 1);
    expect(bare.observedRainIn).toEqual([null, null, null]);
  });

  it('summarises for screen readers, saying what is missing', () => {
    expect(rainSummary(h, fmt, (e) => `@${e - T}`)).toBe(
      'Observed: 0.1 rain_in of rain over the 2 past hours with readings. Forecast: 0.1 rain_in over the next 2 hours. Highest chance of rain 60% at @3600.',
    );
    expect(tempSummary(h, fmt)).toBe(
      'Observed temperature 61 temp_f to 64 temp_f. Forecast 64 temp_f to 65 temp_f.',
    );
    const empty = buildHourly(null, null, T, 1, 1);
    expect(rainSummary(empty, fmt, String)).toBe(
      'No observed rain history is available. No forecast rain is available.',
    );
    expect(tempSummary(empty, fmt)).toBe(
      'No observed temperature history is available. No temperature forecast is available.',
    );
  });
});
