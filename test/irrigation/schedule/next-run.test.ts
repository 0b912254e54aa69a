import { DateTime } from 'luxon';
import { zoneFor } from '../../../server/src/core/tz/zone';
import { nextRun, type NextRunInput } from '../../../server/src/irrigation/schedule/next-run';
import { runWindow } from '../../../server/src/irrigation/schedule/run-window';
import { nextRunStateSchema, todayWindowSchema } from '../../../server/src/irrigation/snapshot-schema';

const TZ = 'America/New_York';
const NYC = { lat: 40.7128, lon: -74.006 };
const HOUR = 3600;
const EMPTY = { start: 0, finish: 0, kind: 'pre_dawn', min_temp_f: null };

/** Epoch of a New York wall-clock time. */
function at(iso: string, timezone = TZ): number {
  return DateTime.fromISO(iso, { zone: zoneFor(timezone) }).toSeconds();
}

function local(epoch: number, timezone = TZ): string {
  return DateTime.fromSeconds(epoch, { zone: zoneFor(timezone) }).toFormat('yyyy-MM-dd HH:mm ZZ');
}

/** Monday 2026-06-15, 00:30 EDT: before the night's window. */
const MONDAY_EARLY = at('2026-06-15T00:30');
/** Monday 2026-06-15, noon: today's window has passed. */
const MONDAY_NOON = at('2026-06-15T12:00');

function input(overrides: Partial<NextRunInput>): NextRunInput {
  return {
    now: MONDAY_EARLY,
    timezone: TZ,
    location: NYC,
    plannedSecondsByDay: [HOUR, 0, 0, 0, 0, 0, 0],
    allowedWeekdays: [],
    minTempThresholdF: 38,
    ...overrides,
  };
}

function windowStart(dateLocal: string, seconds: number, minTempF: number | null = null): number {
  const result = runWindow({
    ...NYC,
    timezone: TZ,
    dateLocal,
    totalRunSeconds: seconds,
    minTempF,
    minTempThresholdF: 38,
  });
  if (result.state !== 'ok') throw new Error('no window');
  return result.window.start;
}

describe('nextRun: at', () => {
  it('answers tonight when today has planned water and its window is ahead', () => {
    const result = nextRun(input({}));
    expect(result).toEqual({
      next_run_epoch: windowStart('2026-06-15', HOUR),
      next_run_state: 'at',
      next_run_day_offset: 0,
      next_run_total_minutes: 60,
      today_window: {
        start: windowStart('2026-06-15', HOUR),
        finish: windowStart('2026-06-15', HOUR) + HOUR,
        kind: 'pre_dawn',
        min_temp_f: null,
      },
    });
    expect(local(result.next_run_epoch)).toMatch(/^2026-06-15 04:2\d -04:00$/);
  });

  it('moves to the next planned day once today has passed', () => {
    const result = nextRun(input({ now: MONDAY_NOON, plannedSecondsByDay: [HOUR, 0, 1800, 0, 0, 0, 0] }));
    expect(result.next_run_state).toBe('at');
    expect(result.next_run_day_offset).toBe(2);
    expect(result.next_run_epoch).toBe(windowStart('2026-06-17', 1800));
    expect(result.next_run_total_minutes).toBe(30);
    // today_window still describes today's (passed) window.
    expect(result.today_window.start).toBe(windowStart('2026-06-15', HOUR));
  });

  it('counts today as passed from the window start on', () => {
    const start = windowStart('2026-06-15', HOUR);
    const planned = [HOUR, HOUR, 0, 0, 0, 0, 0];
    expect(nextRun(input({ now: start - 1, plannedSecondsByDay: planned })).next_run_day_offset).toBe(0);
    expect(nextRun(input({ now: start, plannedSecondsByDay: planned })).next_run_day_offset).toBe(1);
  });

  it('passes over tomorrow when its long run already started this evening', () => {
    // A 10 h run ending at Tuesday's ~05:25 sunrise starts Monday ~19:25.
    const planned = [0, 10 * HOUR, 10 * HOUR, 0, 0, 0, 0];
    const evening = at('2026-06-15T21:00');
    expect(windowStart('2026-06-16', 10 * HOUR)).toBeLessThan(evening);
    const result = nextRun(input({ now: evening, plannedSecondsByDay: planned }));
    expect(result.next_run_day_offset).toBe(2);
  });

  it('rounds planned seconds up to whole minutes', () => {
    expect(nextRun(input({ plannedSecondsByDay: [61] })).next_run_total_minutes).toBe(2);
    expect(nextRun(input({ plannedSecondsByDay: [1] })).next_run_total_minutes).toBe(1);
    expect(nextRun(input({ plannedSecondsByDay: [120] })).next_run_total_minutes).toBe(2);
  });

  it("uses each day's forecast minimum for that day's window kind", () => {
    const result = nextRun(
      input({ now: MONDAY_NOON, plannedSecondsByDay: [0, HOUR], minTempFByDay: [50, 33] }),
    );
    expect(result.next_run_day_offset).toBe(1);
    expect(result.next_run_epoch).toBe(windowStart('2026-06-16', HOUR, 33));
    expect(local(result.next_run_epoch)).toMatch(/^2026-06-16 06:2\d -04:00$/);
    expect(result.today_window.kind).toBe('pre_dawn');
    expect(result.today_window.min_temp_f).toBe(50);
  });

  it('lands on the right local time across spring forward', () => {
    const saturdayNoon = at('2026-03-07T12:00');
    const result = nextRun(input({ now: saturdayNoon, plannedSecondsByDay: [0, 2 * HOUR] }));
    expect(result.next_run_day_offset).toBe(1);
    expect(local(result.next_run_epoch)).toBe('2026-03-08 05:18 -04:00');
    expect(local(result.today_window.finish)).toBe('2026-03-07 06:20 -05:00');
  });

  it('lands on the right local time across fall back', () => {
    const saturdayNoon = at('2026-10-31T12:00');
    const result = nextRun(input({ now: saturdayNoon, plannedSecondsByDay: [0, 0, HOUR] }));
    expect(result.next_run_day_offset).toBe(2);
    expect(local(result.next_run_epoch)).toBe('2026-11-02 05:27 -05:00');
  });

  it('ignores entries past the seventh day', () => {
    const result = nextRun(input({ now: MONDAY_NOON, plannedSecondsByDay: [0, 0, 0, 0, 0, 0, 0, HOUR] }));
    expect(result.next_run_state).toBe('no_water_planned');
  });
});

