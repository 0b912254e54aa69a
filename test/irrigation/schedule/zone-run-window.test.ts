import { DateTime } from 'luxon';
import type { RaincheckConfig } from '../../../server/src/config/schema';
import { validateDocument } from '../../../server/src/config/validate';
import { zoneFor } from '../../../server/src/core/tz/zone';
import type { HourlyEntry } from '../../../server/src/forecast/types';
import { computeIrrigation } from '../../../server/src/irrigation/engine/engine';
import type { IrrigationSnapshot } from '../../../server/src/irrigation/snapshot-schema';

import { useBuiltinKinds, validDoc } from '../../helpers/config-fixtures';
import { demo, input, inputOn, TZ } from '../engine/fixtures';

/**
 * A zone's own `run_window` table (`[zones.<slug>.run_window]`), over the
 * deployment's: its window-closed flag, its plan times, the next run. The
 * demo deployment finishes by sunrise; at 10:30 that window is over, a zone
 * starting at 20:00 still has its own ahead.
 */

useBuiltinKinds();

const wall = (epoch: number | null | undefined) =>
  epoch === null || epoch === undefined
    ? null
    : DateTime.fromSeconds(epoch, { zone: zoneFor(TZ) }).toFormat('yyyy-MM-dd HH:mm ZZ');

type Table = Record<string, string>;

function withWindows(own: Record<string, Table>, deployment?: Table): RaincheckConfig {
  return demo((raw) => {
    const zones = raw.zones as Record<string, Record<string, unknown>>;
    for (const [slug, table] of Object.entries(own))
      (zones[slug] as Record<string, unknown>).run_window = table;
    if (deployment) (raw.deployment as Record<string, unknown>).run_window = deployment;
  });
}

function entry(s: IrrigationSnapshot, d: number, zone: string) {
  const found = s.water_plan[d]?.zones.find((z) => z.zone === zone);
  if (!found) throw new Error(`no ${zone} on day ${d}`);
  return found as typeof found & {
    run_window?: { start_epoch: number; finish_epoch: number; kind: string; closed?: boolean };
  };
}

