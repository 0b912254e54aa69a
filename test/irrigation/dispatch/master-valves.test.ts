import { DispatchError } from '../../../server/src/irrigation/dispatch/dispatch-error';
import type { ZoneRoute } from '../../../server/src/irrigation/dispatch/driver';
import { validateDocument } from '../../../server/src/config/validate';
import { useBuiltinKinds, validDoc } from '../../helpers/config-fixtures';
import { dispatchRig, RIG_T0, type DispatchRig } from '../../helpers/dispatch-rig';
import { tempStore } from '../../store/temp-db';

/**
 * A master valve or pump on the one dispatch path (dry-run controllers,
 * manual clock): it opens its lead before the zone, is shared by the zones
 * it serves, closes its lag after the last one, and a failed close goes to
 * the watchdog, which keeps trying until one is accepted.
 */

const stores = tempStore();
let rig: DispatchRig;
let commands: string[];

const CONTROLLERS = [
  { id: 'valves', kind: 'dry_run', default: true },
  { id: 'relay', kind: 'dry_run', config: { concurrent_zones: true } },
];
const ZONES = {
  lawn: { controller_station: '1' },
  beds: { controller_station: '2' },
  drip: { controller_station: '3' },
};
const PUMP = {
  name: 'well_pump',
  controller_id: 'relay',
  station: 'pump',
  zones: ['lawn', 'beds'],
  lead_s: 3,
  lag_s: 20,
};

async function rigWith(masters: Record<string, unknown>[]): Promise<void> {
  rig = await dispatchRig(stores.store(), { controllers: CONTROLLERS, zones: ZONES, masters });
  commands = [];
  const run = rig.manager.run.bind(rig.manager);
  const stop = rig.manager.stopZone.bind(rig.manager);
  jest.spyOn(rig.manager, 'run').mockImplementation(async (route: ZoneRoute, seconds: number) => {
    commands.push(`${at()} run ${route.zone} ${seconds}`);
    return run(route, seconds);
  });
  jest.spyOn(rig.manager, 'stopZone').mockImplementation(async (route: ZoneRoute) => {
    commands.push(`${at()} stop ${route.zone}`);
    return stop(route);
  });
}

const at = () => Math.round(rig.clock.nowMs() / 1000 - RIG_T0);
const settle = async () => {
  for (let i = 0; i < 10; i += 1) await new Promise((resolve) => setImmediate(resolve));
};
async function tickAt(seconds: number): Promise<void> {
  rig.at(seconds);
  rig.dispatcher.tick();
  await settle();
}

afterEach(async () => {
  jest.restoreAllMocks();
  await rig.stop();
});

it('opens the pump its lead before the zone and closes it its lag after; the row starts with the zone', async () => {
  await rigWith([PUMP]);
  const started = await rig.dispatcher.run({ zone: 'lawn', seconds: 60, requester: 'manual' });
  expect(commands).toEqual(['0 run master:well_pump 83', '3 run lawn 60']);
  expect(started.run.startEpoch).toBe(RIG_T0 + 3);
  await tickAt(63);
  await started.run.done;
  await tickAt(82);
  expect(commands).toHaveLength(2); // still within the lag
  await tickAt(83);
  expect(commands).toEqual(['0 run master:well_pump 83', '3 run lawn 60', '83 stop master:well_pump']);
  expect(rig.rows().map((r) => r.zone)).toEqual(['lawn']); // a master's commands are not water
});