describe('nextRun: weekday restrictions', () => {
  const everyDay = [HOUR, HOUR, HOUR, HOUR, HOUR, HOUR, HOUR];

  it('takes the first planned day on an allowed weekday', () => {
    // Monday 06-15; Wednesday (3) is offset 2, Saturday (6) offset 5.
    expect(
      nextRun(input({ plannedSecondsByDay: everyDay, allowedWeekdays: [3, 6] })).next_run_day_offset,
    ).toBe(2);
    expect(nextRun(input({ plannedSecondsByDay: everyDay, allowedWeekdays: [6] })).next_run_day_offset).toBe(
      5,
    );
    expect(nextRun(input({ plannedSecondsByDay: everyDay, allowedWeekdays: [1] })).next_run_day_offset).toBe(
      0,
    );
  });

  it('reaches Sunday (0) as offset 6 from a Monday', () => {
    const result = nextRun(input({ plannedSecondsByDay: everyDay, allowedWeekdays: [0] }));
    expect(result.next_run_day_offset).toBe(6);
    expect(local(result.next_run_epoch)).toMatch(/^2026-06-21 /);
  });

  it('allows every day for an empty list', () => {
    expect(nextRun(input({ now: MONDAY_NOON, plannedSecondsByDay: everyDay })).next_run_day_offset).toBe(1);
  });

  it('skips a planned day on a disallowed weekday for a later allowed one', () => {
    const planned = [0, HOUR, 0, HOUR, 0, 0, 0]; // Tuesday and Thursday
    const result = nextRun(input({ plannedSecondsByDay: planned, allowedWeekdays: [4] }));
    expect(result.next_run_day_offset).toBe(3);
  });
});

