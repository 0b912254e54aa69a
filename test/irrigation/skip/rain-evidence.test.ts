import {
  compareEvidence,
  consecutiveDates,
  daysSinceSignificantRain,
  hourStarts,
  localCalendar,
  observedRainToday,
  pastRainNewestFirst,
  rainNext4h,
  rainOverDays,
  rainOverInterval,
  rainToday,
  rainTomorrow,
  rainTomorrowProb,
  sumOverInterval,
  weightedAmount,
  weightedRain,
  weightedRainOverInterval,
} from '../../../server/src/irrigation/skip';
import {
  HOUR,
  MIDNIGHT,
  NOW,
  TODAY,
  TZ,
  dateAt,
  day,
  emptyWeather,
  hour,
  hours,
  local,
  patchHours,
  stationWeather,
} from './fixtures';

const T0 = local('2025-06-16T10:00:00');

describe('sumOverInterval: a total needs a valid amount for every hour', () => {
  const wet = [0, 0.1, 0.2, 0.05].map((p, i) => hour(T0 + i * HOUR, { precip_in: p }));

  it('sums complete coverage', () => {
    expect(sumOverInterval(wet, T0, T0 + 4 * HOUR)).toBe(0.35);
  });

  it('strips float noise (0.1 + 0.2)', () => {
    const list = [0.1, 0.2].map((p, i) => hour(T0 + i * HOUR, { precip_in: p }));
    expect(sumOverInterval(list, T0, T0 + 2 * HOUR)).toBe(0.3);
  });

  it('a missing hour makes the total null: a gap never proves dry', () => {
    const gap = wet.filter((_, i) => i !== 2);
    expect(sumOverInterval(gap, T0, T0 + 4 * HOUR)).toBeNull();
    const e = rainOverInterval(gap, T0, T0 + 4 * HOUR);
    expect(e).toMatchObject({ value: null, at_least: 0.15, at_most: null, have: 3, need: 4 });
  });

  it('a null, negative or NaN amount is no evidence', () => {
    for (const bad of [null, -0.1, Number.NaN, Number.POSITIVE_INFINITY]) {
      const list = wet.map((h, i) => (i === 1 ? { ...h, precip_in: bad } : h));
      expect(sumOverInterval(list, T0, T0 + 4 * HOUR)).toBeNull();
    }
  });

  it('a dry gap-free interval is a real zero', () => {
    const dry = [0, 1, 2, 3].map((i) => hour(T0 + i * HOUR, { precip_in: 0 }));
    expect(sumOverInterval(dry, T0, T0 + 4 * HOUR)).toBe(0);
    expect(sumOverInterval([], T0, T0 + 4 * HOUR)).toBeNull();
    expect(rainOverInterval([], T0, T0 + 4 * HOUR)).toMatchObject({
      value: null,
      at_least: null,
      have: 0,
      need: 4,
    });
  });

  it('needs every hour overlapping the interval, whole', () => {
    expect(hourStarts(T0 + 1800, T0 + 4 * HOUR + 1800)).toEqual([0, 1, 2, 3, 4].map((i) => T0 + i * HOUR));
    expect(sumOverInterval(wet, T0 + 1800, T0 + 4 * HOUR + 1800)).toBeNull();
    expect(sumOverInterval(wet, T0 + 1800, T0 + 4 * HOUR)).toBe(0.35);
  });

  it('ignores off-grid entries; the first entry of a repeated hour wins', () => {
    const list = [hour(T0, { precip_in: 0.3 }), hour(T0, { precip_in: 9 }), hour(T0 + 60, { precip_in: 5 })];
    expect(sumOverInterval(list, T0, T0 + HOUR)).toBe(0.3);
    const nullFirst = [hour(T0, { precip_in: null }), hour(T0, { precip_in: 0 })];
    expect(sumOverInterval(nullFirst, T0, T0 + HOUR)).toBeNull();
  });

  it('an empty interval is 0; an inverted one throws', () => {
    expect(sumOverInterval(wet, T0, T0)).toBe(0);
    expect(() => sumOverInterval(wet, T0 + 1, T0)).toThrow(RangeError);
    expect(() => sumOverInterval(wet, Number.NaN, T0)).toThrow(RangeError);
  });
});