describe('a zone with its own run window', () => {
  it('keeps today open for that zone alone after the deployment window closed', () => {
    const base = computeIrrigation(input()).snapshot;
    const own = computeIrrigation(
      input({ config: withWindows({ front_lawn: { start_at: '20:00' } }) }),
    ).snapshot;
    expect(base.water_plan[0]?.window_closed).toBe(true);
    expect(own.water_plan[0]?.window_closed).toBe(true); // the deployment's flag is unchanged

    const front = entry(own, 0, 'front_lawn');
    expect(front.planned_seconds).toBeGreaterThan(0);
    expect(wall(front.run_window?.start_epoch)).toBe('2025-06-16 20:00 -04:00');
    expect((front.run_window?.finish_epoch ?? 0) - (front.run_window?.start_epoch ?? 0)).toBe(
      front.planned_seconds,
    );
    expect(front.run_window?.closed).toBe(false);
    expect(front.reason).not.toMatch(/window has closed/);
    expect(entry(base, 0, 'front_lawn').reason).toMatch(/window has closed/);
    // Zones in the deployment's window carry no window of their own and keep its closed flag.
    expect(entry(own, 0, 'back_lawn').run_window).toBeUndefined();
    expect(entry(own, 0, 'back_lawn').reason).toMatch(/window has closed/);

    // The zone's upcoming seconds are today's; a deployment zone's are tomorrow's.
    const zone = (slug: string) => own.zones.find((z) => z.slug === slug);
    expect(zone('front_lawn')?.planned_run_seconds).toBe(front.planned_seconds);
    expect(zone('back_lawn')?.planned_run_seconds).toBe(entry(own, 1, 'back_lawn').planned_seconds);

    // The next run is the zone's, tonight, for its minutes.
    expect(own.next_run_state).toBe('at');
    expect(own.next_run_day_offset).toBe(0);
    expect(wall(own.next_run_epoch)).toBe('2025-06-16 20:00 -04:00');
    expect(own.next_run_total_minutes).toBe(Math.ceil(front.planned_seconds / 60));
    expect(base.next_run_day_offset).toBe(1);
    // today_window is the deployment's, placed without the zone's seconds (it still ends at sunrise).
    expect(own.today_window.finish).toBe(base.today_window.finish);
    expect(own.today_window.start - base.today_window.start).toBe(
      entry(base, 0, 'front_lawn').planned_seconds,
    );
    // The plan day spans the deployment's window to the zone's.
    expect(own.water_plan[0]?.start_epoch).toBe(own.today_window.start);
    expect(own.water_plan[0]?.finish_epoch).toBe(front.run_window?.finish_epoch);
  });

  it('a zone finish_by window ends at its own time on each plan day; the others keep the deployment window', () => {
    const s = computeIrrigation(
      input({ config: withWindows({ back_lawn: { finish_by: '23:00' } }, { start_at: '04:00' }) }),
    ).snapshot;
    const back = entry(s, 1, 'back_lawn');
    expect(back.planned_seconds).toBeGreaterThan(0);
    expect(wall(back.run_window?.finish_epoch)).toBe('2025-06-17 23:00 -04:00');
    expect(back.run_window?.closed).toBeUndefined(); // only today's window can have closed
    // Today: the zone's 23:00 window is still ahead, the deployment's 04:00 start is past.
    expect(entry(s, 0, 'back_lawn').run_window?.closed).toBe(false);
    expect(entry(s, 0, 'front_lawn').reason).toMatch(/window has closed/);
    expect(wall(s.water_plan[1]?.start_epoch)).toBe('2025-06-17 04:00 -04:00');
    expect(s.water_plan[1]?.finish_epoch).toBe(back.run_window?.finish_epoch);
    expect(wall(s.today_window.start)).toBe('2025-06-16 04:00 -04:00');
  });

  it('a zone whose own window has closed today waits for tomorrow while the deployment window is open', () => {
    const s = computeIrrigation(
      input({ config: withWindows({ front_lawn: { start_at: '06:00' } }, { start_at: '21:00' }) }),
    ).snapshot;
    expect(s.water_plan[0]?.window_closed).toBe(false);
    expect(entry(s, 0, 'front_lawn').run_window?.closed).toBe(true);
    expect(entry(s, 0, 'front_lawn').reason).toMatch(/window has closed/);
    expect(entry(s, 0, 'back_lawn').reason).not.toMatch(/window has closed/);
    expect(wall(s.next_run_epoch)).toBe('2025-06-16 21:00 -04:00');
  });
});

describe('own windows across DST changes', () => {
  it('spring forward: a zone start_at inside the skipped hour starts one hour later, the zone only', () => {
    const s = computeIrrigation(
      inputOn('2025-03-08', withWindows({ front_lawn: { start_at: '02:30' } }, { start_at: '02:00' })),
    ).snapshot;
    const front = entry(s, 1, 'front_lawn');
    expect(front.planned_seconds).toBeGreaterThan(0);
    expect(wall(front.run_window?.start_epoch)).toBe('2025-03-09 03:30 -04:00');
    expect((front.run_window?.finish_epoch ?? 0) - (front.run_window?.start_epoch ?? 0)).toBe(
      front.planned_seconds,
    );
    expect(wall(s.water_plan[1]?.start_epoch)).toBe('2025-03-09 03:00 -04:00'); // 02:00 read one hour later
  });

  it('fall back: a zone finish_by counts real seconds across the repeated hour', () => {
    const s = computeIrrigation(
      inputOn('2025-11-01', withWindows({ vegetables: { finish_by: '02:00' } })),
    ).snapshot;
    const veg = entry(s, 1, 'vegetables');
    expect(veg.planned_seconds).toBe(3600);
    expect(wall(veg.run_window?.finish_epoch)).toBe('2025-11-02 02:00 -05:00');
    expect(wall(veg.run_window?.start_epoch)).toBe('2025-11-02 01:00 -05:00'); // the second 01:00
    expect(entry(s, 1, 'back_lawn').run_window).toBeUndefined();
  });
});