it('a zone it does not serve runs alone; zones in sequence share one opening', async () => {
  await rigWith([PUMP]);
  const drip = await rig.dispatcher.run({ zone: 'drip', seconds: 10, requester: 'manual' });
  expect(commands).toEqual(['0 run drip 10']);
  await tickAt(10);
  await drip.run.done;
  commands = [];

  const lawn = await rig.dispatcher.run({ zone: 'lawn', seconds: 30, requester: 'schedule' });
  expect(lawn.run.startEpoch).toBe(RIG_T0 + 13);
  await tickAt(43);
  await lawn.run.done;
  await tickAt(50); // the next zone starts inside the lag: the pump stays open, no second lead
  const beds = await rig.dispatcher.run({ zone: 'beds', seconds: 50, requester: 'schedule' });
  expect(beds.run.startEpoch).toBe(RIG_T0 + 50);
  await tickAt(100);
  await beds.run.done;
  await tickAt(119);
  expect(commands.filter((c) => c.includes('stop'))).toEqual([]);
  await tickAt(120);
  expect(commands).toEqual([
    '10 run master:well_pump 53',
    '13 run lawn 30',
    // Commanded again to cover the new zone: a self-timed controller would close it at 63 otherwise.
    '50 run master:well_pump 73',
    '50 run beds 50',
    '120 stop master:well_pump',
  ]);
});

it('a pump that does not open refuses the zone; nothing opens', async () => {
  await rigWith([{ ...PUMP, controller_id: 'valves', station: '9' }]);
  const run = jest.mocked(rig.manager.run).getMockImplementation();
  jest.spyOn(rig.manager, 'run').mockImplementation(async (route: ZoneRoute, seconds: number) => {
    if (route.zone.startsWith('master:'))
      throw Object.assign(new Error('relay offline'), { code: 'controller_unreachable' });
    return run?.(route, seconds);
  });
  const err = await rig.dispatcher
    .run({ zone: 'lawn', seconds: 30, requester: 'manual' })
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(DispatchError);
  expect(err).toMatchObject({ status: 502, code: 'master_unavailable' });
  expect((err as Error).message).toMatch(/master "well_pump" did not open: relay offline/);
  expect(rig.dispatcher.activeRuns().size).toBe(0);
});

it('a close that fails goes to the watchdog, which retries until the pump is closed', async () => {
  await rigWith([{ ...PUMP, lead_s: 0, lag_s: 0 }]);
  const stop = jest.mocked(rig.manager.stopZone).getMockImplementation();
  let failures = 1;
  jest.spyOn(rig.manager, 'stopZone').mockImplementation(async (route: ZoneRoute) => {
    if (route.zone.startsWith('master:') && failures-- > 0) {
      commands.push(`${at()} stop ${route.zone}`);
      throw new Error('relay busy');
    }
    return stop?.(route) ?? 'zone'; // the recording stop of rigWith
  });
  const lawn = await rig.dispatcher.run({ zone: 'lawn', seconds: 10, requester: 'manual' });
  await tickAt(10);
  await lawn.run.done;
  await tickAt(11);
  expect(rig.events('valve.watchdog')).toEqual([
    expect.objectContaining({ zone: 'master:well_pump', closed: false }),
  ]);
  const stops = () => commands.filter((c) => c.endsWith('stop master:well_pump'));
  for (let s = 12; s < 400 && stops().length < 2; s += 5) await tickAt(s);
  expect(stops()).toHaveLength(2);
  expect(rig.events('valve.watchdog').at(-1)).toMatchObject({ zone: 'master:well_pump', closed: true });
});

it('stop_all closes the pump with everything else', async () => {
  await rigWith([PUMP]);
  await rig.dispatcher.run({ zone: 'lawn', seconds: 60, requester: 'manual' });
  await rig.dispatcher.stopAll();
  commands = [];
  await tickAt(200);
  expect(commands).toEqual([]); // nothing left to close
});

describe('[[masters]] validation', () => {
  it('names each mistake', () => {
    useBuiltinKinds();
    const doc = validDoc();
    const zone = Object.keys(doc.zones as object)[0] as string;
    const controller = ((doc.controllers as { id: string }[])[0] as { id: string }).id;
    const codes = (masters: unknown[]) =>
      validateDocument({ ...doc, masters } as typeof doc, {}).report.errors.map((e) => [e.code, e.path]);
    const ok = { name: 'pump', controller_id: controller, station: 'switch.pump', zones: [zone] };
    expect(codes([ok])).toEqual([]);
    expect(codes([ok, ok])).toEqual([['master_name_duplicate', '$.masters[1].name']]);
    expect(codes([{ ...ok, controller_id: 'nope' }])).toEqual([
      ['master_controller_unknown', '$.masters[0].controller_id'],
    ]);
    expect(codes([{ ...ok, zones: ['nowhere'] }])).toEqual([
      ['master_zone_unknown', '$.masters[0].zones[0]'],
    ]);
    expect(codes([{ ...ok, for_controller: controller }])).toEqual([['master_serves', '$.masters[0]']]);
    expect(codes([{ ...ok, zones: null }])).toEqual([['master_serves', '$.masters[0]']]);
    expect(codes([{ ...ok, lead_s: 90 }]).map(([, path]) => path)).toEqual(['$.masters[0].lead_s']);
  });
});

