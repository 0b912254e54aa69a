import { configSchema } from '../../../server/src/config/schema';
import { ControllerManager } from '../../../server/src/controllers/controller-manager';
import { builtinControllerKinds } from '../../../server/src/controllers/index';
import { openSprinklerKind } from '../../../server/src/controllers/adapters/opensprinkler';
import { EventBus, type BusEvents } from '../../../server/src/core/bus';
import type { Clock } from '../../../server/src/core/clock';
import { silentLogger } from '../../../server/src/core/logger';
import { Dispatcher } from '../../../server/src/irrigation/dispatch/dispatcher';
import { RunLedger } from '../../../server/src/irrigation/dispatch/run-ledger';
import { DAY_KEY, Scheduler, sessionId } from '../../../server/src/irrigation/dispatch/scheduler';
import type { IrrigationSnapshot } from '../../../server/src/irrigation/snapshot-schema';
import type { Store } from '../../../server/src/store/store';
import { OPENDOOR_MD5, OpenSprinklerPeer } from '../../helpers/opensprinkler-peer';
import { tempStore } from '../../store/temp-db';

/**
 * The run-window scheduler over a real dispatcher, ledger (SQLite) and
 * controller manager: sequence, cycle/soak sessions, window bounds,
 * catch-up exactly once, skip markers, the dispatch rule and failed dispatch.
 * The clock is pinned to a chosen date and then follows real time, so runs of
 * a second or two really elapse.
 */

const T0 = Date.UTC(2026, 6, 15, 9, 0, 0);
const DATE = '2026-07-15';
const stores = tempStore();

interface PlanZone {
  zone: string;
  planned_seconds: number;
  water_need?: string;
  reason_code?: string;
  cycles_s?: number[];
  soak_s?: number | null;
  session_capped?: boolean;
  uncapped_seconds?: number;
  max_run_minutes?: number;
}

function anchoredClock(startMs: number): Clock {
  const realStart = Date.now();
  return { nowMs: () => startMs + (Date.now() - realStart) };
}

function snapshotOf(zones: PlanZone[], window: { start: number; finish: number }, paused = false) {
  return {
    today_window: { ...window, kind: 'pre_dawn', min_temp_f: null },
    master_enable: true,
    skip_check: { is_paused: paused },
    zones: zones.map((z) => ({
      slug: z.zone,
      math: { cycles_s: z.cycles_s ?? [], soak_s: z.soak_s ?? null },
    })),
    water_plan: [
      {
        date_local: DATE,
        zones: zones.map((z) => ({
          zone: z.zone,
          name: z.zone,
          planned_seconds: z.planned_seconds,
          water_need: z.water_need ?? 'due',
          reason_code: z.reason_code ?? 'water',
          reason: z.reason_code ? `held: ${z.reason_code}` : 'due',
          model: 'soil',
          session_capped: z.session_capped ?? false,
          uncapped_seconds: z.uncapped_seconds ?? z.planned_seconds,
        })),
      },
    ],
    decision_trace: {
      zones: Object.fromEntries(
        zones.map((z) => [z.zone, { inputs: { max_run_minutes: z.max_run_minutes ?? 60 } }]),
      ),
    },
  } as unknown as IrrigationSnapshot;
}

interface Rig {
  bus: EventBus;
  scheduler: Scheduler;
  dispatcher: Dispatcher;
  manager: ControllerManager;
  setSnapshot(s: IrrigationSnapshot): void;
  stop(): Promise<void>;
}

