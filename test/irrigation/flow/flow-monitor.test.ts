import { ManualClock } from '../../../server/src/core/clock';
import { dispatchRig, RIG_T0, RIG_T0_MS, type DispatchRig } from '../../helpers/dispatch-rig';
import { OPENDOOR_MD5, OpenSprinklerPeer } from '../../helpers/opensprinkler-peer';
import { tempStore } from '../../store/temp-db';

/**
 * Metered water and the learnt flow baseline, end to end on a manual clock:
 * the OpenSprinkler peer's flow sensor (sensor 1 of type flow, 1 gallon per
 * click) read through the controller, bound as the controller's flow meter.
 * A run's volume and mean flow land in its rows (`metered`), the zone's
 * baseline is learnt from its last runs, and each alarm (high, low, no flow,
 * a leak that stops the zone) is stored, announced and shown.
 */

const stores = tempStore();
let clock: ManualClock;
let peer: OpenSprinklerPeer;
let rig: DispatchRig;
/** Seconds since T0 where the next run starts (runs are a day apart). */
let day = 0;

beforeEach(async () => {
  clock = new ManualClock(RIG_T0_MS);
  peer = await new OpenSprinklerPeer({ clock }).start();
  peer.device.options.sn1t = 2; // sensor 1 is a flow sensor
  peer.device.options.fpr0 = 100; // 1.00 gallon per click
  day = 0;
  rig = await dispatchRig(stores.store(), {
    controllers: [
      {
        id: 'os',
        kind: 'opensprinkler',
        default: true,
        config: {
          host: peer.host,
          password_md5: OPENDOOR_MD5,
          poll_interval_s: 3600,
          flow_pulse_unit: 'gal',
        },
        flow_meter: { kind: 'controller' },
      },
    ],
    zones: { front_lawn: { controller_station: '1', sprinkler_type: 'rotor', area_sqft: 500 } },
    clock,
    flow: true,
  });
});

afterEach(async () => {
  await rig.stop();
  await peer.close();
});

/** One 10-minute run at `gpm` (clicks per second x 60), read at its start, 2 and 5 minutes in, and its end. */
async function meteredRun(gpm: number): Promise<void> {
  day += 86_400;
  peer.flowClicksPerSecond[0] = gpm / 60;
  rig.at(day);
  await rig.dispatcher.run({
    zone: 'front_lawn',
    seconds: 600,
    requester: 'schedule',
    sessionId: `sched-${day}`,
  });
  for (const offset of [0, 120, 300, 600]) {
    rig.at(day + offset);
    await rig.read('front_lawn');
  }
}

function lastRequestRow() {
  return rig.rows('front_lawn').filter((r) => r.source === 'ha_refresher' && r.session_id === `sched-${day}`);
}

function zoneFlow() {
  const flow = rig.flow?.snapshotFlow({
    rate_gpm: null,
    rate_source_id: null,
    total_gal_today: null,
    total_source_id: null,
  });
  return (flow?.flow.zones as Record<string, unknown>[])[0];
}

describe('metered water', () => {
  it('records the volume and mean flow the meter measured, and the depth it makes over the zone', async () => {
    await meteredRun(6);
    const rows = lastRequestRow();
    expect(rows).toHaveLength(2); // the request row and the observed hardware row
    for (const row of rows) {
      expect(row).toMatchObject({
        status: 'completed',
        duration_s: 600,
        evidence: 'metered',
        volume_gal: 60,
        mean_flow_gpm: 6,
      });
      // 60 gal = 227.1 L over 500 sq ft (46.45 m2): 4.89 mm.
      expect(row.applied_mm).toBeCloseTo(4.89, 2);
    }
    expect(rig.events('flow.reading').length).toBeGreaterThanOrEqual(4);
    expect(rig.events('flow.reading')[0]).toMatchObject({
      meter: 'controller:os',
      source_id: 'os',
      rate_gpm: 0,
    });
  });

  it('learns the baseline from the last runs (median) and says when it is still learning', async () => {
    await meteredRun(6);
    await meteredRun(6.4);
    expect(zoneFlow()).toMatchObject({ baseline_gpm: null, baseline_runs: 2, learning: true, alarm: null });
    await meteredRun(5.8);
    expect(zoneFlow()).toMatchObject({ baseline_gpm: 6, baseline_runs: 3, learning: false });
    await meteredRun(6.2);
    await meteredRun(5.9);
    expect(zoneFlow()).toMatchObject({
      baseline_gpm: 6,
      baseline_runs: 5,
      meter: 'controller:os',
      source_id: 'os',
    });
    expect(rig.events('flow.alarm')).toEqual([]);
  });
});

