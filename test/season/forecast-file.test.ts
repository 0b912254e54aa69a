import { DateTime } from 'luxon';
import { ForecastFileError, IssuedForecasts, parseForecastFile } from '../../server/src/season/forecast-file';
import { SeasonWeather } from '../../server/src/season/season-weather';
import { readSeason } from './fixtures';

/**
 * `--forecast-file`: the issued-forecast lines (parsing, clear errors for bad
 * lines) and what the replay serves from them (season-weather.ts): the day's
 * issue, or while the provider is unreachable the last one, its days dropping
 * out as they pass (ForecastService's rule), until nothing of it is left.
 */

const TZ = 'America/Denver';
const line = (o: Record<string, unknown>) => JSON.stringify(o);
const issue = (issued: string, target: string, precip_mm: number | null, p: number | null = 50) =>
  line({ issued, target, precip_mm, precip_probability: p });

describe('parseForecastFile', () => {
  it('reads lines by issue and target, skips blank lines, keeps null as null', () => {
    const text = [
      issue('2022-06-01', '2022-06-01', 0, 10),
      '',
      issue('2022-06-01', '2022-06-03', null, null),
      line({
        issued: '2022-06-02',
        target: '2022-06-08',
        precip_mm: 4.5,
        precip_probability: 70,
        tmax_c: 31,
        tmin_c: null,
      }),
    ].join('\n');
    const f = parseForecastFile(`${text}\n`);
    expect(f.issuedOn('2022-06-01').map((d) => [d.target, d.precip_mm, d.precip_probability])).toEqual([
      ['2022-06-01', 0, 10],
      ['2022-06-03', null, null],
    ]);
    expect(f.issuedOn('2022-06-02')[0]).toEqual({
      issued: '2022-06-02',
      target: '2022-06-08',
      precip_mm: 4.5,
      precip_probability: 70,
      tmax_c: 31,
      tmin_c: null,
    });
    expect(f.lastIssueOnOrBefore('2022-05-31')).toBeNull();
    expect(f.lastIssueOnOrBefore('2022-06-01')).toBe('2022-06-01');
    expect(f.lastIssueOnOrBefore('2022-06-20')).toBe('2022-06-02');
  });

  it.each([
    ['{"issued":"2022-06-01"', 'line 2: not a JSON object'],
    [issue('2022-06-01', '2022-06-08', 1), 'line 2: target 2022-06-08 is 7 days after issue 2022-06-01'],
    [issue('2022-06-02', '2022-06-01', 1), 'line 2: target 2022-06-01 is -1 days after issue 2022-06-02'],
    [issue('2022-06-01', '2022-06-02', -1), 'line 2: precip_mm'],
    [issue('2022-06-01', '2022-06-02', 1, 101), 'line 2: precip_probability'],
    [line({ issued: '2022-06-01', target: '2022-06-02', precip_mm: 1 }), 'line 2: precip_probability'],
    [issue('2022-02-30', '2022-03-01', 1), 'line 2: issued is not a date'],
    [issue('6/1/2022', '2022-06-01', 1), 'line 2: issued must be YYYY-MM-DD'],
    [line({ ...JSON.parse(issue('2022-06-01', '2022-06-02', 1)), rain: 3 }), 'line 2: Unrecognized key'],
    [issue('2022-06-01', '2022-06-01', 2), 'line 2: a second line issued 2022-06-01 for 2022-06-01'],
  ])('rejects a bad line with its number: %s', (bad, message) => {
    const text = `${issue('2022-06-01', '2022-06-01', 0)}\n${bad}\n`;
    expect(() => parseForecastFile(text)).toThrow(ForecastFileError);
    expect(() => parseForecastFile(text)).toThrow(message);
  });

  it('rejects an empty file', () => {
    expect(() => parseForecastFile('\n\n')).toThrow('forecast file has no forecast lines');
  });
});

