import { OPENDOOR_MD5, OpenSprinklerPeer } from '../../helpers/opensprinkler-peer';
import { ManualClock } from '../../../server/src/core/clock';
import { dispatchRig, RIG_T0, RIG_T0_MS, span, type DispatchRig } from '../../helpers/dispatch-rig';
import { LoopbackPeer, json } from '../../helpers/loopback-peer';
import { tempStore } from '../../store/temp-db';

/**
 * Run records follow the controller's evidence (issue 17), against the
 * OpenSprinkler peer that answers as firmware 2.2.1 does, on a manual clock:
 * a station closed early at the controller, a controller restart mid-run, a
 * readback outage, a Raincheck stop, a normal end, and a fire-and-forget
 * board. In each case the run ledger credits exactly the observed water: the
 * applied-water union of the rows (engine/applied-water.ts, the function the
 * soil ledger reads) equals the seconds the device's own log (`lrun`) or the
 * readings prove, and `watering.finished` announces the same.
 */

const stores = tempStore();
const ZONES = {
  front_lawn: { controller_station: '1', sprinkler_type: 'spray', area_sqft: 500 },
  back_beds: { controller_station: '2', sprinkler_type: 'drip' },
};

let clock: ManualClock;
let peer: OpenSprinklerPeer;
let rig: DispatchRig;

async function openSprinklerRig(): Promise<void> {
  rig = await dispatchRig(stores.store(), {
    controllers: [
      {
        id: 'os',
        kind: 'opensprinkler',
        default: true,
        config: { host: peer.host, password_md5: OPENDOOR_MD5, poll_interval_s: 3600, timeout_s: 1 },
      },
    ],
    zones: ZONES,
    clock,
  });
}

beforeEach(async () => {
  clock = new ManualClock(RIG_T0_MS);
  peer = await new OpenSprinklerPeer({ clock }).start();
  await openSprinklerRig();
});

afterEach(async () => {
  await rig.stop();
  await peer.close();
});

function requestRow(zone = 'front_lawn') {
  return rig.rows(zone).find((r) => r.source === 'manual');
}

function observedRow(zone = 'front_lawn') {
  return rig.rows(zone).find((r) => r.source === 'ha_refresher');
}

describe('a station closed at the controller before its planned end', () => {
  it('is aborted with the seconds seen open, and credits exactly what the firmware logged', async () => {
    await rig.dispatcher.run({ zone: 'front_lawn', seconds: 14, requester: 'manual' });
    await rig.read('front_lawn');
    rig.at(4);
    await rig.read('front_lawn');
    rig.at(8);
    expect(peer.closeAtDevice(0)).toBe(true); // its app, its button
    await rig.read('front_lawn');

    const [, , loggedSeconds] = peer.device.settings.lrun;
    expect(loggedSeconds).toBe(8);
    expect(requestRow()).toMatchObject({ status: 'aborted', duration_s: 8, evidence: 'observed' });
    expect(requestRow()?.note).toMatch(/closed at the controller 6 s before its planned end/);
    expect(span(observedRow())).toEqual([0, 8]);
    expect(observedRow()).toMatchObject({ status: 'completed', evidence: 'observed' });
    expect(rig.credited('front_lawn')).toBe(loggedSeconds);
    expect(rig.events('watering.finished')).toEqual([
      expect.objectContaining({ zone: 'front_lawn', status: 'aborted', duration_s: 8, source: 'manual' }),
    ]);
  });
});