describe('flow alarms against the learnt baseline (6 gal/min)', () => {
  beforeEach(async () => {
    for (const gpm of [6, 6.2, 5.8]) await meteredRun(gpm);
  });

  it('alarms high (x1.3) without stopping below the leak factor', async () => {
    await meteredRun(8.4);
    expect(rig.events('flow.alarm')).toEqual([
      {
        zone: 'front_lawn',
        controller_id: 'os',
        kind: 'high',
        rate_gpm: 8.4,
        baseline_gpm: 6,
        stopped: false,
        epoch: RIG_T0 + day + 120,
      },
    ]);
    expect(lastRequestRow()[0]).toMatchObject({ status: 'completed', duration_s: 600 });
    expect(zoneFlow()?.alarm).toMatchObject({ kind: 'high', rate_gpm: 8.4, stopped: false });
    expect(rig.store.flowAlarms.listSince(0)).toEqual([
      expect.objectContaining({
        kind: 'high',
        session_id: `sched-${day}`,
        note: expect.stringContaining('1.4x'),
      }),
    ]);
  });

  it('alarms low (x0.7: a clog, low pressure)', async () => {
    await meteredRun(3);
    expect(rig.events('flow.alarm').map((a) => [a.kind, a.rate_gpm])).toEqual([['low', 3]]);
  });

  it('alarms no flow when the valve is open and nothing flows', async () => {
    await meteredRun(0);
    expect(rig.events('flow.alarm')).toEqual([
      expect.objectContaining({ kind: 'none', rate_gpm: 0, stopped: false }),
    ]);
    // Nothing flowed: the meter's zero volume is the run's water.
    expect(lastRequestRow()[0]).toMatchObject({ evidence: 'metered', volume_gal: 0, applied_mm: 0 });
  });

  it('stops the zone on a leak above the stop factor (x2), and the row says why', async () => {
    day += 86_400;
    peer.flowClicksPerSecond[0] = 15 / 60;
    rig.at(day);
    await rig.dispatcher.run({
      zone: 'front_lawn',
      seconds: 600,
      requester: 'schedule',
      sessionId: `sched-${day}`,
    });
    await rig.read('front_lawn');
    rig.at(day + 90);
    await rig.read('front_lawn');
    for (let i = 0; i < 50 && peer.isOpen(0); i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(peer.isOpen(0)).toBe(false);
    expect(rig.events('flow.alarm')).toEqual([
      expect.objectContaining({ kind: 'high', rate_gpm: 15, stopped: true }),
    ]);
    const request = lastRequestRow().find((r) => r.note?.startsWith('stopped by a flow alarm'));
    expect(request).toMatchObject({ status: 'aborted', duration_s: 90, volume_gal: 22.5, mean_flow_gpm: 15 });
    expect(request?.note).toMatch(
      /high flow 15 gal\/min \(2\.5x its usual 6 gal\/min\): a leak or a broken head/,
    );
  });

  it('judges nothing before settle_s (pipes fill, pressure settles)', async () => {
    day += 86_400;
    peer.flowClicksPerSecond[0] = 0;
    rig.at(day);
    await rig.dispatcher.run({
      zone: 'front_lawn',
      seconds: 600,
      requester: 'schedule',
      sessionId: `sched-${day}`,
    });
    rig.at(day + 59);
    await rig.read('front_lawn');
    expect(rig.events('flow.alarm')).toEqual([]);
    rig.at(day + 60);
    await rig.read('front_lawn');
    expect(rig.events('flow.alarm').map((a) => a.kind)).toEqual(['none']);
  });
});
