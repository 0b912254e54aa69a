import { ManualClock } from '../../../server/src/core/clock';
import { dispatchRig, RIG_T0, RIG_T0_MS, type DispatchRig } from '../../helpers/dispatch-rig';
import { EsphomePeer } from '../../helpers/esphome-peer';
import { OPENDOOR_MD5, OpenSprinklerPeer } from '../../helpers/opensprinkler-peer';
import { tempStore } from '../../store/temp-db';

/**
 * No valve left open: Raincheck's software watchdog behind the device-side
 * limits, against an ESPHome web_server peer (the service owns the shutoff)
 * and an OpenSprinkler peer (self-timed), on a manual clock. A relay that
 * accepts its stop but stays on is closed again a grace later; a controller
 * that refuses stops gets them again with back-off until one is accepted; a
 * self-timed valve still reported open past its end is closed. Each closing
 * is announced as `valve.watchdog`.
 */

const stores = tempStore();
let clock: ManualClock;
let rig: DispatchRig | null = null;
const closers: { close(): Promise<void> }[] = [];

beforeEach(() => {
  clock = new ManualClock(RIG_T0_MS);
});

afterEach(async () => {
  await rig?.stop();
  rig = null;
  for (const peer of closers.splice(0)) await peer.close();
});

async function esphomeRig(): Promise<{ rig: DispatchRig; esp: EsphomePeer }> {
  const esp = await new EsphomePeer({
    entities: [
      { domain: 'switch', name: 'Front Lawn' },
      { domain: 'switch', name: 'Back Beds' },
    ],
    clock,
  }).start();
  closers.push(esp);
  rig = await dispatchRig(stores.store(), {
    controllers: [
      {
        id: 'esp',
        kind: 'esphome_native',
        default: true,
        config: { base_url: esp.baseUrl, poll_interval_s: 10, timeout_s: 1 },
      },
    ],
    zones: {
      front_lawn: { controller_station: 'switch/Front Lawn', sprinkler_type: 'rotor' },
      back_beds: { controller_station: 'switch/Back Beds', sprinkler_type: 'drip' },
    },
    clock,
  });
  return { rig, esp };
}

function turnOffs(esp: EsphomePeer): number {
  return esp.requests.filter((r) => r.url.endsWith('/turn_off')).length;
}

describe('a relay that stays on after its stop was accepted', () => {
  it('is stopped again a grace later, and announced once it is reported closed', async () => {
    const { rig, esp } = await esphomeRig();
    esp.stuck.add('Front Lawn');
    await rig.dispatcher.run({ zone: 'front_lawn', seconds: 10, requester: 'manual' });
    await rig.read('front_lawn');
    rig.at(10);
    rig.dispatcher.tick();
    const request = () => rig.rows('front_lawn').find((r) => r.source === 'manual');
    await until(() => request()?.status !== 'running');
    await rig.read('front_lawn');
    expect(request()).toMatchObject({
      status: 'completed',
      duration_s: 10,
    });
    expect(turnOffs(esp)).toBe(1);
    expect(rig.dispatcher.busyControllers()).toEqual(new Set(['esp'])); // the valve is still open

    // The grace (30 s: twice the 10 s poll, at least 30) runs from the accepted stop.
    rig.at(39);
    await rig.read('front_lawn');
    expect(turnOffs(esp)).toBe(1);
    rig.at(40);
    await rig.read('front_lawn');
    await until(() => turnOffs(esp) === 2);
    // The stop was accepted: the watch is back to confirming, its grace running from now (40 s).
    await until(() => rig.dispatcher.watchdog.closingOn('esp') === null);
    expect(rig.events('valve.watchdog')).toEqual([]);

    esp.stuck.clear();
    rig.at(70);
    await rig.read('front_lawn');
    await until(() => turnOffs(esp) === 3);
    await rig.read('front_lawn');
    expect(esp.isOn('switch', 'Front Lawn')).toBe(false);
    expect(rig.events('valve.watchdog')).toEqual([
      {
        controller_id: 'esp',
        zone: 'front_lawn',
        planned_end_epoch: RIG_T0 + 10,
        epoch: RIG_T0 + 70,
        closed: true,
        attempts: 2,
        by: 'watchdog',
      },
    ]);
    // The hardware row holds the water that really ran: until the reading that saw it closed.
    const observed = rig.rows('front_lawn').find((r) => r.source === 'ha_refresher');
    expect(observed).toMatchObject({ status: 'completed', duration_s: 70 });
    expect(rig.credited('front_lawn')).toBe(70);
    expect(rig.dispatcher.busyControllers()).toEqual(new Set());
  }, 20_000);
});