async function rig(
  store: Store,
  controller: Record<string, unknown> = { id: 'dry', kind: 'dry_run' },
): Promise<Rig> {
  const clock = anchoredClock(T0);
  const bus = new EventBus();
  const logger = silentLogger();
  const config = configSchema.parse({
    schema_version: 2,
    deployment: { location: { lat: 40.7, lon: -74 } },
    controllers: [{ default: true, config: {}, ...controller }],
    zones: { a: { controller_station: '1' }, b: { controller_station: '2' } },
  });
  let dispatcher: Dispatcher | null = null;
  const manager = new ControllerManager({
    bus,
    clock,
    logger,
    config: () => ({ config, document: {}, appliedAtEpoch: 0, revision: 1 }),
    kinds: builtinControllerKinds([openSprinklerKind]),
    fetch,
    ha: () => null,
    forceDryRun: false,
    busyControllers: () => dispatcher?.busyControllers() ?? new Set(),
  });
  await manager.start();
  const ledger = new RunLedger(store.runs);
  dispatcher = new Dispatcher({
    clock,
    logger,
    bus,
    driver: manager,
    ledger,
    zoneConfig: (zone) => config.zones[zone],
    state: store.controls,
  });
  dispatcher.start();
  let snapshot: IrrigationSnapshot | null = null;
  const scheduler = new Scheduler({
    bus,
    clock,
    logger,
    dispatcher,
    driver: manager,
    ledger,
    snapshot: () => snapshot,
    state: store.controls,
    sessionPlans: store.sessionPlans,
  });
  return {
    bus,
    scheduler,
    dispatcher,
    manager,
    setSnapshot: (s) => (snapshot = s),
    stop: async () => {
      await scheduler.stop();
      await dispatcher?.shutdown();
      await manager.stop();
    },
  };
}

const NOW_S = T0 / 1000;
const OPEN_WINDOW = { start: NOW_S - 5, finish: NOW_S + 3600 };

