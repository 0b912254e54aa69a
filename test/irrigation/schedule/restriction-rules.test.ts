import { DateTime } from 'luxon';
import type { JsonObject } from '../../../server/src/config/json-walk';
import { migrateDocument } from '../../../server/src/config/migrate';
import { restrictionRuleSchema, type RestrictionRule } from '../../../server/src/config/schema';
import { validateDocument } from '../../../server/src/config/validate';
import { zoneFor } from '../../../server/src/core/tz/zone';
import {
  allowedWeekdaysOf,
  dayCaps,
  dayVerdict,
  restrictionRulesOf,
} from '../../../server/src/irrigation/schedule/restriction-calendar';
import { gateRun, type GateInput } from '../../../server/src/irrigation/schedule/restriction-gate';
import { computeIrrigation } from '../../../server/src/irrigation/engine/engine';
import { useBuiltinKinds, validDoc } from '../../helpers/config-fixtures';
import { demo, input } from '../engine/fixtures';

useBuiltinKinds();

const NY = 'America/New_York';
const at = (iso: string) => DateTime.fromISO(iso, { zone: zoneFor(NY) }).toSeconds();
const rule = (r: Record<string, unknown>): RestrictionRule =>
  restrictionRuleSchema.parse({ name: 'r', ...r });
const gate = (rules: RestrictionRule[], now: number, seconds: number, secondsToday = 0) =>
  gateRun({ rules, timezone: NY, now, seconds, secondsToday } satisfies GateInput);

describe('[[restrictions]] rule schema', () => {
  it('accepts every key in the forms utilities write', () => {
    const parsed = restrictionRuleSchema.safeParse({
      name: 'Denver stage 1',
      weekdays: [1, 4],
      day_parity: 'house_number',
      house_number: 1233,
      season: '11-01..03-31',
      forbidden_hours: ['10:00-18:00', '22:00-06:00', '18:00-24:00'],
      max_minutes_per_day: 30,
      max_minutes_per_session: 15,
      no_watering: ['2026-08-01..2026-08-31', '2026-09-04'],
    });
    expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
  });

  it.each([
    [{ season: '13-01..03-31' }, 'season'],
    [{ season: '02-30..03-31' }, 'season'],
    [{ season: '11-01' }, 'season'],
    [{ forbidden_hours: ['10:00-10:00'] }, 'forbidden_hours'],
    [{ forbidden_hours: ['25:00-06:00'] }, 'forbidden_hours'],
    [{ forbidden_hours: ['10-18'] }, 'forbidden_hours'],
    [{ no_watering: ['2026-09-01..2026-08-01'] }, 'no_watering'],
    [{ no_watering: ['2026-02-30'] }, 'no_watering'],
    [{ day_parity: 'house_number' }, 'house_number'],
    [{ day_parity: 'weekly' }, 'day_parity'],
    [{ weekdays: [] }, 'weekdays'],
    [{ weekdays: [7] }, 'weekdays'],
    [{ max_minutes_per_day: 0 }, 'max_minutes_per_day'],
    [{ zones: ['a'] }, ''],
  ])('refuses %j at %s', (patch, key) => {
    const parsed = restrictionRuleSchema.safeParse({ name: 'x', ...patch });
    expect(parsed.success).toBe(false);
    const paths = parsed.error?.issues.map((i) => String(i.path[0] ?? '')) ?? [];
    if (key) expect(paths).toContain(key);
  });
});

