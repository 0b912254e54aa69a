import { DateTime } from 'luxon';
import type { JsonObject } from '../../../server/src/config/json-walk';
import { scheduleSchema, type ScheduleConfig } from '../../../server/src/config/schema';
import { validateDocument } from '../../../server/src/config/validate';
import { zoneFor } from '../../../server/src/core/tz/zone';
import { computeIrrigation } from '../../../server/src/irrigation/engine/engine';
import type { EngineOutput } from '../../../server/src/irrigation/engine/types';
import {
  previousRunDay,
  runsOn,
  scheduleSeconds,
  scheduleStartEpoch,
} from '../../../server/src/irrigation/schedule/fixed-schedule-days';
import { sunriseEpoch } from '../../../server/src/irrigation/schedule/run-window';
import { irrigationSnapshotSchema } from '../../../server/src/irrigation/snapshot-schema';
import { useBuiltinKinds, validDoc } from '../../helpers/config-fixtures';
import { demo, input, inputOn, local, NOW, run, TZ } from '../engine/fixtures';
import { stationWeather } from '../skip/fixtures';

useBuiltinKinds();

const NY = 'America/New_York';
const wall = (epoch: number | null, tz = NY) =>
  epoch === null ? null : DateTime.fromSeconds(epoch, { zone: zoneFor(tz) }).toFormat('yyyy-MM-dd HH:mm');
const schedule = (s: Record<string, unknown>): ScheduleConfig =>
  scheduleSchema.parse({ name: 's', zones: ['lawn'], start: '05:00', minutes: 10, mode: 'override', ...s });

describe('a schedule calendar', () => {
  it('weekdays, seasons (wrapping the new year) and the enable switch', () => {
    const s = schedule({ weekdays: [1, 4], season: '11-01..02-28' });
    expect(runsOn(s, '2026-11-02')).toBe(true); // Monday in season
    expect(runsOn(s, '2026-11-03')).toBe(false); // Tuesday
    expect(runsOn(s, '2027-01-04')).toBe(true); // Monday, across the new year
    expect(runsOn(s, '2026-07-13')).toBe(false); // Monday out of season
    expect(runsOn({ ...s, enabled: false }, '2026-11-02')).toBe(false);
  });

  it('interval_days from start_date, in calendar days across DST changes', () => {
    const s = schedule({ interval_days: 3, start_date: '2026-03-06' });
    expect(
      ['2026-03-05', '2026-03-06', '2026-03-07', '2026-03-09', '2026-03-12'].map((d) => runsOn(s, d)),
    ).toEqual([false, true, false, true, true]);
    expect(previousRunDay(s, '2026-03-12')).toBe('2026-03-09');
    expect(previousRunDay(s, '2026-03-06')).toBeNull();
  });

  it('start: a local time on its date (DST-safe), or sunrise / sunset with an offset', () => {
    expect(wall(scheduleStartEpoch(schedule({ start: '05:30' }), '2026-03-08', NY, 40.71, -74.0))).toBe(
      '2026-03-08 05:30',
    );
    expect(wall(scheduleStartEpoch(schedule({ start: '02:30' }), '2026-03-08', NY, 40.71, -74.0))).toBe(
      '2026-03-08 03:30',
    );
    const sunrise = sunriseEpoch('2026-06-15', NY, 40.71, -74.0) as number;
    expect(scheduleStartEpoch(schedule({ start: 'sunrise-30' }), '2026-06-15', NY, 40.71, -74.0)).toBe(
      sunrise - 1800,
    );
    const sunset = scheduleStartEpoch(schedule({ start: 'sunset+15' }), '2026-06-15', NY, 40.71, -74.0);
    expect(wall(sunset)).toMatch(/^2026-06-15 20:4\d$/); // sunset about 20:30 EDT, plus 15
    // Polar night in Tromsø: no sunrise to start from.
    expect(
      scheduleStartEpoch(schedule({ start: 'sunrise' }), '2026-12-21', 'Europe/Oslo', 69.65, 18.96),
    ).toBeNull();
  });

  it('minutes for all zones or one per zone; depth_mm at the zone rate; unknown without one', () => {
    expect(scheduleSeconds(schedule({ zones: ['a', 'b'], minutes: 12.5 }), 'b', null)).toBe(750);
    expect(scheduleSeconds(schedule({ zones: ['a', 'b'], minutes: [5, 20] }), 'b', null)).toBe(1200);
    const depth = schedule({ zones: ['a'], minutes: null, depth_mm: 10 });
    expect(scheduleSeconds(depth, 'a', 20)).toBe(1800);
    expect(scheduleSeconds(depth, 'a', null)).toBeNull();
  });
});