describe('validation of a zone run window', () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a hand-edited document, any shape
  type Doc = Record<string, any>;
  const errors = (patch: (doc: Doc) => void) => {
    const doc = validDoc() as Doc;
    patch(doc);
    return validateDocument(doc, {}).report.errors.map((e) => [e.code, e.path]);
  };
  const firstZone = (doc: Doc) => Object.keys(doc.zones)[0] as string;

  it('finish_by and start_at together: run_window_conflict at the zone', () => {
    let slug = '';
    const found = errors((doc) => {
      slug = firstZone(doc);
      doc.zones[slug].run_window = { finish_by: '05:00', start_at: '21:00' };
    });
    expect(found).toEqual([['run_window_conflict', `$.zones.${slug}.run_window`]]);
  });

  it('accepts one key; refuses a time that is not HH:MM; an unknown key is warned about', () => {
    expect(errors((doc) => (doc.zones[firstZone(doc)].run_window = { start_at: '21:00' }))).toEqual([]);
    const bad = errors((doc) => (doc.zones[firstZone(doc)].run_window = { start_at: '9pm' }));
    expect(bad.map(([, path]) => path)).toEqual([expect.stringMatching(/run_window\.start_at$/)]);
    const doc = validDoc() as Doc;
    doc.zones[firstZone(doc)].run_window = { begin: '21:00' };
    expect(validateDocument(doc, {}).report.warnings.map((w) => w.code)).toEqual(['unknown_field']);
  });
});

describe("the skip check on a zone's own hours", () => {
  // Spring-forward day in New York (02:00 -> 03:00): local hours are read through the zone's rules.
  const dstDay = '2025-03-09';
  const windows = withWindows({ front_lawn: { start_at: '21:00' } }, { start_at: '12:00' });
  const at = (local: DateTime, from: number, to: number) =>
    local.toISODate() === dstDay && local.hour >= from && local.hour < to;
  const run = (weatherAt: (local: DateTime) => Partial<HourlyEntry>) =>
    computeIrrigation(inputOn(dstDay, windows, weatherAt)).snapshot;

  it('wind forecast for the evening skips the 21:00 zone only; the noon window waters', () => {
    const s = run((local) => (at(local, 21, 23) ? { wind_mph: 30 } : {}));
    expect(entry(s, 0, 'front_lawn')).toMatchObject({ reason_code: 'wind_forecast', planned_seconds: 0 });
    expect(entry(s, 0, 'back_lawn').planned_seconds).toBeGreaterThan(0);
    // The snapshot's skip check is the deployment's window (noon): calm.
    expect(s.skip_check.wind_window_max_mph).toBeLessThan(15);
  });

  it('wind forecast at noon skips the deployment zones; the 21:00 zone still waters', () => {
    const s = run((local) => (at(local, 12, 14) ? { wind_mph: 30 } : {}));
    expect(entry(s, 0, 'back_lawn')).toMatchObject({ reason_code: 'wind_forecast', planned_seconds: 0 });
    expect(entry(s, 0, 'front_lawn').planned_seconds).toBeGreaterThan(0);
  });

  it('frost forecast in the evening holds the 21:00 zone; the deployment is judged on its own window', () => {
    const s = run((local) => (at(local, 21, 24) ? { temp_f: 30 } : {}));
    expect(entry(s, 0, 'front_lawn')).toMatchObject({ reason_code: 'freeze', planned_seconds: 0 });
    expect(entry(s, 0, 'back_lawn').planned_seconds).toBeGreaterThan(0);
    expect(s.skip_check.window_min_temp_f).toBeGreaterThan(38);
  });
});
