import { DateTime } from 'luxon';
import { mergeDay } from '../../server/src/weather-record/merge-day';
import { stationDays, type StoredReading } from '../../server/src/weather-record/station-days';
import { emptyDay } from '../../server/src/weather-record/types';
import { day } from '../irrigation/skip/fixtures';

/**
 * The daily weather record: a station's day from its stored readings (with
 * coverage rules), and the merge that puts the station first, the forecast
 * provider's past day second, what the record already held third, and null
 * last.
 */

const TZ = 'America/Denver';
const zone = { zone: TZ };

/** One reading per `every` seconds from the day's start over `hours` hours. */
function series(
  date: string,
  field: string,
  hours: number,
  value: (h: number) => number,
  every = 600,
): StoredReading[] {
  const start = DateTime.fromISO(date, zone).toSeconds();
  const out: StoredReading[] = [];
  for (let t = 0; t < hours * 3600; t += every) {
    out.push({ epoch: start + t, source_id: 'yard', field, value: value(t / 3600) });
  }
  return out;
}

describe('stationDays', () => {
  const date = '2024-07-10';

  it('aggregates a full day: extremes, means, radiation sum, the running rain total; coverage 1', () => {
    const readings = [
      ...series(date, 'air_temp_f', 24, (h) => 60 + 30 * Math.sin((Math.PI * h) / 24)),
      ...series(date, 'rh_pct', 24, (h) => 80 - 50 * Math.sin((Math.PI * h) / 24)),
      ...series(date, 'wind_avg_mph', 24, () => 6.71081),
      ...series(date, 'solar_w_m2', 24, () => 300),
      ...series(date, 'rain_in_today', 24, (h) => (h < 15 ? 0 : 0.4)),
      ...series(date, 'air_temp_f', 24, () => 0).map((r) => ({ ...r, source_id: 'model' })),
    ];
    const [d] = stationDays(readings, new Set(['yard']), TZ, [date]);
    expect(d?.source_id).toBe('yard');
    expect(d?.values.tmax_c).toBeCloseTo((90 - 32) / 1.8, 1);
    expect(d?.values.tmin_c).toBeCloseTo(((60 - 32) * 5) / 9, 6);
    expect(d?.values.rh_min_pct).toBeCloseTo(30, 1);
    expect(d?.values.rh_max_pct).toBe(80);
    expect(d?.values.wind_2m_ms).toBeCloseTo(3, 4);
    expect(d?.values.rs_mj_m2).toBeCloseTo(25.92, 6);
    expect(d?.values.rain_mm).toBeCloseTo(10.16, 6);
    expect(d?.coverage).toMatchObject({ tmax_c: 1, rain_mm: 1, rs_mj_m2: 1 });
  });

  it('a partial day gives no number: 19 hours of temperature, a gauge silent in the last hour, radiation with a gap', () => {
    const readings = [
      ...series(date, 'air_temp_f', 19, () => 70),
      ...series(date, 'rain_in_today', 23, () => 0.1),
      // The first hour's six readings missing: 23 hours of radiation.
      ...series(date, 'solar_w_m2', 24, () => 300).slice(6),
    ];
    const [d] = stationDays(readings, new Set(['yard']), TZ, [date]);
    expect(d?.values.tmax_c).toBeUndefined();
    expect(d?.coverage.tmax_c).toBeCloseTo(19 / 24, 6);
    expect(d?.values.rain_mm).toBeUndefined();
    expect(d?.coverage.rain_mm).toBeCloseTo(23 / 24, 6);
    expect(d?.values.rs_mj_m2).toBeUndefined();
  });

  it('counts a DST day by its own hours: 23 on the spring day', () => {
    const spring = '2024-03-10';
    const readings = series(spring, 'rain_in_today', 23, () => 0.05);
    const [d] = stationDays(readings, new Set(['yard']), TZ, [spring]);
    expect(d?.coverage.rain_mm).toBe(1);
    expect(d?.values.rain_mm).toBeCloseTo(1.27, 6);
  });
});

describe('mergeDay', () => {
  const date = '2024-07-10';
  const model = {
    provider: 'Open-Meteo',
    entry: day(0, { date_local: date, precip_sum_in: 0.5, temp_max_f: 95 }),
  };

  it('station first, per field; the model fills what the station lacks', () => {
    const station = {
      date_local: date,
      source_id: 'yard',
      values: { rain_mm: 3.2 },
      coverage: { rain_mm: 1, tmax_c: 0.5 },
    };
    const d = mergeDay(date, [station], model, undefined);
    expect(d.rain_mm).toBe(3.2);
    expect(d.sources.rain_mm).toEqual({ source: 'station', source_id: 'yard', coverage: 1 });
    expect(d.tmax_c).toBeCloseTo(35, 6);
    expect(d.sources.tmax_c).toEqual({ source: 'model_archive', source_id: 'Open-Meteo', coverage: 1 });
  });

  it('keeps what the record held when its source has rolled out of view; else null with the coverage seen', () => {
    const held = emptyDay(date);
    held.rain_mm = 7;
    held.sources.rain_mm = { source: 'model_archive', source_id: 'Open-Meteo', coverage: 1 };
    const station = { date_local: date, source_id: 'yard', values: {}, coverage: { tmax_c: 0.4 } };
    const d = mergeDay(date, [station], null, held);
    expect(d.rain_mm).toBe(7);
    expect(d.sources.rain_mm.source).toBe('model_archive');
    expect(d.tmax_c).toBeNull();
    expect(d.sources.tmax_c).toEqual({ source: 'none', source_id: null, coverage: 0.4 });
  });

  it("a provider's unreported ET0 of 0 stays null; a reported one counts", () => {
    const unreported = mergeDay(
      date,
      [],
      { provider: 'p', entry: day(0, { et0_in: 0, et0_reported: false }) },
      undefined,
    );
    expect(unreported.et0_native_mm).toBeNull();
    const reported = mergeDay(
      date,
      [],
      { provider: 'p', entry: day(0, { et0_in: 0, et0_reported: true }) },
      undefined,
    );
    expect(reported.et0_native_mm).toBe(0);
  });
});