describe("the controller's run log caps the credited water (OpenSprinkler /jl)", () => {
  /** Opens station 1 at the device itself (a program, its app), bypassing Raincheck. */
  async function openAtDevice(seconds: number): Promise<void> {
    const res = await fetch(`${peer.http.baseUrl}/cm?pw=${OPENDOOR_MD5}&sid=0&en=1&t=${seconds}`);
    expect(await res.json()).toMatchObject({ result: 1 });
  }

  it('a run started at the device and closed between two polls is credited what the log says, not until the next poll', async () => {
    await openAtDevice(60);
    await rig.read('front_lawn');
    rig.at(8);
    expect(peer.closeAtDevice(0)).toBe(true);
    rig.at(12); // the next poll
    await rig.read('front_lawn');

    expect(peer.log).toEqual([[99, 0, 8, expect.any(Number)]]);
    expect(observedRow()).toMatchObject({ status: 'completed', duration_s: 8, evidence: 'observed' });
    expect(observedRow()?.note).toMatch(/the controller's log says 8 s open/);
    // 8 s of spray (catalog 38.1 mm/h): the water follows the trimmed time.
    expect(observedRow()?.applied_mm).toBeCloseTo((8 / 3600) * 38.1, 2);
    expect(rig.credited('front_lawn')).toBe(8);
  });

  it("Raincheck's own run closed at the device between polls: request and observed rows both stop at the logged seconds", async () => {
    await rig.dispatcher.run({ zone: 'front_lawn', seconds: 14, requester: 'manual' });
    await rig.read('front_lawn');
    rig.at(8);
    expect(peer.closeAtDevice(0)).toBe(true);
    rig.at(11);
    await rig.read('front_lawn');

    expect(requestRow()).toMatchObject({ status: 'aborted', duration_s: 8 });
    expect(span(observedRow())).toEqual([0, 8]);
    expect(rig.credited('front_lawn')).toBe(8);
  });

  it('never adds water: a log that holds more than the readings saw changes nothing, and logging off leaves the readings', async () => {
    await rig.dispatcher.run({ zone: 'front_lawn', seconds: 10, requester: 'manual' });
    await rig.read('front_lawn');
    rig.at(10);
    await rig.read('front_lawn');
    expect(requestRow()).toMatchObject({ status: 'completed', duration_s: 10 });
    expect(rig.credited('front_lawn')).toBe(10);

    peer.device.options.lg = 0;
    await rig.read('back_beds'); // the adapter learns the option from a reading
    rig.at(100);
    await rig.dispatcher.run({ zone: 'back_beds', seconds: 20, requester: 'manual' });
    await rig.read('back_beds');
    rig.at(105);
    expect(peer.closeAtDevice(1)).toBe(true);
    rig.at(110);
    await rig.read('back_beds');
    expect(peer.log.filter(([, sid]) => sid === 1)).toEqual([]);
    expect(requestRow('back_beds')).toMatchObject({ status: 'aborted', duration_s: 10 });
  });
});

describe('a controller restart mid-run', () => {
  it('ends the credited water at the last reading that saw the station open (the boot closed it)', async () => {
    await rig.dispatcher.run({ zone: 'front_lawn', seconds: 30, requester: 'manual' });
    await rig.read('front_lawn');
    rig.at(2);
    await rig.read('front_lawn');
    rig.at(3);
    peer.fault = 'hang'; // rebooting: no answer
    await rig.read('front_lawn');
    expect(rig.manager.zoneStates().get('front_lawn')).toEqual({
      running: false,
      running_known: false,
      observed_epoch: RIG_T0 + 2,
    });
    peer.reboot();
    peer.fault = 'none';
    rig.at(10);
    await rig.read('front_lawn');

    expect(requestRow()).toMatchObject({ status: 'aborted', duration_s: 2 });
    expect(requestRow()?.note).toMatch(/controller restart/);
    expect(span(observedRow())).toEqual([0, 2]);
    expect(rig.credited('front_lawn')).toBe(2);
    expect(rig.events('controller.failure')).toEqual([
      expect.objectContaining({ controller_id: 'os', action: 'readback', code: 'controller_unreachable' }),
    ]);
  });

  it('tells a restart between two readings from the boot time the device reports', async () => {
    await rig.dispatcher.run({ zone: 'front_lawn', seconds: 30, requester: 'manual' });
    await rig.read('front_lawn');
    rig.at(5);
    peer.reboot(); // a power blip between polls: no failed reading at all
    rig.at(9);
    await rig.read('front_lawn');

    expect(requestRow()).toMatchObject({ status: 'aborted', duration_s: 0 });
    expect(requestRow()?.note).toMatch(/controller restart/);
    expect(rig.credited('front_lawn')).toBe(0);
  });
});

describe('a readback outage', () => {
  it('turns running_known false (keeping the last good reading) and credits only what was seen open', async () => {
    await rig.dispatcher.run({ zone: 'front_lawn', seconds: 30, requester: 'manual' });
    await rig.read('front_lawn');
    rig.at(6);
    await rig.read('front_lawn');
    expect(rig.manager.zoneStates().get('front_lawn')).toEqual({
      running: true,
      running_known: true,
      observed_epoch: RIG_T0 + 6,
    });
    peer.fault = 'http500';
    rig.at(10);
    await rig.read('front_lawn');
    expect(rig.manager.zoneStates().get('front_lawn')).toEqual({
      running: false,
      running_known: false,
      observed_epoch: RIG_T0 + 6,
    });
    rig.at(20);
    await rig.read('front_lawn'); // still failing: each failed reading is announced (metrics count them, notify coalesces)
    expect(rig.events('controller.failure')).toHaveLength(2);

    // The device's own timer closed it at 30 s; the readings come back after that.
    peer.fault = 'none';
    rig.at(40);
    await rig.read('front_lawn');
    expect(requestRow()).toMatchObject({ status: 'aborted', duration_s: 6, evidence: 'observed' });
    expect(requestRow()?.note).toMatch(
      /readback was lost during the run: only the 6 s observed open are credited/,
    );
    expect(span(observedRow())).toEqual([0, 6]);
    expect(rig.credited('front_lawn')).toBe(6);
  });

  it('records the run once its grace has passed even if the readings never come back', async () => {
    await rig.dispatcher.run({ zone: 'front_lawn', seconds: 30, requester: 'manual' });
    await rig.read('front_lawn');
    rig.at(12);
    await rig.read('front_lawn');
    await peer.close();
    rig.at(15);
    await rig.read('front_lawn');
    // The grace is two of the controller's confirmation times (its poll interval, an hour here).
    rig.at(30 + 2 * 3600 - 1);
    rig.dispatcher.tick();
    expect(requestRow()?.status).toBe('running');
    rig.at(30 + 2 * 3600);
    rig.dispatcher.tick();
    expect(requestRow()).toMatchObject({ status: 'aborted', duration_s: 12 });
    rig.at(12 + 600);
    rig.observer.tick();
    expect(span(observedRow())).toEqual([0, 12]);
    expect(rig.credited('front_lawn')).toBe(12);
  });
});

describe('a run that ends as planned, and one Raincheck stops', () => {
  it('completes with the planned seconds when a reading sees the station closed at its end', async () => {
    await rig.dispatcher.run({ zone: 'front_lawn', seconds: 10, requester: 'manual' });
    await rig.read('front_lawn');
    rig.at(5);
    await rig.read('front_lawn');
    rig.at(10);
    rig.dispatcher.tick();
    expect(requestRow()?.status).toBe('running'); // self-timed: waits for the reading
    await rig.read('front_lawn');

    expect(requestRow()).toMatchObject({ status: 'completed', duration_s: 10, evidence: 'observed' });
    expect(requestRow()?.applied_mm).toBeGreaterThan(0);
    expect(span(observedRow())).toEqual([0, 10]);
    expect(rig.credited('front_lawn')).toBe(10);
    expect(rig.events('watering.finished')[0]).toMatchObject({ status: 'completed', duration_s: 10 });
  });

  it('caps a late closed reading at the planned end (the timer closed it there)', async () => {
    await rig.dispatcher.run({ zone: 'front_lawn', seconds: 10, requester: 'manual' });
    await rig.read('front_lawn');
    rig.at(17);
    await rig.read('front_lawn');
    expect(requestRow()).toMatchObject({ status: 'completed', duration_s: 10 });
    expect(span(observedRow())).toEqual([0, 10]);
  });

  it('aborts a run Raincheck stops with the seconds until the stop, and says so', async () => {
    await rig.dispatcher.run({ zone: 'back_beds', seconds: 60, requester: 'manual' });
    await rig.read('back_beds');
    rig.at(7);
    await rig.dispatcher.stop('back_beds');
    await rig.read('back_beds');
    expect(requestRow('back_beds')).toMatchObject({
      status: 'aborted',
      duration_s: 7,
      note: 'stopped on request',
    });
    expect(span(observedRow('back_beds'))).toEqual([0, 7]);
    expect(rig.credited('back_beds')).toBe(7);
  });

  it('refuses a master station with the reason, and writes a skipped row', async () => {
    peer.device.options.mas = 2;
    await rig.read('front_lawn');
    await expect(
      rig.dispatcher.run({ zone: 'back_beds', seconds: 60, requester: 'manual' }),
    ).rejects.toMatchObject({
      code: 'controller_unsupported',
    });
    expect(requestRow('back_beds')).toMatchObject({ status: 'skipped' });
    expect(requestRow('back_beds')?.skip_reason).toMatch(/master station/);
  });
});

describe('a fire-and-forget board', () => {
  it('records the commanded run and says it was not observed', async () => {
    await rig.stop();
    const board = await new LoopbackPeer(() => json(200, { ok: true })).start();
    try {
      rig = await dispatchRig(stores.store(), {
        controllers: [
          {
            id: 'board',
            kind: 'http_generic',
            default: true,
            config: {
              run: { url: `${board.baseUrl}/on/{station}?t={seconds}` },
              stop: { url: `${board.baseUrl}/off/{station}` },
            },
          },
        ],
        zones: { front_lawn: { controller_station: '1', sprinkler_type: 'spray' } },
        clock,
      });
      await rig.dispatcher.run({
        zone: 'front_lawn',
        seconds: 20,
        requester: 'schedule',
        sessionId: 'sched-x',
      });
      rig.at(20);
      rig.dispatcher.tick();
      const row = rig.rows('front_lawn')[0];
      expect(row).toMatchObject({
        status: 'completed',
        duration_s: 20,
        evidence: 'commanded',
        source: 'ha_refresher',
      });
      expect(row?.note).toMatch(/not observed/);
      expect(rig.credited('front_lawn')).toBe(20);
    } finally {
      await board.close();
    }
  });
});

describe('watering.finished', () => {
  it('announces a cycled job once, after its last segment, with the seconds the ledger credits', async () => {
    const session = 'sched-2026-07-15-front_lawn';
    await rig.dispatcher.run({
      zone: 'front_lawn',
      seconds: 10,
      requester: 'schedule',
      sessionId: session,
      cycle: { index: 1, count: 2 },
    });
    await rig.read('front_lawn');
    rig.at(10);
    await rig.read('front_lawn');
    expect(rig.events('watering.finished')).toEqual([]);

    rig.at(100);
    await rig.dispatcher.run({
      zone: 'front_lawn',
      seconds: 10,
      requester: 'schedule',
      sessionId: session,
      cycle: { index: 2, count: 2 },
    });
    await rig.read('front_lawn');
    rig.at(104);
    expect(peer.closeAtDevice(0)).toBe(true);
    await rig.read('front_lawn');

    expect(rig.events('watering.finished')).toEqual([
      {
        zone: 'front_lawn',
        session_id: session,
        source: 'ha_refresher',
        status: 'aborted',
        start_epoch: RIG_T0,
        end_epoch: RIG_T0 + 104,
        duration_s: 14,
        applied_mm: expect.any(Number),
        volume_gal: expect.any(Number),
        note: expect.stringContaining('closed at the controller 6 s before its planned end'),
      },
    ]);
    expect(rig.credited('front_lawn')).toBe(14);
  });
});