describe('dayVerdict: the date rules', () => {
  it('allowed weekdays name the rule and the day', () => {
    const rules = [rule({ name: 'twice a week', weekdays: [2, 5] })];
    expect(dayVerdict(rules, '2026-07-14').allowed).toBe(true); // Tuesday
    const v = dayVerdict(rules, '2026-07-15'); // Wednesday
    expect(v).toMatchObject({ allowed: false, rule: 'twice a week' });
    expect(v.why).toBe(
      'restriction "twice a week": 2026-07-15 is a Wednesday, not one of its watering days (Tuesday, Friday)',
    );
  });

  it('odd / even days of the month, and the house number picks the parity', () => {
    const odd = [rule({ day_parity: 'odd' })];
    const even = [rule({ day_parity: 'even' })];
    const house = (n: number) => [rule({ day_parity: 'house_number', house_number: n })];
    expect(
      ['2026-07-01', '2026-07-02', '2026-07-31', '2026-08-01'].map((d) => dayVerdict(odd, d).allowed),
    ).toEqual([true, false, true, true]);
    expect(dayVerdict(even, '2026-07-02').allowed).toBe(true);
    expect(dayVerdict(even, '2026-07-31').allowed).toBe(false);
    expect(dayVerdict(house(1233), '2026-07-03').allowed).toBe(true);
    expect(dayVerdict(house(1233), '2026-07-04').why).toMatch(/odd days \(house number 1233\)/);
    expect(dayVerdict(house(1234), '2026-07-04').allowed).toBe(true);
  });

  it('a season that wraps the new year: the rule speaks only inside it', () => {
    const rules = [rule({ name: 'winter', weekdays: [6], season: '11-01..03-31' })];
    expect(dayVerdict(rules, '2026-07-15').allowed).toBe(true); // summer: the rule is silent
    expect(dayVerdict(rules, '2026-10-31').allowed).toBe(true);
    expect(dayVerdict(rules, '2026-11-02').allowed).toBe(false); // Monday in November
    expect(dayVerdict(rules, '2026-11-07').allowed).toBe(true); // Saturday
    expect(dayVerdict(rules, '2027-03-31').allowed).toBe(false); // Wednesday, last day inside
    expect(dayVerdict(rules, '2027-04-01').allowed).toBe(true);
  });

  it('drought bans cover their whole ranges, ends included', () => {
    const rules = [rule({ name: 'stage 3', no_watering: ['2026-08-01..2026-08-10', '2026-09-04'] })];
    expect(dayVerdict(rules, '2026-07-31').allowed).toBe(true);
    expect(dayVerdict(rules, '2026-08-01').why).toBe(
      'restriction "stage 3": no watering from 2026-08-01 to 2026-08-10',
    );
    expect(dayVerdict(rules, '2026-08-10').allowed).toBe(false);
    expect(dayVerdict(rules, '2026-08-11').allowed).toBe(true);
    expect(dayVerdict(rules, '2026-09-04').allowed).toBe(false);
  });

  it('all rules apply together: the first that forbids is named', () => {
    const rules = [
      rule({ name: 'weekdays', weekdays: [1, 3, 5] }),
      rule({ name: 'parity', day_parity: 'even' }),
    ];
    expect(dayVerdict(rules, '2026-07-15')).toMatchObject({ allowed: false, rule: 'parity' }); // Wed 15th
    expect(dayVerdict(rules, '2026-07-20')).toMatchObject({ allowed: true }); // Mon 20th
    expect(dayVerdict(rules, '2026-07-21')).toMatchObject({ allowed: false, rule: 'weekdays' }); // Tue
  });

  it('restriction_allowed_days: the weekdays of the next seven days the date rules allow', () => {
    const week = [
      '2026-07-15',
      '2026-07-16',
      '2026-07-17',
      '2026-07-18',
      '2026-07-19',
      '2026-07-20',
      '2026-07-21',
    ];
    expect(allowedWeekdaysOf([], week)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    // Odd days 15, 17, 19, 21: Wed, Fri, Sun, Tue.
    expect(allowedWeekdaysOf([rule({ day_parity: 'odd' })], week)).toEqual([0, 2, 3, 5]);
    expect(allowedWeekdaysOf([rule({ no_watering: ['2026-07-01..2026-07-31'] })], week)).toEqual([]);
  });

  it('the tightest minute caps of the rules in season', () => {
    const rules = [
      rule({ name: 'a', max_minutes_per_day: 40, max_minutes_per_session: 20 }),
      rule({ name: 'b', max_minutes_per_day: 30, season: '06-01..08-31' }),
    ];
    expect(dayCaps(rules, '2026-07-15')).toEqual({ max_minutes_per_day: 30, max_minutes_per_session: 20 });
    expect(dayCaps(rules, '2026-10-15')).toEqual({ max_minutes_per_day: 40, max_minutes_per_session: 20 });
    expect(dayCaps([], '2026-10-15')).toEqual({ max_minutes_per_day: null, max_minutes_per_session: null });
  });
});

describe('gateRun: every run, at the moment it starts', () => {
  const summer = [rule({ name: 'daytime', forbidden_hours: ['10:00-18:00'] })];

  it('refuses a run on a forbidden date, and inside forbidden hours', () => {
    const v = gate([rule({ name: 'odd', day_parity: 'odd' })], at('2026-07-16T05:00'), 600);
    expect(v).toEqual({
      ok: false,
      code: 'restricted_day',
      message: 'restriction "odd": 2026-07-16 is an even day of the month; watering is on odd days',
    });
    expect(gate(summer, at('2026-07-15T10:00'), 600)).toMatchObject({ ok: false, code: 'restricted_hours' });
    expect(gate(summer, at('2026-07-15T17:59'), 600)).toMatchObject({ ok: false, code: 'restricted_hours' });
    expect(gate(summer, at('2026-07-15T18:00'), 600)).toEqual({ ok: true, seconds: 600, note: null });
  });

  it('cuts a run that would reach forbidden hours at their start', () => {
    const v = gate(summer, at('2026-07-15T09:50'), 1800);
    expect(v).toEqual({
      ok: true,
      seconds: 600,
      note: 'cut from 1800 s to 600 s by restriction "daytime" forbids watering from 10:00',
    });
  });

  it('a range that wraps midnight forbids from its date into the next', () => {
    const night = [rule({ name: 'night', forbidden_hours: ['22:00-06:00'] })];
    expect(gate(night, at('2026-07-15T23:00'), 60)).toMatchObject({ ok: false, code: 'restricted_hours' });
    expect(gate(night, at('2026-07-16T05:59'), 60)).toMatchObject({ ok: false, code: 'restricted_hours' });
    expect(gate(night, at('2026-07-16T06:00'), 60)).toMatchObject({ ok: true, seconds: 60 });
    expect(gate(night, at('2026-07-15T21:30'), 3600)).toMatchObject({ ok: true, seconds: 1800 });
  });

  it('spring forward: forbidden from 03:00 local is 30 real minutes after 01:30 EST', () => {
    const rules = [rule({ name: 'dawn', forbidden_hours: ['03:00-05:00'] })];
    expect(gate(rules, at('2026-03-08T01:30'), 7200)).toMatchObject({ ok: true, seconds: 1800 });
    // 02:30 does not exist that night; 03:30 EDT is inside.
    expect(gate(rules, at('2026-03-08T03:30'), 60)).toMatchObject({ ok: false, code: 'restricted_hours' });
  });

  it('fall back: forbidden from 02:00 local is 90 real minutes after the first 01:30', () => {
    const rules = [rule({ name: 'late', forbidden_hours: ['02:00-04:00'] })];
    const firstOneThirty = Date.parse('2026-11-01T01:30:00-04:00') / 1000; // EDT, the first of the two
    expect(DateTime.fromSeconds(firstOneThirty, { zone: zoneFor(NY) }).offset).toBe(-240);
    expect(gate(rules, firstOneThirty, 7200)).toMatchObject({ ok: true, seconds: 5400 });
  });

  it('per-session and per-day minute caps; a used-up day refuses', () => {
    const rules = [rule({ name: 'caps', max_minutes_per_day: 30, max_minutes_per_session: 20 })];
    const now = at('2026-07-15T05:00');
    expect(gate(rules, now, 3600)).toEqual({
      ok: true,
      seconds: 1200,
      note: 'cut from 3600 s to 1200 s by the 20 min a session the restrictions allow',
    });
    expect(gate(rules, now, 3600, 1200)).toMatchObject({ ok: true, seconds: 600 });
    expect(gate(rules, now, 300, 1200)).toEqual({ ok: true, seconds: 300, note: null });
    expect(gate(rules, now, 60, 1800)).toEqual({
      ok: false,
      code: 'restriction_daily_limit',
      message: "the zone has used today's 30 min allowed by the restrictions",
    });
  });

  it('no rules: every run passes untouched', () => {
    expect(gate([], at('2026-07-15T12:00'), 7200)).toEqual({ ok: true, seconds: 7200, note: null });
  });
});

describe('validation of the whole list', () => {
  const codes = (restrictions: unknown[]) => {
    const doc = validDoc();
    doc.restrictions = restrictions as JsonObject[];
    return validateDocument(doc, {}).report.errors.map((e) => [e.code, e.path]);
  };

  it('accepts a realistic list', () => {
    expect(
      codes([
        { name: 'odd-even', day_parity: 'house_number', house_number: 17 },
        { name: 'daytime', forbidden_hours: ['10:00-18:00'], season: '05-01..09-30' },
      ]),
    ).toEqual([]);
  });

  it('refuses duplicate names and year-round rules that leave no day', () => {
    expect(codes([{ name: 'a' }, { name: 'a' }])).toEqual([
      ['restriction_name_duplicate', '$.restrictions[1].name'],
    ]);
    expect(
      codes([
        { name: 'a', weekdays: [1] },
        { name: 'b', weekdays: [2] },
      ]),
    ).toEqual([['restrictions_no_weekday', '$.restrictions']]);
    expect(
      codes([
        { name: 'a', day_parity: 'odd' },
        { name: 'b', day_parity: 'house_number', house_number: 2 },
      ]),
    ).toEqual([['restrictions_no_day', '$.restrictions']]);
    // A seasonal rule may narrow further: that is the law for a while, not a mistake.
    expect(
      codes([
        { name: 'a', weekdays: [1] },
        { name: 'b', weekdays: [2], season: '11-01..03-31' },
      ]),
    ).toEqual([]);
  });
});

describe('the legacy [engine.restrictions] table', () => {
  const legacy = {
    allowed_weekdays: [3, 6, 0, 4],
    address_parity: { house_number: 1233, odd_weekdays: [3, 6], even_weekdays: [4, 0] },
  };

  it('keeps loading: the engine reads it as rules allowing the same days', () => {
    const rules = restrictionRulesOf({ restrictions: [], engine: { restrictions: legacy } as never });
    const week = [
      '2026-07-15',
      '2026-07-16',
      '2026-07-17',
      '2026-07-18',
      '2026-07-19',
      '2026-07-20',
      '2026-07-21',
    ];
    expect(allowedWeekdaysOf(rules, week)).toEqual([3, 6]);
  });

  it('moves to [[restrictions]] on the next save, with unique names and the same days', () => {
    const doc = validDoc();
    doc.engine = { restrictions: legacy };
    doc.restrictions = [{ name: 'allowed weekdays', forbidden_hours: ['10:00-18:00'] }];
    const { doc: migrated } = migrateDocument(doc);
    expect((migrated.engine as JsonObject).restrictions).toBeUndefined();
    expect(migrated.restrictions).toEqual([
      { name: 'allowed weekdays', forbidden_hours: ['10:00-18:00'] },
      { name: 'allowed weekdays (2)', weekdays: [0, 3, 4, 6] },
      { name: "house number 1233 (odd addresses' weekdays)", weekdays: [3, 6] },
    ]);
    expect(validateDocument(migrated, {}).report.errors).toEqual([]);
    expect((doc.engine as JsonObject).restrictions).toBeDefined(); // the input is not mutated
  });

  it('a table the legacy schema refuses stays for the validator to report', () => {
    const doc = validDoc();
    doc.engine = { restrictions: { allowed_weekdays: [9] } };
    expect(
      ((migrateDocument(doc).doc.engine as JsonObject).restrictions as JsonObject).allowed_weekdays,
    ).toEqual([9]);
  });
});

describe('the engine plan under [[restrictions]]', () => {
  // The engine fixtures' today is Monday 2025-06-16 (Orlando demo yard).
  it('forbidden dates plan no water, say which rule, and restriction_allowed_days follows the dates', () => {
    const config = demo((raw) => {
      raw.restrictions = [{ name: 'even days', day_parity: 'even' }];
    });
    const out = computeIrrigation(input({ config }));
    // 16, 18, 20, 22 are even: Mon, Wed, Fri, Sun.
    expect(out.snapshot.restriction_allowed_days).toEqual([0, 1, 3, 5]);
    const tuesday = out.snapshot.water_plan[1]?.zones ?? [];
    expect(tuesday.length).toBeGreaterThan(0);
    for (const z of tuesday) {
      if (z.reason_code === 'zone_incomplete') continue;
      expect(z.planned_seconds).toBe(0);
    }
    const restricted = tuesday.filter((z) => z.reason_code === 'restricted_day');
    for (const z of restricted) {
      expect(z.reason).toBe(
        'restriction "even days": 2025-06-17 is an odd day of the month; watering is on even days',
      );
    }
  });

  it('a drought ban over the whole week: no allowed day, nothing planned, no next run', () => {
    const config = demo((raw) => {
      raw.restrictions = [{ name: 'stage 3', no_watering: ['2025-06-01..2025-06-30'] }];
    });
    const out = computeIrrigation(input({ config }));
    expect(out.snapshot.restriction_allowed_days).toEqual([]);
    expect(out.snapshot.water_plan.every((d) => d.zones.every((z) => z.planned_seconds === 0))).toBe(true);
    expect(out.snapshot.next_run_epoch).toBe(0);
  });

  it("today's minute cap lowers the run ceiling: no zone plans more than the law allows", () => {
    const free = computeIrrigation(input());
    const longest = Math.max(...(free.snapshot.water_plan[0]?.zones ?? []).map((z) => z.planned_seconds));
    expect(longest).toBeGreaterThan(600);
    const config = demo((raw) => {
      raw.restrictions = [{ name: 'ten minutes', max_minutes_per_session: 10 }];
    });
    const capped = computeIrrigation(input({ config }));
    const today = capped.snapshot.water_plan[0]?.zones ?? [];
    expect(Math.max(...today.map((z) => z.planned_seconds))).toBe(600);
    expect(today.find((z) => z.planned_seconds === 600)?.reason).toMatch(/capped at 10 min/);
  });

  it('a watering day before a restricted stretch waters ahead to field capacity in up to two sessions of the ceiling', () => {
    const config = demo((raw) => {
      raw.restrictions = [{ name: 'twice a week', weekdays: [1, 4] }];
    });
    const out = computeIrrigation(input({ config }));
    const watering = (out.snapshot.water_plan[0]?.zones ?? []).filter((z) => z.planned_seconds > 0);
    expect(watering.length).toBeGreaterThan(0);
    for (const z of watering) {
      expect(z.reason).toContain(
        'the restrictions allow no watering until 2025-06-19: watering ahead to field capacity for the 2 day(s) between, within 2 sessions of the run ceiling',
      );
      expect(z.planned_seconds).toBeLessThanOrEqual(7200);
    }
    // A deep deficit takes the second session; each session the scheduler runs stays within the 60 min ceiling.
    const deep = watering.filter((z) => z.planned_seconds > 3600);
    expect(deep.length).toBeGreaterThan(0);
    expect(watering.find((z) => z.planned_seconds === 7200)?.reason).toMatch(/capped at 120 min/);
    for (const z of deep) {
      const cycles = out.snapshot.zones.find((x) => x.slug === z.zone)?.math.cycles_s as number[];
      expect(cycles.reduce((s, c) => s + c, 0)).toBe(z.planned_seconds);
      expect(Math.max(...cycles)).toBeLessThanOrEqual(3600);
      expect(cycles.length).toBeGreaterThanOrEqual(2);
    }
    // Without the restriction the same zones say nothing of the kind and keep one session.
    const free = computeIrrigation(input());
    for (const z of free.snapshot.water_plan[0]?.zones ?? []) {
      expect(z.reason).not.toContain('watering ahead');
      expect(z.planned_seconds).toBeLessThanOrEqual(3600);
    }
  });

  it("watering ahead never passes the day's max_minutes_per_day", () => {
    const config = demo((raw) => {
      raw.restrictions = [{ name: 'twice a week', weekdays: [1, 4], max_minutes_per_day: 90 }];
    });
    const today = computeIrrigation(input({ config })).snapshot.water_plan[0]?.zones ?? [];
    expect(Math.max(...today.map((z) => z.planned_seconds))).toBe(5400);
    expect(today.find((z) => z.planned_seconds === 5400)?.reason).toMatch(/capped at 90 min/);
  });
});