describe('nextRun: states other than at', () => {
  const notAt = { next_run_epoch: 0, next_run_day_offset: 0, next_run_total_minutes: 0 };

  it('no_water_planned: nothing planned in 7 days', () => {
    const result = nextRun(input({ plannedSecondsByDay: [0, 0, 0, 0, 0, 0, 0] }));
    expect(result).toMatchObject({ ...notAt, next_run_state: 'no_water_planned' });
    // A zero-length window at sunrise: today still has a window to show.
    expect(result.today_window.start).toBe(result.today_window.finish);
  });

  it('no_water_planned: an empty plan', () => {
    expect(nextRun(input({ plannedSecondsByDay: [] })).next_run_state).toBe('no_water_planned');
  });

  it("no_water_planned: only today's water was planned and its window has passed", () => {
    const result = nextRun(input({ now: MONDAY_NOON, plannedSecondsByDay: [HOUR] }));
    expect(result).toMatchObject({ ...notAt, next_run_state: 'no_water_planned' });
  });

  it('no_legal_day: water planned only on disallowed weekdays', () => {
    const planned = [HOUR, HOUR, 0, 0, 0, 0, 0]; // Monday, Tuesday
    const result = nextRun(input({ plannedSecondsByDay: planned, allowedWeekdays: [3, 5] }));
    expect(result).toMatchObject({ ...notAt, next_run_state: 'no_legal_day' });
    expect(result.today_window.finish).toBeGreaterThan(0);
  });

  it('no_legal_day: an allowed list with no real weekday', () => {
    const result = nextRun(input({ plannedSecondsByDay: [HOUR, HOUR], allowedWeekdays: [7, -1] }));
    expect(result.next_run_state).toBe('no_legal_day');
  });

  it('no_sunrise: polar day at 78N in June', () => {
    const tz = 'Arctic/Longyearbyen';
    const result = nextRun(
      input({
        now: at('2026-06-15T12:00', tz),
        timezone: tz,
        location: { lat: 78.22, lon: 15.65 },
        plannedSecondsByDay: [HOUR, HOUR, HOUR, HOUR, HOUR, HOUR, HOUR],
      }),
    );
    expect(result).toEqual({ ...notAt, next_run_state: 'no_sunrise', today_window: EMPTY });
  });

  it('no_sunrise: polar night at 78N in December', () => {
    const tz = 'Arctic/Longyearbyen';
    const result = nextRun(
      input({
        now: at('2026-12-15T12:00', tz),
        timezone: tz,
        location: { lat: 78.22, lon: 15.65 },
        plannedSecondsByDay: [HOUR, 0, 0, HOUR],
      }),
    );
    expect(result.next_run_state).toBe('no_sunrise');
  });

  it('at: the first sunrise after polar night is the next run, the dark days before it are passed over', () => {
    const tz = 'Arctic/Longyearbyen';
    // The sun first rises at 78.22N on 2026-02-15.
    const result = nextRun(
      input({
        now: at('2026-02-13T12:00', tz),
        timezone: tz,
        location: { lat: 78.22, lon: 15.65 },
        plannedSecondsByDay: [HOUR, HOUR, HOUR, HOUR, HOUR, HOUR, HOUR],
      }),
    );
    expect(result.next_run_state).toBe('at');
    expect(result.next_run_day_offset).toBe(2);
    expect(local(result.next_run_epoch, tz)).toMatch(/^2026-02-15 \d\d:\d\d \+01:00$/);
    expect(result.today_window).toEqual(EMPTY);
  });

  it('no_sunrise is not reached when the planned days are not legal', () => {
    const tz = 'Arctic/Longyearbyen';
    const result = nextRun(
      input({
        now: at('2026-06-15T12:00', tz),
        timezone: tz,
        location: { lat: 78.22, lon: 15.65 },
        plannedSecondsByDay: [HOUR],
        allowedWeekdays: [3],
      }),
    );
    expect(result.next_run_state).toBe('no_legal_day');
  });

  it.each([[null], [undefined], [{ lat: null, lon: -74 }], [{ lat: 40.7, lon: undefined }]])(
    'no_location: location %p',
    (location) => {
      const result = nextRun(input({ location }));
      expect(result).toEqual({ ...notAt, next_run_state: 'no_location', today_window: EMPTY });
    },
  );

  it('no_location wins over an empty plan', () => {
    expect(nextRun(input({ location: null, plannedSecondsByDay: [] })).next_run_state).toBe('no_location');
  });
});

describe('nextRun: snapshot shape', () => {
  it.each([
    ['at', input({})],
    ['no_water_planned', input({ plannedSecondsByDay: [] })],
    ['no_legal_day', input({ allowedWeekdays: [3] })],
    [
      'no_sunrise',
      input({ timezone: 'Arctic/Longyearbyen', location: { lat: 78.22, lon: 15.65 }, minTempFByDay: [41.5] }),
    ],
    ['no_location', input({ location: null, minTempFByDay: [41.5] })],
  ])('%s fits the snapshot schema (today_window always an object)', (state, args) => {
    const result = nextRun(args);
    expect(result.next_run_state).toBe(state);
    expect(nextRunStateSchema.safeParse(result.next_run_state).success).toBe(true);
    expect(todayWindowSchema.safeParse(result.today_window).success).toBe(true);
    for (const key of ['next_run_epoch', 'next_run_day_offset', 'next_run_total_minutes'] as const) {
      expect(Number.isSafeInteger(result[key])).toBe(true);
    }
  });

  it('carries the forecast minimum in the empty window', () => {
    expect(nextRun(input({ location: null, minTempFByDay: [41.5] })).today_window.min_temp_f).toBe(41.5);
  });
});

describe('nextRun: input checks', () => {
  it('refuses negative or non-finite planned seconds', () => {
    expect(() => nextRun(input({ plannedSecondsByDay: [HOUR, -5] }))).toThrow(RangeError);
    expect(() => nextRun(input({ plannedSecondsByDay: [Number.NaN] }))).toThrow(RangeError);
  });
});
