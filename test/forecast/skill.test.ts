import { DateTime } from 'luxon';
import { archiveSkill } from '../../server/src/forecast/skill';
import type { ArchiveRow } from '../../server/src/store/forecast-archive';

/**
 * The forecast's rain skill by lead time for a month, from archive rows
 * (forecast/skill.ts): per lead band, informative promises kept against the
 * gauge (else the model's lead-0 analysis), the amount bias, and whether the
 * band is trained. Synthetic archive: hourly rows in UTC, each day's rain over
 * its 24 hours.
 */

const TZ = 'UTC';
const dayStart = (date: string) => DateTime.fromISO(date, { zone: TZ }).toSeconds();

/** One day's 24 hourly rows at `lead` hours, `mmPerDay` spread evenly, at `pop` %. */
function dayRows(date: string, lead: number, mmPerDay: number, pop: number | null = 80): ArchiveRow[] {
  return Array.from({ length: 24 }, (_, h) => ({
    track: 'merged',
    provider: 'open_meteo',
    model: null,
    target_epoch: dayStart(date) + h * 3600,
    lead_h: lead,
    pop_pct: pop,
    precip_in: mmPerDay / 25.4 / 24,
    fetched_at: dayStart(date) + h * 3600 - lead * 3600,
  }));
}

const dates = Array.from({ length: 12 }, (_, i) => `2025-06-${String(i + 1).padStart(2, '0')}`);

describe('archiveSkill', () => {
  it('judges each lead band against the gauge: hit rate (kept + 1) / (promised + 1) and the amount bias', () => {
    // Day ahead: 10 mm promised every day; it rained 8 mm on the first 9 days (gauge), 0 on the last 3.
    const rows = dates.flatMap((d) => dayRows(d, 20, 10));
    const gauge = new Map(dates.map((d, i) => [d, (i < 9 ? 8 : 0) / 25.4]));
    const skill = archiveSkill({ month: 6, timezone: TZ, rows, gaugeDaily: gauge });
    const dayAhead = skill.by_lead.find((b) => b.lead_days === 1);
    expect(dayAhead).toMatchObject({ promised_days: 12, kept_days: 9, trained: true });
    expect(dayAhead?.hit_rate).toBeCloseTo(10 / 13, 3);
    expect(dayAhead?.amount_bias).toBeCloseTo(72 / 120, 3);
    // No rows at the other leads: nothing judged, not trained, neutral figures.
    expect(skill.by_lead.find((b) => b.lead_days === 2)).toMatchObject({
      promised_days: 0,
      trained: false,
      amount_bias: 1,
    });
  });

  it('reads the model analysis (lead 0) where the gauge has no day, and leaves a day with neither out', () => {
    const rows = [
      ...dates.flatMap((d) => dayRows(d, 40, 6, 100)),
      // The analysis says 5 mm fell on the first 8 days; nothing on the rest (no rows).
      ...dates.slice(0, 8).flatMap((d) => dayRows(d, 0, 5, null)),
    ];
    const skill = archiveSkill({ month: 6, timezone: TZ, rows, gaugeDaily: new Map() });
    const two = skill.by_lead.find((b) => b.lead_days === 2);
    expect(two).toMatchObject({ promised_days: 8, kept_days: 8, trained: true });
  });

  it('a day with missing hours proves nothing, and a promise below 2 mm (probability-weighted) is not informative', () => {
    const partial = dayRows(dates[0] as string, 20, 10).slice(0, 20);
    const weak = dayRows(dates[1] as string, 20, 3, 50);
    const gauge = new Map([
      [dates[0] as string, 0],
      [dates[1] as string, 0],
    ]);
    const skill = archiveSkill({ month: 6, timezone: TZ, rows: [...partial, ...weak], gaugeDaily: gauge });
    expect(skill.by_lead.find((b) => b.lead_days === 1)?.promised_days).toBe(0);
  });
});