describe('SeasonWeather with issued forecasts', () => {
  const wth = readSeason('greeley');
  const week = (issued: string, mm: (lead: number) => number | null) =>
    Array.from({ length: 7 }, (_, lead) => {
      const target = DateTime.fromISO(issued).plus({ days: lead }).toISODate() as string;
      return { issued, target, precip_mm: mm(lead), precip_probability: 60 };
    });
  const forecasts = new IssuedForecasts([
    ...week('2022-06-01', (lead) => lead),
    ...week('2022-06-03', () => 8),
  ]);
  const weather = new SeasonWeather(wth.days, TZ, forecasts);
  const at = (date: string, hour = 5) => DateTime.fromISO(date, { zone: TZ }).set({ hour }).toSeconds();

  it('before the first issue there is no forecast', () => {
    const f = weather.forecastAt(at('2022-05-31'));
    expect(f).toMatchObject({ last_refresh_epoch: null, source_reachable: false, daily: [], hourly: [] });
  });

  it("on an issue day: that issue, reachable, its rain shaped into 14:00-18:00 with the day's probability", () => {
    const now = at('2022-06-03');
    const f = weather.forecastAt(now);
    expect(f.source_reachable).toBe(true);
    expect(f.last_refresh_epoch).toBe(now);
    expect(f.daily.map((d) => d.date_local)).toEqual([
      '2022-06-03',
      '2022-06-04',
      '2022-06-05',
      '2022-06-06',
      '2022-06-07',
      '2022-06-08',
      '2022-06-09',
    ]);
    expect(f.daily[0]?.precip_sum_in).toBeCloseTo(8 / 25.4, 6);
    expect(f.daily[0]?.precip_probability_max).toBe(60);
    const day = f.hourly.filter((h) => h.time_epoch < at('2022-06-04', 0));
    expect(day).toHaveLength(24);
    const rainy = day.filter((h) => (h.precip_in ?? 0) > 0);
    expect(rainy.map((h) => DateTime.fromSeconds(h.time_epoch, { zone: TZ }).hour)).toEqual([14, 15, 16, 17]);
    expect(rainy.every((h) => h.precip_probability === 60)).toBe(true);
    expect(day.reduce((s, h) => s + (h.precip_in ?? 0), 0) * 25.4).toBeCloseTo(8, 6);
    // Without temperatures in the line, the weather file's are the forecast's.
    const file = wth.days.find((d) => d.date === '2022-06-03');
    expect(f.daily[0]?.temp_max_f).toBeCloseTo(((file?.tmax_c as number) * 9) / 5 + 32, 6);
  });

  it('a day with nothing issued keeps the last forecast, unreachable, fetched on its issue day', () => {
    const f = weather.forecastAt(at('2022-06-02'));
    expect(f.source_reachable).toBe(false);
    expect(f.last_refresh_epoch).toBe(at('2022-06-02', 0) - 1800);
    expect(f.daily.map((d) => d.date_local)[0]).toBe('2022-06-02');
    expect(f.daily[0]?.precip_sum_in).toBeCloseTo(1 / 25.4, 6);
    expect(f.daily).toHaveLength(6);
  });

  it('the kept forecast loses its days as they pass and is gone once its last target is behind', () => {
    const late = weather.forecastAt(at('2022-06-09'));
    expect(late.daily.map((d) => d.date_local)).toEqual(['2022-06-09']);
    const gone = weather.forecastAt(at('2022-06-10'));
    expect(gone.daily).toEqual([]);
    expect(gone.hourly).toEqual([]);
    expect(gone.source_reachable).toBe(false);
  });

  it("a line's temperatures and null rain are the forecast's own: null stays null", () => {
    const own = new SeasonWeather(
      wth.days,
      TZ,
      new IssuedForecasts([
        {
          issued: '2022-06-01',
          target: '2022-06-01',
          precip_mm: null,
          precip_probability: null,
          tmax_c: 30,
          tmin_c: null,
        },
      ]),
    );
    const f = own.forecastAt(at('2022-06-01'));
    expect(f.daily[0]).toMatchObject({ temp_max_f: 86, temp_min_f: null, precip_sum_in: null });
    expect(f.daily[0]?.precip_probability_max).toBeNull();
    expect(f.hourly.every((h) => h.precip_in === null && h.temp_f === null)).toBe(true);
  });
});