describe('probability weighting', () => {
  it('weights each hour by its probability', () => {
    const list = [
      hour(T0, { precip_in: 0.4, precip_probability: 50 }),
      hour(T0 + HOUR, { precip_in: 0.1, precip_probability: 100 }),
    ];
    expect(weightedRainOverInterval(list, T0, T0 + 2 * HOUR).value).toBe(0.3);
  });

  it('an hour with an amount but no probability leaves the total null, bounded by its amount', () => {
    const list = [
      hour(T0, { precip_in: 0.4, precip_probability: null }),
      hour(T0 + HOUR, { precip_in: 0.1, precip_probability: 100 }),
    ];
    expect(weightedRainOverInterval(list, T0, T0 + 2 * HOUR)).toMatchObject({
      value: null,
      at_least: 0.1,
      at_most: 0.5,
    });
  });

  it('an hour forecasting exactly 0 in weighs 0 whatever its probability', () => {
    const list = [hour(T0, { precip_in: 0, precip_probability: null })];
    expect(weightedRainOverInterval(list, T0, T0 + HOUR).value).toBe(0);
  });

  it('an hour without an amount is unbounded', () => {
    const list = [hour(T0, { precip_in: null, precip_probability: 90 })];
    expect(weightedRainOverInterval(list, T0, T0 + HOUR)).toMatchObject({
      value: null,
      at_least: null,
      at_most: null,
    });
  });

  it('a probability outside 0..100 is no evidence', () => {
    const list = [hour(T0, { precip_in: 0.2, precip_probability: 140 })];
    expect(weightedRainOverInterval(list, T0, T0 + HOUR)).toMatchObject({ value: null, at_most: 0.2 });
  });

  it('weightedAmount: tomorrow x its probability, bounded when the probability is missing', () => {
    expect(weightedAmount(0.5, 50).value).toBe(0.25);
    expect(weightedAmount(0.5, null)).toMatchObject({ value: null, at_least: 0, at_most: 0.5 });
    expect(weightedAmount(0, null).value).toBe(0);
    expect(weightedAmount(null, 80)).toMatchObject({ value: null, at_least: null, at_most: null });
  });
});

describe('daily rain by local date', () => {
  const cal = localCalendar(TZ, NOW);
  // Out of order on purpose: days are found by date, never by position.
  const daily = [
    day(3, { precip_sum_in: 0.4, precip_probability_max: 50 }),
    day(1, { precip_sum_in: 0.2, precip_probability_max: 40 }),
    day(0, { precip_sum_in: 0.1 }),
    day(2, { precip_sum_in: 0.3, precip_probability_max: 100 }),
  ];

  it('today, tomorrow, tomorrow probability', () => {
    expect(rainToday(daily, cal)).toBe(0.1);
    expect(rainTomorrow(daily, cal)).toBe(0.2);
    expect(rainTomorrowProb(daily, cal)).toBe(40);
    expect(rainTomorrow([day(0)], cal)).toBeNull();
    expect(rainTomorrowProb([day(1, { precip_probability_max: null })], cal)).toBeNull();
  });

  it('weighted 3 days after today: sum of amount x pop / 100 with weight 1.0 each', () => {
    const dates = consecutiveDates(cal, dateAt(1), 3);
    expect(dates).toEqual([dateAt(1), dateAt(2), dateAt(3)]);
    // 0.2 x 0.4 + 0.3 x 1.0 + 0.4 x 0.5
    expect(weightedRain(daily, dates).value).toBe(0.58);
    expect(rainOverDays(daily, dates).value).toBe(0.9);
  });

  it('explicit day weights multiply each day', () => {
    const dates = consecutiveDates(cal, dateAt(1), 3);
    expect(weightedRain(daily, dates, [1, 0.5, 0]).value).toBe(0.23);
    expect(() => weightedRain(daily, dates, [1, 1])).toThrow(RangeError);
    expect(() => weightedRain(daily, dates, [1, -1, 1])).toThrow(RangeError);
  });

  it('a missing day or probability leaves the weighted total null', () => {
    const dates = consecutiveDates(cal, dateAt(1), 4);
    expect(weightedRain(daily, dates).value).toBeNull();
    expect(weightedRain(daily, dates).at_least).toBe(0.58);
    const noProb = daily.map((d) =>
      d.date_local === dateAt(2) ? { ...d, precip_probability_max: null } : d,
    );
    expect(weightedRain(noProb, consecutiveDates(cal, dateAt(1), 3))).toMatchObject({
      value: null,
      at_least: 0.28,
      at_most: 0.58,
    });
  });
});

