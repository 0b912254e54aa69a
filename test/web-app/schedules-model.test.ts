import { describeSchema, type JsonSchema } from '../../web/app/components/schema-form-model';
import {
  scheduleRows,
  scheduleSlug,
  schedulesSpec,
  suppressedToday,
  todayRuns,
} from '../../web/app/pages/schedules/schedules-model';
import type { IrrigationSnapshot } from '../../web/app/pages/zones/irrigation-types';
import { scheduleSlug as serverSlug } from '../../server/src/config/schedule-config';
import { configFormSchema } from '../../server/src/config/form-schema';
import { configSchema } from '../../server/src/config/schema';
import { zod } from '../../server/src/core/zod-lazy';
import { useBuiltinKinds } from '../helpers/config-fixtures';

useBuiltinKinds();

describe('the Schedules page model', () => {
  it('rows say what each schedule does, in words', () => {
    const rows = scheduleRows({
      schedules: [
        {
          name: 'Beds by hand',
          zones: ['beds', 'strip'],
          weekdays: [1, 4],
          start: 'sunrise-30',
          minutes: [10, 6],
          mode: 'override',
        },
        {
          name: 'Winter floor',
          enabled: false,
          zones: ['lawn'],
          interval_days: 3,
          start_date: '2026-11-01',
          start: '05:30',
          depth_mm: 8,
          mode: 'floor',
          season: '11-01..03-31',
        },
      ],
    });
    expect(rows).toEqual([
      {
        index: 0,
        name: 'Beds by hand',
        slug: 'beds_by_hand',
        enabled: true,
        mode: 'Override (replaces smart watering)',
        zones: 'beds, strip',
        days: 'Mon, Thu',
        start: 'sunrise-30',
        amount: '10, 6 min',
        season: null,
      },
      expect.objectContaining({
        slug: 'winter_floor',
        enabled: false,
        mode: 'Floor (tops up smart watering)',
        days: 'every 3 days from 2026-11-01',
        amount: '8 mm each',
        season: '11-01 to 03-31',
      }),
    ]);
    expect(scheduleRows(null)).toEqual([]);
  });

  it('slugs match the server (they key the action and the HA switch)', () => {
    for (const name of ['Beds by hand', '  Front/Back  lawn!', '***', 'Zone 2 — drip']) {
      expect(scheduleSlug(name)).toBe(serverSlug(name));
    }
  });

  it('the form is the served config schema cut down to the schedules list', () => {
    const served = configFormSchema(zod(), configSchema) as JsonSchema;
    const spec = schedulesSpec(describeSchema(served));
    expect(spec?.kind).toBe('object');
    if (spec?.kind !== 'object') return;
    expect(spec.properties.map((p) => p.key)).toEqual(['schedules']);
    expect(spec.properties[0]?.spec.kind).toBe('array');
  });

  it("which zones a schedule suppresses today, and today's runs of one schedule", () => {
    const snapshot = {
      zones: [
        {
          slug: 'lawn',
          name: 'Lawn',
          smart_suppressed: { weekdays: [1], schedules: ['Lawn by hand'], active_today: true },
        },
        {
          slug: 'beds',
          name: 'Beds',
          smart_suppressed: { weekdays: [3], schedules: ['Beds'], active_today: false },
        },
        { slug: 'strip', name: 'Strip', smart_suppressed: null },
      ],
      water_plan: [
        {
          schedule_runs: [
            { schedule: 'Lawn by hand', schedule_slug: 'lawn_by_hand', zone: 'lawn', reason: 'as written' },
            { schedule: 'Other', schedule_slug: 'other', zone: 'beds', reason: 'as written' },
          ],
        },
      ],
    } as unknown as IrrigationSnapshot;
    expect(suppressedToday(snapshot)).toEqual([{ zone: 'lawn', name: 'Lawn', schedules: ['Lawn by hand'] }]);
    expect(todayRuns(snapshot, 'lawn_by_hand').map((r) => r.zone)).toEqual(['lawn']);
    expect(suppressedToday(null)).toEqual([]);
  });
});
