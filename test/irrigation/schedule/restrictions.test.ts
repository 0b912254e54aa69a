import { nextRun } from '../../../server/src/irrigation/schedule/next-run';
import {
  ALL_WEEKDAYS,
  isWeekdayAllowed,
  restrictionAllowedDays,
  restrictionRulesSchema,
} from '../../../server/src/irrigation/schedule/restrictions';

const parity = { odd_weekdays: [3, 6], even_weekdays: [4, 0] };

describe('restrictionAllowedDays', () => {
  it('allows every day without rules, explicitly', () => {
    expect(restrictionAllowedDays(undefined)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(restrictionAllowedDays(null)).toEqual(ALL_WEEKDAYS);
    expect(restrictionAllowedDays({})).toEqual(ALL_WEEKDAYS);
    expect(restrictionAllowedDays({ allowed_weekdays: null, address_parity: null })).toEqual(ALL_WEEKDAYS);
    expect(restrictionAllowedDays({ allowed_weekdays: [] })).toEqual(ALL_WEEKDAYS);
  });

  it('sorts and deduplicates a weekday list', () => {
    expect(restrictionAllowedDays({ allowed_weekdays: [5, 1, 3, 1] })).toEqual([1, 3, 5]);
  });

  it('picks the odd or even list by house number', () => {
    expect(restrictionAllowedDays({ address_parity: { house_number: 1233, ...parity } })).toEqual([3, 6]);
    expect(restrictionAllowedDays({ address_parity: { house_number: 1234, ...parity } })).toEqual([0, 4]);
    expect(restrictionAllowedDays({ address_parity: { house_number: 0, ...parity } })).toEqual([0, 4]);
  });

  it('applies a weekday list and the parity rule together', () => {
    const rules = { allowed_weekdays: [0, 1, 2, 3], address_parity: { house_number: 7, ...parity } };
    expect(restrictionAllowedDays(rules)).toEqual([3]);
  });

  it('answers [] only for contradicting rules, which the schema refuses', () => {
    const rules = { allowed_weekdays: [1], address_parity: { house_number: 7, ...parity } };
    expect(restrictionAllowedDays(rules)).toEqual([]);
    const parsed = restrictionRulesSchema.safeParse(rules);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toMatch(/allow no weekday/);
  });

  it('validates the config shape', () => {
    expect(restrictionRulesSchema.safeParse({ allowed_weekdays: [1, 3] }).success).toBe(true);
    expect(restrictionRulesSchema.safeParse({}).success).toBe(true);
    expect(restrictionRulesSchema.safeParse({ allowed_weekdays: [7] }).success).toBe(false);
    expect(restrictionRulesSchema.safeParse({ allowed_weekdays: [1.5] }).success).toBe(false);
    expect(restrictionRulesSchema.safeParse({ weekdays: [1] }).success).toBe(false);
    expect(
      restrictionRulesSchema.safeParse({ address_parity: { house_number: -1, ...parity } }).success,
    ).toBe(false);
    expect(
      restrictionRulesSchema.safeParse({
        address_parity: { house_number: 3, odd_weekdays: [], even_weekdays: [1] },
      }).success,
    ).toBe(false);
  });
});

describe('isWeekdayAllowed', () => {
  it('reads [] as every day, like nextRun', () => {
    expect(isWeekdayAllowed([], 2)).toBe(true);
    expect(isWeekdayAllowed([1, 3], 3)).toBe(true);
    expect(isWeekdayAllowed([1, 3], 2)).toBe(false);
  });
});

describe('restrictions feeding nextRun', () => {
  it('moves the next run to the parity day', () => {
    // Monday 2026-06-15 00:30 EDT; an odd address waters Wednesday (offset 2) and Saturday.
    const allowed = restrictionAllowedDays({ address_parity: { house_number: 41, ...parity } });
    const result = nextRun({
      now: 1_781_497_800,
      timezone: 'America/New_York',
      location: { lat: 40.7128, lon: -74.006 },
      plannedSecondsByDay: [600, 600, 600, 600, 600, 600, 600],
      allowedWeekdays: allowed,
      minTempThresholdF: 38,
    });
    expect(result.next_run_state).toBe('at');
    expect(result.next_run_day_offset).toBe(2);
  });
});
