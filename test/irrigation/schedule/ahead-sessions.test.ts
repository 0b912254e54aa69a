import { cycleSoak } from '../../../server/src/agronomy/soil/water-balance';
import { restrictionRuleSchema } from '../../../server/src/config/schema';
import {
  aheadCeilingMinutes,
  splitIntoSessions,
} from '../../../server/src/irrigation/schedule/restriction-plan';
import { anchorOf } from '../../../server/src/irrigation/schedule/window-choice';

/** Watering ahead of a restricted stretch: the day's ceiling and its sessions (restriction-plan.ts). */

const DATES = [
  '2025-06-17',
  '2025-06-18',
  '2025-06-19',
  '2025-06-20',
  '2025-06-21',
  '2025-06-22',
  '2025-06-23',
];

function ctx(allowed: string[], rules: Record<string, unknown>[] = []) {
  return {
    dates: DATES,
    allowed_dates: new Set(allowed),
    run_window: {
      anchor: anchorOf(null),
      rules: rules.map((r) => restrictionRuleSchema.parse({ name: 'r', ...r })),
    },
  };
}

describe('aheadCeilingMinutes', () => {
  it('two sessions of the ceiling only when the next plan day is restricted', () => {
    const c = ctx(['2025-06-17', '2025-06-20']); // Tuesday and Friday
    expect(aheadCeilingMinutes(c, 0, 60)).toBe(120);
    expect(aheadCeilingMinutes(c, 3, 60)).toBe(120);
    expect(aheadCeilingMinutes(ctx(DATES), 0, 60)).toBeNull();
    expect(aheadCeilingMinutes(c, 6, 60)).toBeNull(); // the plan does not know the day after its last
  });

  it("bounded by the date's max_minutes_per_day and by 360 min", () => {
    expect(aheadCeilingMinutes(ctx(['2025-06-17'], [{ max_minutes_per_day: 90 }]), 0, 60)).toBe(90);
    expect(aheadCeilingMinutes(ctx(['2025-06-17'], [{ max_minutes_per_day: 30 }]), 0, 30)).toBe(30);
    expect(aheadCeilingMinutes(ctx(['2025-06-17']), 0, 240)).toBe(360);
  });
});

describe('splitIntoSessions', () => {
  it('splits a cycle longer than a session into near-equal sessions, soaking between', () => {
    const plan = cycleSoak(7201, 10, 20, null, 30); // soaks in: one cycle
    expect(plan.cycles).toEqual([{ run_s: 7201 }]);
    const split = splitIntoSessions(plan, 3600);
    expect(split.cycles).toEqual([{ run_s: 2401 }, { run_s: 2400 }, { run_s: 2400 }]);
    expect(split.cycle_count).toBe(3);
    expect(split.total_elapsed_s).toBe(7201 + 2 * split.soak_s);
    expect(splitIntoSessions(cycleSoak(3600, 10, 20, null, 30), 3600).cycles).toEqual([{ run_s: 3600 }]);
  });
});
