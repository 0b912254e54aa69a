import { DateTime } from 'luxon';
import { restrictionRuleSchema } from '../../../server/src/config/schema';
import { validateDocument } from '../../../server/src/config/validate';
import { zoneFor } from '../../../server/src/core/tz/zone';
import { computeIrrigation } from '../../../server/src/irrigation/engine/engine';
import { nextRun } from '../../../server/src/irrigation/schedule/next-run';
import { runWindow, type RunWindow } from '../../../server/src/irrigation/schedule/run-window';
import { anchorOf, type WindowChoice } from '../../../server/src/irrigation/schedule/window-choice';
import { useBuiltinKinds, validDoc } from '../../helpers/config-fixtures';
import { demo, input } from '../engine/fixtures';

useBuiltinKinds();

const TZ = 'America/New_York';
const NYC = { lat: 40.7128, lon: -74.006 };
const HOUR = 3600;

const at = (iso: string) => DateTime.fromISO(iso, { zone: zoneFor(TZ) }).toSeconds();
const wall = (epoch: number) =>
  DateTime.fromSeconds(epoch, { zone: zoneFor(TZ) }).toFormat('yyyy-MM-dd HH:mm ZZ');

function choice(table: Record<string, string>, rules: Record<string, unknown>[] = []): WindowChoice {
  return {
    anchor: anchorOf(table),
    rules: rules.map((r) => restrictionRuleSchema.parse({ name: 'r', ...r })),
  };
}

function windowOn(
  dateLocal: string,
  seconds: number,
  c?: WindowChoice,
  minTempF: number | null = null,
): RunWindow {
  const result = runWindow({
    ...NYC,
    timezone: TZ,
    dateLocal,
    totalRunSeconds: seconds,
    minTempF,
    minTempThresholdF: 38,
    ...(c ? { choice: c } : {}),
  });
  if (result.state !== 'ok') throw new Error(result.state);
  return result.window;
}

describe('[deployment.run_window]: where the night run sits', () => {
  it('finish_by "sunrise" is the default: same window as no choice at all', () => {
    expect(windowOn('2026-06-15', HOUR, choice({ finish_by: 'sunrise' }))).toEqual(
      windowOn('2026-06-15', HOUR),
    );
    expect(anchorOf(null)).toEqual({ kind: 'finish_by_sunrise' });
  });

  it('start_at on plan day D is D at that local time, and the run lasts its seconds', () => {
    const w = windowOn('2026-06-15', 2 * HOUR, choice({ start_at: '21:30' }));
    expect(wall(w.start)).toBe('2026-06-15 21:30 -04:00');
    expect(w.finish - w.start).toBe(2 * HOUR);
    expect(w.kind).toBe('post_sunrise'); // it does not end by that day's sunrise
  });

  it('finish_by "HH:MM" ends then; a long run starts on the evening before', () => {
    const w = windowOn('2026-06-15', 6 * HOUR, choice({ finish_by: '04:00' }));
    expect(wall(w.finish)).toBe('2026-06-15 04:00 -04:00');
    expect(wall(w.start)).toBe('2026-06-14 22:00 -04:00');
    expect(w.kind).toBe('pre_dawn');
  });

  it('a chosen time is not moved by the frost rule (the skip check still decides on frost)', () => {
    const w = windowOn('2026-06-15', HOUR, choice({ start_at: '04:00' }), 30);
    expect(wall(w.start)).toBe('2026-06-15 04:00 -04:00');
    expect(w.min_temp_f).toBe(30);
    expect(windowOn('2026-06-15', HOUR, undefined, 30).kind).toBe('post_sunrise');
  });

  it('spring forward: start_at inside the skipped hour reads one hour later; finish_by counts real seconds', () => {
    const w = windowOn('2026-03-08', HOUR, choice({ start_at: '02:30' }));
    expect(wall(w.start)).toBe('2026-03-08 03:30 -04:00');
    const f = windowOn('2026-03-08', 3 * HOUR, choice({ finish_by: '05:00' }));
    expect(wall(f.finish)).toBe('2026-03-08 05:00 -04:00');
    // Three real hours before 05:00 EDT is 01:00 EST: four wall-clock hours.
    expect(wall(f.start)).toBe('2026-03-08 01:00 -05:00');
  });

  it('fall back: a repeated start time is its first occurrence; finish_by spans the repeated hour', () => {
    const w = windowOn('2026-11-01', HOUR, choice({ start_at: '01:30' }));
    expect(wall(w.start)).toBe('2026-11-01 01:30 -04:00');
    const f = windowOn('2026-11-01', 3 * HOUR, choice({ finish_by: '03:00' }));
    expect(wall(f.finish)).toBe('2026-11-01 03:00 -05:00');
    expect(wall(f.start)).toBe('2026-11-01 01:00 -04:00'); // two wall hours, three real ones
  });

  it('keeps out of forbidden hours: finish-by windows move earlier, start-at windows later', () => {
    const dawnBan = [{ forbidden_hours: ['05:00-09:00'] }];
    const sunriseWin = windowOn('2026-06-15', HOUR, choice({}, dawnBan));
    expect(wall(sunriseWin.finish)).toBe('2026-06-15 05:00 -04:00');
    expect(sunriseWin.finish - sunriseWin.start).toBe(HOUR);
    const late = windowOn(
      '2026-06-15',
      HOUR,
      choice({ start_at: '21:00' }, [{ forbidden_hours: ['20:00-22:00'] }]),
    );
    expect(wall(late.start)).toBe('2026-06-15 22:00 -04:00');
    // A ban that wraps midnight, from the day before, also counts.
    const night = windowOn(
      '2026-06-15',
      HOUR,
      choice({ start_at: '01:00' }, [{ forbidden_hours: ['23:00-02:00'] }]),
    );
    expect(wall(night.start)).toBe('2026-06-15 02:00 -04:00');
  });
});