describe('a controller that refuses the stop', () => {
  it('gets the stop again with back-off (5, 10, 20 s...) until one is accepted', async () => {
    const { rig, esp } = await esphomeRig();
    await rig.dispatcher.run({ zone: 'front_lawn', seconds: 10, requester: 'manual' });
    rig.at(8);
    await rig.read('front_lawn');
    esp.hang = true; // unreachable: stops and reads time out
    rig.at(10);
    rig.dispatcher.tick();
    await until(() => rig.events('valve.watchdog').length === 1);
    expect(rig.events('valve.watchdog')[0]).toMatchObject({ closed: false, attempts: 1, by: 'watchdog' });
    const row = rig.rows('front_lawn').find((r) => r.source === 'manual');
    expect(row?.note).toMatch(/the stop at its planned end failed/);
    // Its valve may still be open: the one-at-a-time controller is busy with it.
    await expect(
      rig.dispatcher.run({ zone: 'back_beds', seconds: 60, requester: 'manual' }),
    ).rejects.toMatchObject({ status: 409, code: 'controller_busy', extra: { running_zone: 'front_lawn' } });

    const attemptsAt = async (seconds: number): Promise<number> => {
      rig.at(seconds);
      rig.dispatcher.tick();
      await new Promise((resolve) => setTimeout(resolve, 1200)); // a hanging stop times out in 1 s
      return esp.requests.filter((r) => r.url.endsWith('/turn_off')).length;
    };
    expect(await attemptsAt(14)).toBe(1);
    expect(await attemptsAt(15)).toBe(2);
    expect(await attemptsAt(24)).toBe(2);
    expect(await attemptsAt(25)).toBe(3);
    esp.hang = false;
    expect(await attemptsAt(44)).toBe(3);
    expect(await attemptsAt(45)).toBe(4);
    expect(esp.isOn('switch', 'Front Lawn')).toBe(false);
    await rig.read('front_lawn');
    expect(rig.events('valve.watchdog').at(-1)).toMatchObject({ closed: true, attempts: 4 });
  }, 30_000);
});

describe('a self-timed valve still open past its end', () => {
  it('is closed by the watchdog a grace after the planned end', async () => {
    const peer = await new OpenSprinklerPeer({ clock }).start();
    closers.push(peer);
    rig = await dispatchRig(stores.store(), {
      controllers: [
        {
          id: 'os',
          kind: 'opensprinkler',
          default: true,
          config: { host: peer.host, password_md5: OPENDOOR_MD5, poll_interval_s: 10 },
        },
      ],
      zones: { front_lawn: { controller_station: '1', sprinkler_type: 'spray' } },
      clock,
    });
    await rig.dispatcher.run({ zone: 'front_lawn', seconds: 20, requester: 'manual' });
    await rig.read('front_lawn');
    // The station is still on after our run's end (here a second run queued on it at that
    // second; to Raincheck no different from a device timer that did not fire).
    rig.at(20);
    await fetch(`${peer.http.baseUrl}/cm?pw=${OPENDOOR_MD5}&sid=0&en=1&t=600`);
    await rig.read('front_lawn');
    rig.at(49);
    await rig.read('front_lawn');
    expect(peer.isOpen(0)).toBe(true);
    rig.at(50);
    await rig.read('front_lawn');
    await rig.read('front_lawn');
    expect(peer.isOpen(0)).toBe(false);
    expect(rig.rows('front_lawn').find((r) => r.source === 'manual')).toMatchObject({
      status: 'completed',
      duration_s: 20,
    });
    expect(rig.events('valve.watchdog')).toEqual([
      expect.objectContaining({ zone: 'front_lawn', closed: true, planned_end_epoch: RIG_T0 + 20 }),
    ]);
  });
});

async function until(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
