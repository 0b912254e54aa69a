import { DateTime } from 'luxon';
import { ManualClock } from '../../server/src/core/clock';
import { zoneFor } from '../../server/src/core/tz/zone';
import { DemoForecastProvider } from '../../server/src/forecast/providers/demo';
import type { DailyEntry } from '../../server/src/forecast/types';
import { isStormDay } from '../../server/src/weather/sources/demo/demo-replay';

/**
 * The demo's forecast is a realistic one (issue 25 rule 8): against the demo
 * replay's truth (storms on days 0, 3 and 6 of a 16-day cycle) it sometimes
 * misses a storm and sometimes promises rain that never falls, the same way
 * at every refresh of a day, and its past days are the truth.
 */

const TZ = 'America/New_York';
const REQUEST = { lat: 28.5, lon: -81.4, elevationM: 30, timezone: TZ, pastDays: 7, forecastDays: 7 };
const FIRST = '2026-03-01';

function at(date: string, hour: number): number {
  return DateTime.fromISO(date, { zone: zoneFor(TZ) })
    .set({ hour })
    .toSeconds();
}

function dayNumber(date: string): number {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return Math.floor(Date.UTC(y, m - 1, d) / 86_400_000);
}

function plusDays(date: string, days: number): string {
  return DateTime.fromISO(date, { zone: 'UTC' }).plus({ days }).toISODate() as string;
}

async function issuedOn(date: string, hour = 6): Promise<Map<string, DailyEntry>> {
  const provider = new DemoForecastProvider('demo', new ManualClock(at(date, hour) * 1000));
  const forecast = await provider.fetch(REQUEST);
  return new Map(forecast.daily.map((d) => [d.date_local, d]));
}

describe('the demo forecast', () => {
  it('misses some storms and promises some rain that never falls, firming up as the day comes near', async () => {
    const tally = { storms: [0, 0], missed: [0, 0], dry: [0, 0], promised: [0, 0] };
    for (let i = 0; i < 64; i++) {
      const issue = plusDays(FIRST, i);
      const daily = await issuedOn(issue);
      [1, 5].forEach((lead, k) => {
        const target = plusDays(issue, lead);
        const day = daily.get(target)!;
        const rain = day.precip_sum_in as number;
        if (isStormDay(dayNumber(target))) {
          tally.storms[k]! += 1;
          if (rain === 0) tally.missed[k]! += 1;
          else expect(day.precip_probability_max).toBeGreaterThanOrEqual(40);
        } else {
          tally.dry[k]! += 1;
          if (rain > 0) {
            tally.promised[k]! += 1;
            expect(day.precip_probability_max).toBeGreaterThanOrEqual(25);
          }
        }
      });
    }
    const rate = (n: number[], of: number[], k: number) => n[k]! / of[k]!;
    // A day ahead: most storms are called, some are missed; most dry days are called dry, some are not.
    expect(rate(tally.missed, tally.storms, 0)).toBeGreaterThan(0.05);
    expect(rate(tally.missed, tally.storms, 0)).toBeLessThan(0.4);
    expect(rate(tally.promised, tally.dry, 0)).toBeGreaterThan(0.05);
    expect(rate(tally.promised, tally.dry, 0)).toBeLessThan(0.35);
    // Five days ahead it is wrong more often.
    expect(rate(tally.missed, tally.storms, 1)).toBeGreaterThan(rate(tally.missed, tally.storms, 0));
    expect(rate(tally.promised, tally.dry, 1)).toBeGreaterThan(rate(tally.promised, tally.dry, 0));
  });

  it('says the same at every refresh of a day, and may change its mind the next day', async () => {
    const morning = await issuedOn('2026-03-10', 1);
    const evening = await issuedOn('2026-03-10', 22);
    const rain = (m: Map<string, DailyEntry>) =>
      [...m.values()].map((d) => [d.date_local, d.precip_sum_in, d.precip_probability_max]);
    expect(rain(evening)).toEqual(rain(morning));
    let changed = 0;
    for (let i = 0; i < 16; i++) {
      const issue = plusDays(FIRST, i);
      const [today, tomorrow] = [await issuedOn(issue), await issuedOn(plusDays(issue, 1))];
      for (let lead = 2; lead <= 6; lead++) {
        const target = plusDays(issue, lead);
        if (today.get(target)?.precip_sum_in !== tomorrow.get(target)?.precip_sum_in) changed += 1;
      }
    }
    expect(changed).toBeGreaterThan(0);
  });

  it('reports the past days as they fell: the replay truth', async () => {
    const issue = '2026-03-20';
    const daily = await issuedOn(issue);
    for (let back = 1; back <= 6; back++) {
      const date = plusDays(issue, -back);
      const rain = daily.get(date)?.precip_sum_in as number;
      if (isStormDay(dayNumber(date))) expect(rain).toBeCloseTo(0.57, 1);
      else expect(rain).toBe(0);
    }
  });
});