describe('the next run and the plan follow the choice', () => {
  it('nextRun answers D at the start_at time', () => {
    const next = nextRun({
      now: at('2026-06-15T12:00'),
      timezone: TZ,
      location: NYC,
      plannedSecondsByDay: [HOUR, HOUR, 0, 0, 0, 0, 0],
      allowedWeekdays: [],
      minTempThresholdF: 38,
      choice: choice({ start_at: '19:00' }),
    });
    expect(next.next_run_state).toBe('at');
    expect(next.next_run_day_offset).toBe(0);
    expect(wall(next.next_run_epoch)).toBe('2026-06-15 19:00 -04:00');
  });

  it('the engine places today_window and the plan days at the deployment time', () => {
    const config = demo((raw) => {
      (raw.deployment as Record<string, unknown>).run_window = { start_at: '20:15' };
    });
    const out = computeIrrigation(input({ config }));
    const today = out.snapshot.water_plan[0];
    const planned = (today?.zones ?? []).reduce((s, z) => s + z.planned_seconds, 0);
    expect(planned).toBeGreaterThan(0);
    const start = out.snapshot.today_window.start;
    expect(
      DateTime.fromSeconds(start, { zone: zoneFor(out.snapshot.timezone) }).toFormat('yyyy-MM-dd HH:mm'),
    ).toBe(`${today?.date_local} 20:15`);
    expect(today?.start_epoch).toBe(start);
    expect(out.snapshot.next_run_epoch).toBe(start);
  });
});

describe('validation', () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a hand-edited document, any shape
  type Doc = Record<string, any>;
  const errors = (patch: (doc: Doc) => void) => {
    const doc = validDoc() as Doc;
    patch(doc);
    return validateDocument(doc, {}).report.errors.map((e) => [e.code, e.path]);
  };

  it('finish_by and start_at together: run_window_conflict', () => {
    expect(
      errors((doc) => {
        doc.deployment.run_window = { finish_by: 'sunrise', start_at: '05:00' };
      }),
    ).toEqual([['run_window_conflict', '$.deployment.run_window']]);
  });

  it('refuses a time that is not a local HH:MM', () => {
    const codes = errors((doc) => {
      doc.deployment.run_window = { start_at: '5am' };
    });
    expect(codes.map(([, path]) => path)).toEqual(['$.deployment.run_window.start_at']);
    expect(
      errors((doc) => {
        doc.deployment.run_window = { finish_by: '06:45' };
      }),
    ).toEqual([]);
  });
});