describe('a run resumed at boot', () => {
  /** A `running` row as a restart leaves it, and the dispatcher told to track it on (reconcile.ts does this). */
  function resumeLawn(startedAgo: number, seconds: number) {
    const startEpoch = RIG_T0 - startedAgo;
    const rowId = rig.ledger.intend({
      session_id: 'sched-2026-07-15-lawn',
      zone: 'lawn',
      start_epoch: startEpoch,
      duration_s: seconds,
      source: 'dry_run',
      controller_id: 'valves',
      cycle_index: null,
      cycle_count: null,
      note: null,
    });
    rig.ledger.started(rowId);
    return rig.dispatcher.resume(
      {
        rowId,
        zone: 'lawn',
        route: rig.route('lawn'),
        sessionId: 'sched-2026-07-15-lawn',
        source: 'dry_run',
        startEpoch,
        seconds,
      },
      null,
    );
  }

  it('reopens its pump at once (no lead: the zone is open) and closes it its lag after the zone ends', async () => {
    await rigWith([PUMP]);
    const run = resumeLawn(10, 60);
    await settle();
    // 50 s left of the zone plus the 20 s lag, commanded now: a self-timed relay closes it even if we die.
    expect(commands).toEqual(['0 run master:well_pump 70']);
    await tickAt(50);
    await run.done;
    await tickAt(69);
    expect(commands).toHaveLength(1);
    await tickAt(70);
    expect(commands).toEqual(['0 run master:well_pump 70', '70 stop master:well_pump']);
  });

  it('a pump that cannot reopen closes the zone: no zone runs without its pump', async () => {
    await rigWith([PUMP]);
    const run = jest.mocked(rig.manager.run).getMockImplementation();
    jest.spyOn(rig.manager, 'run').mockImplementation(async (route: ZoneRoute, seconds: number) => {
      if (route.zone.startsWith('master:')) throw new Error('relay offline');
      return run?.(route, seconds);
    });
    const resumed = resumeLawn(10, 60);
    await settle();
    expect(await resumed.done).toBe('aborted');
    expect(commands).toEqual(['0 stop lawn']);
    expect(rig.rows('lawn')[0]).toMatchObject({ status: 'aborted' });
    expect(rig.rows('lawn')[0]?.note).toMatch(
      /closed at boot: master "well_pump" did not open: relay offline/,
    );
    expect(rig.dispatcher.activeRuns().size).toBe(0);
  });

  it("a resumed pump whose close fails is the watchdog's until it closes", async () => {
    await rigWith([{ ...PUMP, lag_s: 0 }]);
    const stop = jest.mocked(rig.manager.stopZone).getMockImplementation();
    let failures = 1;
    jest.spyOn(rig.manager, 'stopZone').mockImplementation(async (route: ZoneRoute) => {
      if (route.zone.startsWith('master:') && failures-- > 0) {
        commands.push(`${at()} stop ${route.zone}`);
        throw new Error('relay busy');
      }
      return stop?.(route) ?? 'zone';
    });
    const run = resumeLawn(10, 20);
    await settle();
    await tickAt(10);
    await run.done;
    await tickAt(11);
    const stops = () => commands.filter((c) => c.endsWith('stop master:well_pump'));
    for (let s = 12; s < 400 && stops().length < 2; s += 5) await tickAt(s);
    expect(stops()).toHaveLength(2);
    expect(rig.events('valve.watchdog').at(-1)).toMatchObject({ zone: 'master:well_pump', closed: true });
  });
});
