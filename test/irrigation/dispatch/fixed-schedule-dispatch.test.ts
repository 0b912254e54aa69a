import { FIXED_LATE_S } from '../../../server/src/irrigation/dispatch/scheduler';
import type { IrrigationSnapshot } from '../../../server/src/irrigation/snapshot-schema';
import { RIG_T0 } from '../../helpers/dispatch-rig';
import { settle, useSchedulerRig } from '../../helpers/scheduler-rig';

/**
 * Fixed schedules' runs go through the one dispatch path: the scheduler
 * opens each at its start (water_plan[0].schedule_runs), one zone at a time
 * per controller, under the schedule's own session id; held runs leave one
 * skipped row with their reason; a run is caught up within FIXED_LATE_S and
 * never twice. Manual clock; dry-run controller.
 */

const DATE = '2026-07-15';
const t = useSchedulerRig({ lawn: { controller_station: '1' }, beds: { controller_station: '2' } });

function scheduleRun(zone: string, start: number, seconds: number, held?: string) {
  return {
    schedule: 'Beds by hand',
    schedule_slug: 'beds_by_hand',
    mode: 'override',
    zone,
    date_local: DATE,
    day_offset: 0,
    start_epoch: start,
    planned_seconds: held ? 0 : seconds,
    target_seconds: seconds,
    delivered_seconds: null,
    reason_code: held ?? 'schedule_run',
    reason: held ? `held by ${held}` : 'as written',
    session_id: `fixed-beds_by_hand-${DATE}-${zone}`,
  };
}

function withRuns(runs: ReturnType<typeof scheduleRun>[], paused = false): IrrigationSnapshot {
  return {
    // No smart water today: the smart window is far away.
    today_window: { start: RIG_T0 + 86_000, finish: RIG_T0 + 86_000, kind: 'pre_dawn', min_temp_f: null },
    master_enable: true,
    skip_check: { is_paused: paused },
    zones: [],
    water_plan: [{ date_local: DATE, zones: [], schedule_runs: runs }],
  } as unknown as IrrigationSnapshot;
}

it('runs each zone at its start in sequence under the schedule session, with ordinary run rows', async () => {
  t.snapshot = withRuns([scheduleRun('lawn', RIG_T0 + 60, 30), scheduleRun('beds', RIG_T0 + 60, 20)]);
  t.rig.at(59);
  await t.scheduler.tick();
  expect(t.scheduler.fixedRuns()).toBeNull();
  expect(t.rig.rows()).toEqual([]);

  t.rig.at(60);
  await t.scheduler.tick();
  await settle();
  expect(t.rig.dispatcher.activeRuns().has('lawn')).toBe(true);
  expect(t.rig.dispatcher.activeRuns().has('beds')).toBe(false); // one zone at a time on this controller
  t.rig.at(90);
  t.rig.dispatcher.tick();
  await settle();
  expect(t.rig.dispatcher.activeRuns().has('beds')).toBe(true);
  t.rig.at(110);
  t.rig.dispatcher.tick();
  await t.scheduler.fixedRuns();

  const rows = t.rig.rows();
  expect(rows.map((r) => [r.zone, r.session_id, r.status, r.duration_s, r.source])).toEqual([
    ['lawn', `fixed-beds_by_hand-${DATE}-lawn`, 'completed', 30, 'dry_run'],
    ['beds', `fixed-beds_by_hand-${DATE}-beds`, 'completed', 20, 'dry_run'],
  ]);
  // Never twice: the sessions have rows.
  t.rig.at(200);
  await t.scheduler.tick();
  expect(t.scheduler.fixedRuns()).toBeNull();
  expect(t.rig.rows()).toHaveLength(2);
});

it('a held run leaves one skipped row with its reason; paused dispatches nothing', async () => {
  t.snapshot = withRuns([scheduleRun('lawn', RIG_T0 + 60, 30, 'wind_now')], true);
  t.rig.at(60);
  await t.scheduler.tick();
  expect(t.rig.rows()).toEqual([]);
  t.snapshot = withRuns([scheduleRun('lawn', RIG_T0 + 60, 30, 'wind_now')]);
  await t.scheduler.tick();
  await t.scheduler.tick();
  const rows = t.rig.rows();
  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatchObject({ status: 'skipped', session_id: `fixed-beds_by_hand-${DATE}-lawn` });
  expect(rows[0]?.skip_reason ?? rows[0]?.note).toMatch(/wind_now: held by wind_now/);
});

it('is caught up within FIXED_LATE_S of its start, not after', async () => {
  t.snapshot = withRuns([scheduleRun('lawn', RIG_T0 + 60, 30)]);
  t.rig.at(60 + FIXED_LATE_S);
  await t.scheduler.tick();
  expect(t.scheduler.fixedRuns()).toBeNull();
  t.rig.at(60 + FIXED_LATE_S - 1);
  await t.scheduler.tick();
  await settle();
  expect(t.rig.dispatcher.activeRuns().has('lawn')).toBe(true);
});