describe('validation of [[schedules]]', () => {
  const errors = (schedules: unknown[]) => {
    const doc = validDoc();
    doc.schedules = schedules as JsonObject[];
    return validateDocument(doc, {}).report.errors.map((e) => [e.code, e.path]);
  };
  const zone = Object.keys(validDoc().zones as object)[0] as string;
  const ok = { name: 'Beds', zones: [zone], weekdays: [1], start: 'sunrise-30', minutes: 10, mode: 'floor' };

  it('accepts a complete schedule', () => {
    expect(errors([ok])).toEqual([]);
  });

  it('names each mistake', () => {
    expect(errors([ok, { ...ok, name: 'beds' }])).toEqual([
      ['schedule_name_duplicate', '$.schedules[1].name'],
    ]);
    expect(errors([{ ...ok, zones: ['nowhere'] }])).toEqual([
      ['schedule_zone_unknown', '$.schedules[0].zones[0]'],
    ]);
    expect(errors([{ ...ok, interval_days: 2, start_date: '2026-01-01' }])).toEqual([
      ['schedule_days', '$.schedules[0]'],
    ]);
    expect(errors([{ ...ok, weekdays: null, interval_days: 2 }])).toEqual([
      ['schedule_days', '$.schedules[0]'],
    ]);
    expect(errors([{ ...ok, depth_mm: 5 }])).toEqual([['schedule_amount', '$.schedules[0]']]);
    expect(errors([{ ...ok, minutes: [5, 6] }])).toEqual([
      ['schedule_minutes_count', '$.schedules[0].minutes'],
    ]);
    expect(errors([{ ...ok, start: 'noon' }]).map(([, path]) => path)).toEqual(['$.schedules[0].start']);
    expect(errors([{ ...ok, mode: 'always' }]).map(([, path]) => path)).toEqual(['$.schedules[0].mode']);
  });
});

// The engine fixtures: Orlando demo yard, now Monday 2025-06-16 10:30 EDT.
function withSchedules(
  schedules: Record<string, unknown>[],
  extra: (raw: Record<string, unknown>) => void = () => {},
) {
  return demo((raw) => {
    raw.schedules = schedules;
    extra(raw);
  });
}
const lawnOverride = {
  name: 'Lawn by hand',
  zones: ['front_lawn'],
  weekdays: [1, 3],
  start: '19:00',
  minutes: 20,
  mode: 'override',
};

function planOf(out: EngineOutput, zone: string, day = 0) {
  return out.snapshot.water_plan[day]?.zones.find((z) => z.zone === zone);
}
function runsOf(out: EngineOutput, day = 0) {
  return out.snapshot.water_plan[day]?.schedule_runs ?? [];
}