async function until(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function allRows(store: Store) {
  return store.runs.listWindow(0, 4_102_444_800);
}

describe('the run-window scheduler', () => {
  it('keeps the plan each session began from (the run-cap evidence), the first one for a session', async () => {
    const store = stores.store();
    const r = await rig(store);
    r.setSnapshot(
      snapshotOf(
        [
          { zone: 'a', planned_seconds: 1, session_capped: true, uncapped_seconds: 3, max_run_minutes: 5 },
          { zone: 'b', planned_seconds: 1 },
        ],
        OPEN_WINDOW,
      ),
    );
    await r.scheduler.tick();
    const plans = store.sessionPlans.listWindow(0, 4_102_444_800);
    expect(plans).toEqual([
      expect.objectContaining({
        session_id: sessionId(DATE, 'a'),
        zone: 'a',
        date_local: DATE,
        model: 'soil',
        planned_seconds: 1,
        uncapped_seconds: 3,
        session_capped: true,
        max_run_minutes: 5,
      }),
      expect.objectContaining({ zone: 'b', session_capped: false, uncapped_seconds: 1, max_run_minutes: 60 }),
    ]);
    // The same session's plan is never rewritten.
    expect(
      store.sessionPlans.record({
        ...(plans[0] as (typeof plans)[0]),
        planned_seconds: 99,
        epoch: NOW_S + 60,
      }),
    ).toBe(false);
    expect(store.sessionPlans.listWindow(0, 4_102_444_800, 'a')[0]?.planned_seconds).toBe(1);
    await r.stop();
  }, 15_000);

  it('runs the zones in sequence inside the window; cycle segments share one session id', async () => {
    const store = stores.store();
    const r = await rig(store);
    r.setSnapshot(
      snapshotOf(
        [
          { zone: 'a', planned_seconds: 2, cycles_s: [1, 1], soak_s: 1 },
          { zone: 'b', planned_seconds: 1 },
        ],
        OPEN_WINDOW,
      ),
    );
    await r.scheduler.tick();
    const rows = allRows(store);
    expect(rows.map((x) => [x.zone, x.cycle_index, x.status, x.source])).toEqual(
      expect.arrayContaining([
        ['a', 1, 'completed', 'dry_run'],
        ['a', 2, 'completed', 'dry_run'],
        ['b', null, 'completed', 'dry_run'],
      ]),
    );
    expect(rows).toHaveLength(3);
    expect(new Set(rows.filter((x) => x.zone === 'a').map((x) => x.session_id))).toEqual(
      new Set([sessionId(DATE, 'a')]),
    );
    // One zone at a time: no two rows of the controller overlap.
    const sorted = [...rows].sort((x, y) => x.start_epoch - y.start_epoch);
    for (let i = 1; i < sorted.length; i++) {
      const prev = sorted[i - 1];
      expect(sorted[i]?.start_epoch).toBeGreaterThanOrEqual(
        (prev?.start_epoch ?? 0) + (prev?.duration_s ?? 0),
      );
    }
    // b ran during a's soak: a's second cycle starts after b.
    const b = rows.find((x) => x.zone === 'b');
    const a2 = rows.find((x) => x.zone === 'a' && x.cycle_index === 2);
    expect(a2?.start_epoch).toBeGreaterThanOrEqual(b?.start_epoch ?? Infinity);
    await r.stop();
  }, 15_000);

  it('announces watering.finished once per zone job, after its last cycle, with what the ledger credits', async () => {
    const store = stores.store();
    const r = await rig(store);
    const finished: BusEvents['watering.finished'][] = [];
    r.bus.on('watering.finished', (e) => finished.push(e));
    r.setSnapshot(
      snapshotOf(
        [
          { zone: 'a', planned_seconds: 2, cycles_s: [1, 1], soak_s: 1 },
          { zone: 'b', planned_seconds: 1 },
        ],
        OPEN_WINDOW,
      ),
    );
    await r.scheduler.tick();
    const rows = allRows(store);
    const a = finished.find((e) => e.zone === 'a');
    expect(finished.map((e) => e.zone).sort()).toEqual(['a', 'b']);
    expect(a).toMatchObject({
      session_id: sessionId(DATE, 'a'),
      source: 'dry_run',
      status: 'completed',
      // Both cycles, as the ledger records them; dry runs credit no water.
      duration_s: rows.filter((x) => x.zone === 'a').reduce((sum, x) => sum + x.duration_s, 0),
      applied_mm: null,
      volume_gal: null,
    });
    expect(a?.duration_s).toBe(2);
    expect(a?.start_epoch).toBe(Math.min(...rows.filter((x) => x.zone === 'a').map((x) => x.start_epoch)));
    await r.stop();
  }, 15_000);

  it("a zone alone on its controller runs every cycle: its own finished segment is not someone else's run", async () => {
    // The dry-run controller closes its valve itself: nothing reads it again after a segment,
    // so the last readback still says "running" when the soak is over. Found by the season replay.
    const store = stores.store();
    const r = await rig(store);
    r.setSnapshot(
      snapshotOf([{ zone: 'a', planned_seconds: 3, cycles_s: [1, 1, 1], soak_s: 1 }], OPEN_WINDOW),
    );
    await r.scheduler.tick();
    const rows = allRows(store);
    expect(rows.map((x) => [x.cycle_index, x.status, x.skip_reason])).toEqual([
      [1, 'completed', null],
      [2, 'completed', null],
      [3, 'completed', null],
    ]);
    await r.stop();
  }, 15_000);

  it('a cached "running" is read again before a zone is skipped: the valve may have closed itself since', async () => {
    // Found by the season replay (Maricopa, 2013-08-23): a self-timed valve closed on its own
    // timer after the last reading, and the next morning's due run was skipped as zone_running.
    // The peer's clock is ours (a device on UTC) plus a movable offset, at real speed. A faster
    // clock would close the station before a reading saw it open; a clock on another day would
    // make its boot time, converted through the whole-quarter-hour zone offset, look like a reboot.
    const ours = anchoredClock(T0);
    let peerOffsetMs = 0;
    const peer = await new OpenSprinklerPeer({ clock: { nowMs: () => ours.nowMs() + peerOffsetMs } }).start();
    try {
      const store = stores.store();
      const r = await rig(store, {
        id: 'os',
        kind: 'opensprinkler',
        config: { host: peer.host, password_md5: OPENDOOR_MD5, poll_interval_s: 2, timeout_s: 1 },
      });
      await fetch(`${peer.http.baseUrl}/cm?pw=${OPENDOOR_MD5}&sid=0&en=1&t=60`);
      const route = r.manager.route('a');
      if (!route.ok) throw new Error('zone a has no route');
      expect(await r.manager.readZone(route.route)).toMatchObject({ running: true, running_known: true });
      // Three seconds: the firmware times in whole seconds, so a 1 s station may close before any reading.
      r.setSnapshot(snapshotOf([{ zone: 'a', planned_seconds: 3 }], OPEN_WINDOW));
      // The station's own timer runs out; no reading has seen it yet (nothing awaits in between).
      peerOffsetMs += 120_000;
      expect(r.manager.zoneStates().get('a')).toMatchObject({ running: true, running_known: true });
      await r.scheduler.tick();
      const scheduled = allRows(store).filter((x) => x.session_id === sessionId(DATE, 'a'));
      expect(scheduled.map((x) => [x.status, x.skip_reason])).toEqual([['completed', null]]);
      await r.stop();
    } finally {
      await peer.close();
    }
  }, 20_000);

  it('stops without waiting for an open valve; the run stays open for the next boot to reconcile', async () => {
    const store = stores.store();
    const r = await rig(store);
    r.setSnapshot(snapshotOf([{ zone: 'a', planned_seconds: 3600 }], OPEN_WINDOW));
    const session = r.scheduler.tick();
    expect(session).not.toBeNull();
    await until(() => r.dispatcher.activeRuns().has('a'));
    const stopping = r.stop().then(() => 'stopped' as const);
    const tooLong = new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), 5_000).unref());
    expect(await Promise.race([stopping, tooLong])).toBe('stopped');
    await session;
    // Nothing closed the valve on its way down: the row is still running, as reconcile expects.
    expect(allRows(store).map((x) => [x.zone, x.status])).toEqual([['a', 'running']]);
  });

  it('runs nothing before the window or after it has passed, nor while paused', async () => {
    const store = stores.store();
    const r = await rig(store);
    r.setSnapshot(
      snapshotOf([{ zone: 'a', planned_seconds: 1 }], { start: NOW_S + 600, finish: NOW_S + 900 }),
    );
    expect(r.scheduler.tick()).toBeNull();
    r.setSnapshot(
      snapshotOf([{ zone: 'a', planned_seconds: 1 }], { start: NOW_S - 900, finish: NOW_S - 600 }),
    );
    expect(r.scheduler.tick()).toBeNull();
    r.setSnapshot(snapshotOf([{ zone: 'a', planned_seconds: 1 }], OPEN_WINDOW, true));
    expect(r.scheduler.tick()).toBeNull();
    expect(allRows(store).filter((x) => x.source !== 'smart_morning')).toHaveLength(0);
    await r.stop();
  });

  it('catches up after a restart inside the window, running only zones not yet begun, never twice', async () => {
    const store = stores.store();
    // Before the restart: zone a's session had begun and the day was recorded.
    store.runs.insert({
      session_id: sessionId(DATE, 'a'),
      zone: 'a',
      start_epoch: NOW_S - 60,
      duration_s: 30,
      skip_reason: null,
      source: 'dry_run',
      status: 'completed',
      controller_id: 'dry',
      applied_mm: null,
      volume_gal: null,
      note: null,
      cycle_index: null,
      cycle_count: null,
    });
    store.controls.set(DAY_KEY, { date: DATE, finish: NOW_S + 3600 });
    const r = await rig(store);
    // The plan's window has moved on (a shorter plan), but the day already begun still catches up.
    r.setSnapshot(
      snapshotOf(
        [
          { zone: 'a', planned_seconds: 1 },
          { zone: 'b', planned_seconds: 1 },
        ],
        { start: NOW_S + 1000, finish: NOW_S + 1001 },
      ),
    );
    await r.scheduler.tick();
    expect(allRows(store).map((x) => x.zone)).toEqual(['a', 'b']);
    expect(r.scheduler.tick()).toBeNull();
    await r.stop();
    const again = await rig(store);
    again.setSnapshot(snapshotOf([{ zone: 'b', planned_seconds: 1 }], OPEN_WINDOW));
    expect(again.scheduler.tick()).toBeNull();
    expect(allRows(store)).toHaveLength(2);
    await again.stop();
  }, 15_000);

  it('writes one smart_morning skip marker per held-back zone per day', async () => {
    const store = stores.store();
    const r = await rig(store);
    const plan = snapshotOf(
      [
        { zone: 'a', planned_seconds: 0, reason_code: 'rain_skip' },
        { zone: 'b', planned_seconds: 0, water_need: 'none', reason_code: 'not_due' },
      ],
      { start: NOW_S - 1, finish: NOW_S - 1 },
    );
    r.setSnapshot(plan);
    r.scheduler.tick();
    r.scheduler.tick();
    const rows = allRows(store);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      zone: 'a',
      source: 'smart_morning',
      status: 'skipped',
      duration_s: 0,
      applied_mm: null,
    });
    expect(rows[0]?.skip_reason).toMatch(/^rain_skip: /);
    await r.stop();
  });

  it('skips a zone the controller reports running, and records a failed dispatch with the error text', async () => {
    const peer = await new OpenSprinklerPeer({ clock: { nowMs: () => Date.now() } }).start();
    try {
      const store = stores.store();
      const r = await rig(store, {
        id: 'os',
        kind: 'opensprinkler',
        config: { host: peer.host, password_md5: OPENDOOR_MD5, poll_interval_s: 2, timeout_s: 1 },
      });
      const failures: BusEvents['controller.failure'][] = [];
      r.bus.on('controller.failure', (e) => failures.push(e));
      // The controller's own program opened station 1 (zone a).
      await fetch(`${peer.http.baseUrl}/cm?pw=${OPENDOOR_MD5}&sid=0&en=1&t=600`);
      const route = r.manager.route('a');
      if (!route.ok) throw new Error('zone a has no route');
      expect(await r.manager.readZone(route.route)).toMatchObject({ running: true, running_known: true });
      await peer.close();
      r.setSnapshot(
        snapshotOf(
          [
            { zone: 'a', planned_seconds: 60 },
            { zone: 'b', planned_seconds: 60 },
          ],
          OPEN_WINDOW,
        ),
      );
      await r.scheduler.tick();
      const rows = allRows(store);
      const a = rows.find((x) => x.zone === 'a');
      const b = rows.find((x) => x.zone === 'b');
      expect(a).toMatchObject({ status: 'skipped', source: 'ha_refresher' });
      expect(a?.skip_reason).toMatch(/^zone_running/);
      expect(b).toMatchObject({ status: 'skipped', source: 'ha_refresher', duration_s: 0 });
      expect(b?.skip_reason).toMatch(/^dispatch_failed: controller "os": cannot reach/);
      expect(b?.note).toMatch(/cannot reach/);
      // The failed command is announced (notifications), with the spec 7 code and the zone.
      expect(failures).toContainEqual(
        expect.objectContaining({
          controller_id: 'os',
          kind: 'opensprinkler',
          code: 'controller_unreachable',
          zone: 'b',
          action: 'run',
        }),
      );
      await r.stop();
    } finally {
      await peer.close();
    }
  }, 15_000);
});