describe('rainNext4h', () => {
  it('covers [now, now + 4 h): at 10:30 the hours 10:00 through 14:00', () => {
    const list = hours(1);
    expect(rainNext4h(list, NOW)).toMatchObject({ value: 0, need: 5 });
    const wet = patchHours(list, { [local('2025-06-16T14:00:00')]: { precip_in: 0.2 } });
    expect(rainNext4h(wet, NOW).value).toBe(0.2);
    const gap = patchHours(list, { [local('2025-06-16T14:00:00')]: null });
    expect(rainNext4h(gap, NOW).value).toBeNull();
  });
});

describe('observedRainToday', () => {
  const cal = localCalendar(TZ, NOW);

  it("uses the gauge's total when it was observed today", () => {
    const r = observedRainToday(stationWeather({ rain_in_today: 0.12 }), hours(1), cal, NOW);
    expect(r).toEqual({ evidence: expect.objectContaining({ value: 0.12 }), source: 'gauge' });
  });

  it("a gauge total stamped before local midnight is yesterday's: the model's hours stand in", () => {
    const stale = stationWeather({ rain_in_today: 0.5, rain_live_epoch: MIDNIGHT - 60 });
    const list = patchHours(hours(1), { [local('2025-06-16T03:00:00')]: { precip_in: 0.07 } });
    const r = observedRainToday(stale, list, cal, NOW);
    expect(r.source).toBe('model');
    expect(r.evidence).toMatchObject({ value: 0.07, need: 11 });
  });

  it('no gauge and a gap in the model hours: only a lower bound', () => {
    const list = patchHours(hours(1), {
      [local('2025-06-16T03:00:00')]: { precip_in: 0.02 },
      [local('2025-06-16T04:00:00')]: null,
    });
    const r = observedRainToday(emptyWeather(), list, cal, NOW);
    expect(r.source).toBe('model');
    expect(r.evidence).toMatchObject({ value: null, at_least: 0.02 });
    expect(observedRainToday(null, [], cal, NOW)).toEqual({
      evidence: expect.objectContaining({ value: null }),
      source: null,
    });
  });

  it('counts the 23 hours of a spring-forward day', () => {
    const dstNow = local('2025-03-09T12:30:00');
    const dstCal = localCalendar(TZ, dstNow);
    const start = dstCal.dayStart('2025-03-09');
    const list = Array.from({ length: 23 }, (_, i) => hour(start + i * HOUR, { precip_in: 0.01 }));
    // 00:00, 01:00, then 03:00 through 12:00 local: 12 hours.
    expect(observedRainToday(null, list, dstCal, dstNow).evidence).toMatchObject({ value: 0.12, need: 12 });
    expect(dstCal.dayEnd('2025-03-09') - start).toBe(23 * HOUR);
  });
});

describe('daysSinceSignificantRain', () => {
  const wet = 0.05;

  it('counts from the day itself: 0 when it is wet, 1 when the day before was', () => {
    expect(daysSinceSignificantRain([0.05, 0, 0], wet).value).toBe(0);
    expect(daysSinceSignificantRain([0, 0.2, 0], wet).value).toBe(1);
    expect(daysSinceSignificantRain([0, 0.04, 0.01, 0.3], wet).value).toBe(3);
  });

  it('an unknown day ends the evidence: the count becomes a lower bound', () => {
    expect(daysSinceSignificantRain([0, 0, null, 0.5], wet)).toMatchObject({ value: null, at_least: 2 });
    expect(daysSinceSignificantRain([null, 0.5], wet)).toMatchObject({ value: null, at_least: 0 });
    expect(daysSinceSignificantRain([0, 0, 0], wet)).toMatchObject({ value: null, at_least: 3 });
    expect(compareEvidence(daysSinceSignificantRain([0, 0, null], wet), '>=', 2)).toBe('yes');
    expect(compareEvidence(daysSinceSignificantRain([0, null], wet), '>=', 2)).toBe('unknown');
  });

  it('past rain is looked up by date; an absent date is unknown, never dry', () => {
    const cal = localCalendar(TZ, NOW);
    const past = [
      { date_local: dateAt(-1), rain_in: 0 },
      { date_local: dateAt(-3), rain_in: 0.4 },
    ];
    expect(pastRainNewestFirst(past, cal, TODAY, 3)).toEqual([0, null, 0.4]);
  });
});
