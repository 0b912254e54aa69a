import { DateTime } from 'luxon';
import { sevenDays } from '../../web/app/pages/dashboard/verdict';
import { ownWindowsOf, ownWindowsToday, windowSpan } from '../../web/app/pages/dashboard/own-windows';
import type {
  IrrigationSnapshot,
  WaterPlanDay,
  WaterPlanZone,
} from '../../web/app/pages/zones/irrigation-types';

/**
 * The plan's per-zone run window (`water_plan[].zones[].run_window`) in the
 * dashboard's words: today's own windows under the run window, and each
 * water day's zones with their own window in the seven-day strip. Times are
 * the yard's clock, across the spring-forward change.
 */

const NY = 'America/New_York';
const at = (iso: string) => DateTime.fromISO(iso, { zone: NY }).toSeconds();

function zone(over: Partial<WaterPlanZone> & Pick<WaterPlanZone, 'zone' | 'name'>): WaterPlanZone {
  return {
    reason: 'due',
    reason_code: 'due',
    water_need: 'due',
    planned_seconds: 1500,
    depletion_mm: null,
    trigger_mm: null,
    capacity_mm: null,
    ...over,
  };
}

function day(date: string, offset: number, zones: WaterPlanZone[]): WaterPlanDay {
  return {
    date_local: date,
    day_offset: offset,
    time_epoch: at(date),
    start_epoch: null,
    finish_epoch: null,
    forecast_rain_mm: 0,
    expected_rain_mm: 0,
    rain_probability_pct: 0,
    evidence_complete: true,
    zones,
  };
}

// 2026-03-08 is spring-forward day in New York: 21:00 there is EDT (UTC-4), not EST.
const evening = {
  start_epoch: at('2026-03-08T21:00'),
  finish_epoch: at('2026-03-08T21:25'),
  kind: 'post_sunrise',
};
const snapshot: IrrigationSnapshot = {
  last_refresh_epoch: 1,
  timezone: NY,
  zones: [],
  water_plan: [
    day('2026-03-08', 0, [
      zone({ zone: 'beds', name: 'Beds', run_window: { ...evening, closed: false } }),
      zone({ zone: 'lawn', name: 'Lawn', planned_seconds: 600 }),
      zone({
        zone: 'herbs',
        name: 'Herbs',
        run_window: {
          start_epoch: at('2026-03-08T05:00'),
          finish_epoch: at('2026-03-08T05:10'),
          kind: 'pre_dawn',
          closed: true,
        },
      }),
      zone({ zone: 'dry', name: 'Dry', planned_seconds: 0, run_window: { ...evening, closed: false } }),
    ]),
    day('2026-03-09', 1, [
      zone({
        zone: 'beds',
        name: 'Beds',
        run_window: {
          start_epoch: at('2026-03-09T21:00'),
          finish_epoch: at('2026-03-09T21:25'),
          kind: 'post_sunrise',
        },
      }),
    ]),
  ],
};

describe('own run windows on the dashboard', () => {
  it("lists today's zones with water in a window of their own, earliest first, with the closed flag", () => {
    expect(ownWindowsToday(snapshot)).toEqual([
      {
        zone: 'herbs',
        name: 'Herbs',
        start: at('2026-03-08T05:00'),
        finish: at('2026-03-08T05:10'),
        closed: true,
      },
      { zone: 'beds', name: 'Beds', start: evening.start_epoch, finish: evening.finish_epoch, closed: false },
    ]);
    // Later days say nothing about closed; no plan, no windows.
    expect(ownWindowsOf(snapshot.water_plan?.[1])[0]?.closed).toBeNull();
    expect(ownWindowsToday(null)).toEqual([]);
    expect(ownWindowsToday({ last_refresh_epoch: 1, zones: [] })).toEqual([]);
  });

  it("reads the window on the yard's clock after the DST change", () => {
    expect(evening.start_epoch).toBe(Date.UTC(2026, 2, 9, 1, 0) / 1000); // 21:00 EDT = 01:00 UTC
    expect(windowSpan({ start: evening.start_epoch, finish: evening.finish_epoch }, NY)).toMatch(
      /^(09:00 PM|21:00)\b.* – (09:25 PM|21:25)\b/,
    );
  });

  it("names a zone's own window beside its minutes in the seven-day strip", () => {
    const [today, tomorrow] = sevenDays(snapshot, null, 7, { timeZone: NY });
    expect(today?.reason).toMatch(
      /^Beds 25 min \(own window (09:00 PM|21:00).*\), Lawn 10 min, Herbs 25 min \(own window (05:00 AM|05:00)/,
    );
    expect(tomorrow?.reason).toMatch(/^Beds 25 min \(own window (09:00 PM|21:00).* – (09:25 PM|21:25)/);
  });
});