describe('override schedules in the engine plan', () => {
  const out = computeIrrigation(input({ config: withSchedules([lawnOverride]) }));

  it('fills smart_suppressed for its zones, null for the rest; the snapshot still validates', () => {
    const parsed = irrigationSnapshotSchema.safeParse(out.snapshot);
    expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
    const zone = (slug: string) => out.snapshot.zones.find((z) => z.slug === slug);
    expect(zone('front_lawn')?.smart_suppressed).toEqual({
      weekdays: [1, 3],
      schedules: ['Lawn by hand'],
      active_today: true,
    });
    expect(zone('back_lawn')?.smart_suppressed).toBeNull();
  });

  it('smart watering stands down on its days; the schedule run is planned as written', () => {
    expect(planOf(out, 'front_lawn')).toMatchObject({ reason_code: 'schedule_override', planned_seconds: 0 });
    expect(planOf(out, 'front_lawn')?.reason).toBe(
      'the override schedule "Lawn by hand" waters this zone on 2025-06-16: smart watering stands down',
    );
    expect(planOf(out, 'front_lawn', 1)?.reason_code).not.toBe('schedule_override'); // Tuesday: smart decides
    const [today] = runsOf(out);
    expect(today).toMatchObject({
      schedule: 'Lawn by hand',
      mode: 'override',
      zone: 'front_lawn',
      planned_seconds: 1200,
      reason_code: 'schedule_run',
      session_id: 'fixed-lawn_by_hand-2025-06-16-front_lawn',
    });
    expect(wall(today?.start_epoch ?? null, TZ)).toBe('2025-06-16 19:00');
    expect(runsOf(out, 2).map((r) => r.date_local)).toEqual(['2025-06-18']); // Wednesday
    expect(runsOf(out, 1)).toEqual([]);
  });

  it("the soil projection counts tonight's schedule water, but not a run whose start has passed", () => {
    const passed = computeIrrigation(input({ config: withSchedules([{ ...lawnOverride, start: '05:00' }]) }));
    const hi = (o: EngineOutput) => {
      const p = planOf(o, 'front_lawn', 1);
      return p?.depletion_mm ?? (p?.depletion_range_mm as [number, number])[1];
    };
    expect(hi(out)).toBeLessThan(hi(passed));
  });

  it("a measured skip rule holds today's run, unless ignore_skip_rules", () => {
    const windy = { weather: stationWeather({ wind_avg_mph: 25 }) };
    const held = computeIrrigation(input({ config: withSchedules([lawnOverride]), ...windy }));
    expect(held.snapshot.skip_check.reason_code).toBe('wind_now');
    expect(runsOf(held)[0]).toMatchObject({ planned_seconds: 0, reason_code: 'wind_now' });
    expect(runsOf(held, 2)[0]).toMatchObject({ planned_seconds: 1200 }); // later days cannot know yet
    const ignoring = computeIrrigation(
      input({ config: withSchedules([{ ...lawnOverride, ignore_skip_rules: true }]), ...windy }),
    );
    expect(runsOf(ignoring)[0]).toMatchObject({ planned_seconds: 1200, reason_code: 'schedule_run' });
  });

  it('the restrictions hold a schedule run on a forbidden date', () => {
    const config = withSchedules([lawnOverride], (raw) => {
      raw.restrictions = [{ name: 'odd days', day_parity: 'odd' }];
    });
    const out2 = computeIrrigation(input({ config }));
    expect(runsOf(out2)[0]).toMatchObject({ planned_seconds: 0, reason_code: 'restricted_day' });
    expect(runsOf(out2)[0]?.reason).toMatch(/restriction "odd days": 2025-06-16 is an even day/);
  });

  it('a disabled schedule suppresses nothing and runs nothing', () => {
    const off = computeIrrigation(input({ config: withSchedules([{ ...lawnOverride, enabled: false }]) }));
    expect(off.snapshot.zones.find((z) => z.slug === 'front_lawn')?.smart_suppressed).toBeNull();
    expect(planOf(off, 'front_lawn')?.reason_code).not.toBe('schedule_override');
    expect(runsOf(off)).toEqual([]);
  });
});

describe('floor schedules: top up what smart watering has not delivered since the previous day', () => {
  const floor = {
    name: 'Back floor',
    zones: ['back_lawn'],
    weekdays: [1],
    start: '19:00',
    minutes: 30,
    mode: 'floor',
  };

  it('counts recorded runs since the previous schedule day, its own runs left out', () => {
    const runs = [
      run({ zone: 'back_lawn', start_epoch: local('2025-06-14T05:00:00'), duration_s: 600 }),
      // Before the span (the previous schedule day, Monday 06-09, is not in it).
      run({ zone: 'back_lawn', start_epoch: local('2025-06-09T05:00:00'), duration_s: 900 }),
      // The floor's own last run: never counted as smart water.
      run({
        zone: 'back_lawn',
        start_epoch: local('2025-06-10T19:00:00'),
        duration_s: 1800,
        session_id: 'fixed-back_floor-2025-06-10-back_lawn',
      }),
    ];
    const out = computeIrrigation(input({ config: withSchedules([floor]), runs, nowEpoch: NOW }));
    const [today] = runsOf(out);
    expect(today).toMatchObject({
      mode: 'floor',
      target_seconds: 1800,
      delivered_seconds: 600,
      planned_seconds: 1200,
      reason_code: 'schedule_floor_top_up',
    });
    expect(today?.reason).toBe(
      'schedule "Back floor" (floor): target 1800 s, smart watering gave 600 s since 2025-06-09 (600 s recorded): 1200 s top-up',
    );
    // Floor schedules do not suppress smart watering.
    expect(out.snapshot.zones.find((z) => z.slug === 'back_lawn')?.smart_suppressed).toBeNull();
  });

  it('runs nothing once smart watering gave the target', () => {
    const runs = [run({ zone: 'back_lawn', start_epoch: local('2025-06-16T05:00:00'), duration_s: 2000 })];
    const out = computeIrrigation(input({ config: withSchedules([floor]), runs }));
    expect(runsOf(out)[0]).toMatchObject({
      planned_seconds: 0,
      delivered_seconds: 2000,
      reason_code: 'schedule_floor_met',
    });
  });
});

