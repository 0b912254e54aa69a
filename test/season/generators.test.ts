import { DateTime } from 'luxon';
import { leadDays } from '../../server/src/season/forecast-file';
import {
  falseAlarmForecast,
  noisyForecast,
  perfectForecast,
  REALISTIC_SKILL,
  withOutage,
} from '../../server/src/season/generate/forecasts';
import { DEFAULT_GAPS, dryWeather, injectGaps } from '../../server/src/season/generate/weather-gaps';
import { formatWth } from '../../server/src/season/generate/wth-writer';
import { parseWth, type WthDay } from '../../server/src/season/wth';
import { readSeason, SEASONS } from './fixtures';

/**
 * The season generators (server/src/season/generate/): issued forecasts
 * (perfect, the documented noisy skill model, a persistent false alarm,
 * outages) and weather transforms (gap days, a dry year). Deterministic per
 * seed; they only turn values into null, and a null stays null.
 */

const greeley = readSeason('greeley');
const range = { from: SEASONS.greeley.from, to: SEASONS.greeley.to };

describe('issued-forecast generators', () => {
  it('issue dates run from 6 days before the range to its end, with leads 0..6', () => {
    const lines = perfectForecast(greeley.days, range);
    const issued = [...new Set(lines.map((l) => l.issued))];
    expect(issued[0]).toBe('2022-05-09');
    expect(issued.at(-1)).toBe(range.to);
    expect(new Set(lines.map((l) => leadDays(l.issued, l.target)))).toEqual(new Set([0, 1, 2, 3, 4, 5, 6]));
    expect(lines.filter((l) => l.issued === '2022-06-01')).toHaveLength(7);
  });

  it('perfect: the measured rain, certain when it fell', () => {
    const day = greeley.days.find((d) => d.date >= range.from && (d.rain_mm ?? 0) > 5) as WthDay;
    const lines = perfectForecast(greeley.days, range).filter((l) => l.target === day.date);
    expect(lines).toHaveLength(7);
    for (const l of lines) expect(l).toMatchObject({ precip_mm: day.rain_mm, precip_probability: 100 });
  });

  it('noisy: the same seed gives the same forecast, another seed another one', () => {
    const a = noisyForecast(greeley.days, range, 1);
    expect(noisyForecast(greeley.days, range, 1)).toEqual(a);
    const b = noisyForecast(greeley.days, range, 2);
    expect(b).not.toEqual(a);
    expect(b.map((l) => [l.issued, l.target])).toEqual(a.map((l) => [l.issued, l.target]));
  });

  it("noisy: widening the range does not change the days it already had (each target's own stream)", () => {
    const narrow = noisyForecast(greeley.days, { from: '2022-07-01', to: '2022-07-20' }, 3);
    const wide = noisyForecast(greeley.days, { from: '2022-06-01', to: '2022-08-20' }, 3);
    const key = (l: { issued: string; target: string }) => `${l.issued}/${l.target}`;
    const byKey = new Map(wide.map((l) => [key(l), l]));
    for (const l of narrow) expect(byKey.get(key(l))).toEqual(l);
  });

  it('noisy: skill falls with lead; false alarms only on dry days; a detected storm stays detected at shorter leads', () => {
    const byDate = new Map(greeley.days.map((d) => [d.date, d]));
    const wet = (t: string) => (byDate.get(t)?.rain_mm ?? 0) >= REALISTIC_SKILL.wet_mm;
    const seeds = [1, 2, 3].map((seed) => noisyForecast(greeley.days, range, seed));
    const rate = (lead: number, onWet: boolean) => {
      const picked = seeds
        .flat()
        .filter((l) => leadDays(l.issued, l.target) === lead && wet(l.target) === onWet);
      return picked.filter((l) => (l.precip_mm ?? 0) > 0).length / picked.length;
    };
    expect(rate(0, true)).toBeGreaterThan(0.7);
    expect(rate(6, true)).toBeLessThan(rate(0, true));
    expect(rate(0, false)).toBeLessThan(0.2);
    expect(rate(6, false)).toBeGreaterThan(rate(0, false));
    for (const lines of seeds) {
      const seen = new Map<string, number>();
      for (const l of lines) {
        if (!wet(l.target)) continue;
        const lead = leadDays(l.issued, l.target);
        if ((l.precip_mm ?? 0) > 0) seen.set(l.target, Math.max(seen.get(l.target) ?? -1, lead));
      }
      for (const l of lines) {
        const farthest = seen.get(l.target);
        if (farthest !== undefined && leadDays(l.issued, l.target) <= farthest)
          expect((l.precip_mm ?? 0) > 0).toBe(true);
      }
    }
    // Hits carry a mean-preserving amount error: over three seeds the forecast total is near the measured one.
    const hits = seeds.flat().filter((l) => wet(l.target) && (l.precip_mm ?? 0) > 0);
    const forecast = hits.reduce((s, l) => s + (l.precip_mm as number), 0);
    const measured = hits.reduce((s, l) => s + (byDate.get(l.target)?.rain_mm as number), 0);
    expect(forecast / measured).toBeGreaterThan(0.8);
    expect(forecast / measured).toBeLessThan(1.25);
  });

  it('false alarm: rain at 80 % promised on every issue for every lead', () => {
    const lines = falseAlarmForecast(greeley.days, range);
    expect(lines.length).toBe(perfectForecast(greeley.days, range).length);
    expect(lines.every((l) => l.precip_mm === 14 && l.precip_probability === 80)).toBe(true);
  });

  it('an outage of N days removes exactly the lines issued on those days', () => {
    const lines = perfectForecast(greeley.days, range);
    const out = withOutage(lines, '2022-07-10', 7);
    const gone = new Set(lines.filter((l) => !out.includes(l)).map((l) => l.issued));
    expect([...gone].sort()).toEqual(
      Array.from({ length: 7 }, (_, i) => DateTime.fromISO('2022-07-10').plus({ days: i }).toISODate()),
    );
    expect(out.length).toBe(lines.length - 7 * 7);
  });
});

