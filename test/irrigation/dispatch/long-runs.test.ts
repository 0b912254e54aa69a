import { commandPieces, RUN_SECONDS_MAX } from '../../../server/src/irrigation/dispatch/command-pieces';
import { zoneJobs } from '../../../server/src/irrigation/dispatch/session-plan';
import type { IrrigationSnapshot } from '../../../server/src/irrigation/snapshot-schema';
import { RIG_T0 } from '../../helpers/dispatch-rig';
import { settle, useSchedulerRig } from '../../helpers/scheduler-rig';

/**
 * A run longer than one valve command (RUN_SECONDS_MAX, 7200 s): the config
 * allows `max_run_minutes` up to 360 and a fixed schedule up to 240 minutes.
 * Planned runs are dispatched whole, as consecutive pieces of at most 7200 s
 * under one session, each row saying it is a piece; a manual run above the
 * limit is clamped and its row says so. Manual clock; dry-run controller.
 */

const DATE = '2026-07-15';
const t = useSchedulerRig({ lawn: { controller_station: '1' }, drip: { controller_station: '2' } });

/** Advances the manual clock to each planned end in turn until the session is done. */
async function runThrough(session: () => Promise<void> | null, ends: number[]): Promise<void> {
  for (const end of ends) {
    await settle();
    t.rig.at(end);
    t.rig.dispatcher.tick();
  }
  await session();
}

describe('command pieces', () => {
  it('cuts only segments over the limit, with no soak between the pieces of one segment', () => {
    expect(commandPieces([600, 900], 1800)).toEqual({
      segments: [600, 900],
      soak_after_s: [1800, 0],
      notes: [null, null],
    });
    const long = commandPieces([16_000, 3000], 1200);
    expect(long.segments).toEqual([7200, 7200, 1600, 3000]);
    expect(long.soak_after_s).toEqual([0, 0, 1200, 0]);
    expect(long.notes[2]).toBe('piece 3 of 3 of a 16000 s run: one valve command opens at most 7200 s');
    expect(long.notes[3]).toBeNull();
    expect(long.segments.reduce((a, b) => a + b, 0)).toBe(19_000);
    expect(Math.max(...long.segments)).toBe(RUN_SECONDS_MAX);
  });
});

it('a 360-minute smart run (the max_run_minutes ceiling) is dispatched whole, in pieces of one session', async () => {
  const planned = 360 * 60;
  t.snapshot = {
    today_window: { start: RIG_T0 + 60, finish: RIG_T0 + 60 + planned, kind: 'pre_dawn', min_temp_f: null },
    master_enable: true,
    skip_check: { is_paused: false },
    zones: [{ slug: 'drip', math: { cycles_s: [], soak_s: null } }],
    water_plan: [
      {
        date_local: DATE,
        zones: [
          {
            zone: 'drip',
            name: 'drip',
            planned_seconds: planned,
            water_need: 'due',
            reason_code: 'water',
            reason: 'due',
            model: 'soil',
            session_capped: false,
            uncapped_seconds: planned,
          },
        ],
      },
    ],
  } as unknown as IrrigationSnapshot;
  expect(zoneJobs(t.snapshot)[0]?.segments).toEqual([7200, 7200, 7200]);

  t.rig.at(60);
  const session = t.scheduler.tick();
  await runThrough(() => session, [60 + 7200, 60 + 14_400, 60 + 21_600]);

  const rows = t.rig.rows('drip');
  expect(rows.map((r) => [r.session_id, r.status, r.duration_s, r.cycle_index, r.cycle_count])).toEqual([
    [`sched-${DATE}-drip`, 'completed', 7200, 1, 3],
    [`sched-${DATE}-drip`, 'completed', 7200, 2, 3],
    [`sched-${DATE}-drip`, 'completed', 7200, 3, 3],
  ]);
  expect(rows[0]?.note).toMatch(/^piece 1 of 3 of a 21600 s run: one valve command opens at most 7200 s/);
});

it('a 240-minute fixed schedule run is dispatched whole under its own session', async () => {
  const session_id = `fixed-deep_soak-${DATE}-lawn`;
  t.snapshot = {
    today_window: { start: RIG_T0 + 86_000, finish: RIG_T0 + 86_000, kind: 'pre_dawn', min_temp_f: null },
    master_enable: true,
    skip_check: { is_paused: false },
    zones: [],
    water_plan: [
      {
        date_local: DATE,
        zones: [],
        schedule_runs: [
          {
            schedule: 'Deep soak',
            schedule_slug: 'deep_soak',
            mode: 'override',
            zone: 'lawn',
            date_local: DATE,
            day_offset: 0,
            start_epoch: RIG_T0 + 60,
            planned_seconds: 14_400,
            target_seconds: 14_400,
            delivered_seconds: null,
            reason_code: 'schedule_run',
            reason: 'as written',
            session_id,
          },
        ],
      },
    ],
  } as unknown as IrrigationSnapshot;
  t.rig.at(60);
  await t.scheduler.tick();
  await runThrough(() => t.scheduler.fixedRuns(), [60 + 7200, 60 + 14_400]);

  const rows = t.rig.rows('lawn');
  expect(rows.map((r) => [r.session_id, r.status, r.duration_s])).toEqual([
    [session_id, 'completed', 7200],
    [session_id, 'completed', 7200],
  ]);
  expect(rows[1]?.note).toMatch(/^piece 2 of 2 of a 14400 s run/);
});

it('a manual request above the limit is clamped, and its row says so', async () => {
  t.rig.at(0);
  const started = await t.rig.dispatcher.run({ zone: 'lawn', seconds: 9000, requester: 'manual' });
  expect(started).toMatchObject({ seconds: 7200, clamped: true });
  expect(t.rig.rows('lawn')[0]).toMatchObject({
    duration_s: 7200,
    note: expect.stringMatching(/^clamped from 9000 s to 7200 s: one valve command opens at most 7200 s/),
  });
  await t.rig.dispatcher.stop('lawn');
});