describe("a schedule is judged on its own start, not the smart run window's", () => {
  const evening = { ...lawnOverride, start: '21:00' };
  // Spring-forward day (02:00 -> 03:00 in New York), 10:30 local.
  const dstDay = '2025-03-09';
  const on = (local: DateTime, from: number, to: number) =>
    local.toISODate() === dstDay && local.hour >= from && local.hour < to;

  it('frost over its own evening hours holds it; the deployment window (sunrise) sees none', () => {
    const out = computeIrrigation(
      inputOn(dstDay, withSchedules([{ ...evening, weekdays: [0] }]), (local) =>
        on(local, 21, 24) ? { temp_f: 30 } : {},
      ),
    );
    expect(out.snapshot.skip_check.window_min_temp_f).toBeGreaterThan(38);
    expect(wall(runsOf(out)[0]?.start_epoch ?? null, TZ)).toBe('2025-03-09 21:00');
    expect(runsOf(out)[0]).toMatchObject({ planned_seconds: 0, reason_code: 'freeze' });
  });

  it("frost in the deployment's pre-dawn window does not hold an evening schedule", () => {
    const out = computeIrrigation(
      inputOn(dstDay, withSchedules([{ ...evening, weekdays: [0] }]), (local) =>
        on(local, 0, 8) ? { temp_f: 30 } : {},
      ),
    );
    expect(out.snapshot.skip_check.reason_code).toBe('freeze');
    expect(runsOf(out)[0]).toMatchObject({ planned_seconds: 1200, reason_code: 'schedule_run' });
  });

  it('window_closed follows its own start: open until an hour after it, whatever the smart window did', () => {
    const at = (start: string) =>
      runsOf(computeIrrigation(input({ config: withSchedules([{ ...lawnOverride, start }]) })))[0];
    expect(at('09:00')).toMatchObject({ window_closed: true, planned_seconds: 1200 });
    expect(at('09:00')?.reason).toMatch(/its start is more than 60 minutes past: today's run is over$/);
    expect(at('09:45')).toMatchObject({ window_closed: false, reason_code: 'schedule_run' });
    expect(at('19:00')?.window_closed).toBe(false);
    // The smart (deployment) window closed at sunrise; later days carry no flag.
    const out = computeIrrigation(input({ config: withSchedules([lawnOverride]) }));
    expect(out.snapshot.water_plan[0]?.window_closed).toBe(true);
    expect(runsOf(out, 2)[0]?.window_closed).toBeUndefined();
  });

  it("a floor counts its zone's smart run in the zone's own window, not the deployment's closed one", () => {
    const config = withSchedules(
      [
        {
          name: 'Back floor',
          zones: ['back_lawn'],
          weekdays: [1],
          start: '23:30',
          minutes: 60,
          mode: 'floor',
        },
      ],
      (raw) => {
        const zones = raw.zones as Record<string, Record<string, unknown>>;
        (zones.back_lawn as Record<string, unknown>).run_window = { start_at: '21:00' };
      },
    );
    const out = computeIrrigation(input({ config }));
    const smart = planOf(out, 'back_lawn') as {
      planned_seconds: number;
      run_window?: { finish_epoch: number };
    };
    expect(out.snapshot.water_plan[0]?.window_closed).toBe(true); // the deployment's, at sunrise
    expect(smart.planned_seconds).toBeGreaterThan(0);
    expect(smart.run_window?.finish_epoch).toBeLessThanOrEqual(local('2025-06-16T23:30:00'));
    expect(runsOf(out)[0]).toMatchObject({
      delivered_seconds: smart.planned_seconds,
      planned_seconds: Math.max(0, 3600 - smart.planned_seconds),
    });
  });
});