describe('a zone with its own run window', () => {
  /** `water_plan[0].zones[].run_window` as the engine writes it for a zone's own table. */
  function ownWindow(snapshot: IrrigationSnapshot, zone: string, window: { start: number; finish: number }) {
    const entry = snapshot.water_plan[0]?.zones.find((z) => z.zone === zone) as Record<string, unknown>;
    entry.run_window = { start_epoch: window.start, finish_epoch: window.finish, kind: 'post_sunrise' };
    return snapshot;
  }
  const CLOSED = { start: NOW_S - 7200, finish: NOW_S - 3600 };
  const LATER = { start: NOW_S + 3600, finish: NOW_S + 7200 };

  it('runs in its own window while the deployment window is closed, and only then', async () => {
    const store = stores.store();
    const r = await rig(store);
    const plan = [
      { zone: 'a', planned_seconds: 1 },
      { zone: 'b', planned_seconds: 1 },
    ];
    r.setSnapshot(ownWindow(snapshotOf(plan, CLOSED), 'a', OPEN_WINDOW));
    await r.scheduler.tick();
    await Promise.all(r.scheduler.ownWindowRuns());
    expect(allRows(store).map((x) => [x.zone, x.status, x.session_id])).toEqual([
      ['a', 'completed', sessionId(DATE, 'a')],
    ]);
    // Another look the same day: never twice.
    await r.scheduler.tick();
    await Promise.all(r.scheduler.ownWindowRuns());
    expect(allRows(store)).toHaveLength(1);

    await r.stop();
  }, 15_000);

  it('stays out of the deployment window: the open window runs only the zones without their own', async () => {
    const store = stores.store();
    const r = await rig(store);
    const plan = [
      { zone: 'a', planned_seconds: 1 },
      { zone: 'b', planned_seconds: 1 },
    ];
    r.setSnapshot(ownWindow(snapshotOf(plan, OPEN_WINDOW), 'a', LATER));
    await r.scheduler.tick();
    await Promise.all(r.scheduler.ownWindowRuns());
    expect(allRows(store).map((x) => [x.zone, x.status])).toEqual([['b', 'completed']]);
    await r.stop();
  }, 15_000);
});