describe('weather transforms', () => {
  it('gap injection: the documented days and kinds, deterministic per seed, after the first 14 days', () => {
    const a = injectGaps(greeley.days, range, 1);
    expect(injectGaps(greeley.days, range, 1)).toEqual(a);
    expect(injectGaps(greeley.days, range, 2).gaps).not.toEqual(a.gaps);
    const total = Object.values(DEFAULT_GAPS).reduce((s, n) => s + n, 0);
    expect(new Set(a.gaps.map((g) => g.date)).size).toBe(total);
    for (const kind of ['rain', 'temperature', 'sensors', 'row'] as const)
      expect(a.gaps.filter((g) => g.kind === kind)).toHaveLength(DEFAULT_GAPS[kind]);
    expect(a.gaps.every((g) => g.date >= '2022-05-29' && g.date <= range.to)).toBe(true);
    const byDate = new Map(a.days.map((d) => [d.date, d]));
    for (const g of a.gaps) {
      const d = byDate.get(g.date) as WthDay;
      if (g.kind === 'rain') expect(d.rain_mm).toBeNull();
      if (g.kind === 'temperature') expect([d.tmax_c, d.tmin_c]).toEqual([null, null]);
      if (g.kind === 'sensors')
        expect([d.srad_mj_m2, d.rh_max_pct, d.rh_min_pct, d.wind_2m_ms]).toEqual([null, null, null, null]);
      if (g.kind === 'row')
        expect(Object.entries(d).filter(([k, v]) => k !== 'date' && v !== null)).toEqual([]);
    }
  });

  it('gap injection and the dry year keep null as null and make up no number', () => {
    const holed = greeley.days.map((d) =>
      d.date === '2022-07-01' ? { ...d, rain_mm: null, tmax_c: null } : d,
    );
    for (const days of [injectGaps(holed, range, 5).days, dryWeather(holed)]) {
      expect(days).toHaveLength(holed.length);
      days.forEach((d, i) => {
        const before = holed[i] as WthDay;
        expect(d.date).toBe(before.date);
        for (const [key, value] of Object.entries(before) as [keyof WthDay, unknown][]) {
          if (value === null) expect(d[key]).toBeNull();
          else if (d[key] !== null && key !== 'rain_mm') expect(d[key]).toBe(value);
        }
      });
    }
    const dry = dryWeather(holed);
    expect(dry.find((d) => d.date === '2022-07-01')?.rain_mm).toBeNull();
    expect(dry.filter((d) => d.rain_mm !== null).every((d) => d.rain_mm === 0)).toBe(true);
    const gapped = injectGaps(holed, range, 5);
    for (const d of gapped.days) {
      const before = holed.find((x) => x.date === d.date) as WthDay;
      if (d.rain_mm !== null) expect(d.rain_mm).toBe(before.rain_mm);
    }
  });

  it('a generated year writes back to a .wth file that reads the same days', () => {
    const { days } = injectGaps(greeley.days, range, 1);
    const text = formatWth({ ...greeley, days });
    const read = parseWth(text);
    expect(read.days).toEqual(days);
    expect(read.latitude_deg).toBeCloseTo(greeley.latitude_deg, 6);
    expect(read.elevation_m).toBe(greeley.elevation_m);
  });
});
