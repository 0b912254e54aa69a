import pino from 'pino';
import { esphomeKind, parseEsphomeStation } from '../../server/src/controllers/adapters/esphome';
import { ControllerError } from '../../server/src/controllers/errors';
import type { ControllerAdapter, StationBinding } from '../../server/src/controllers/types';
import { ManualClock } from '../../server/src/core/clock';
import { EsphomePeer, type EsphomePeerOptions } from '../helpers/esphome-peer';
import { refusedBaseUrl, rejection } from '../helpers/loopback-peer';
import { httpFetch } from '../../server/src/core/http-fetch';

/**
 * The ESPHome web_server adapter against a loopback device: switch and valve
 * commands in both entity URL forms, readback from the GET payloads, per-zone
 * and stop-all, and the error mapping (unknown entity 502, auth 424, no zone
 * scan 501), with the password kept out of every message.
 */

const START_MS = Date.UTC(2025, 5, 1, 6, 0, 0);
const PASSWORD = 'esp-web-pass-91c3';
const ENTITIES: EsphomePeerOptions['entities'] = [
  { domain: 'switch', name: 'Front Lawn' },
  { domain: 'switch', name: 'Back Yard' },
  { domain: 'valve', name: 'Drip Line' },
];
const NAMED: StationBinding[] = [
  { zone: 'front', station: 'switch/Front Lawn' },
  { zone: 'back', station: 'switch/Back Yard' },
  { zone: 'drip', station: 'valve/Drip Line' },
];

let clock: ManualClock;
let peer: EsphomePeer;

async function startPeer(options: Partial<EsphomePeerOptions> = {}): Promise<EsphomePeer> {
  peer = await new EsphomePeer({ entities: ENTITIES, ...options }).start();
  return peer;
}

function adapter(
  overrides: Record<string, unknown> = {},
  stations: StationBinding[] = NAMED,
): ControllerAdapter {
  return esphomeKind.create({
    id: 'esp-1',
    config: esphomeKind.configSchema.parse({ base_url: peer.baseUrl, ...overrides }),
    logger: pino({ level: 'silent' }),
    clock,
    // The service gives adapters its node:http fetch (main.ts).
    fetch: httpFetch,
    stations,
    ha: null,
    notify: () => {},
  });
}

async function controllerError(promise: Promise<unknown>): Promise<ControllerError> {
  const err = await rejection(promise);
  expect(err).toBeInstanceOf(ControllerError);
  return err as ControllerError;
}

function posts(): string[] {
  return peer.requests.filter((r) => r.method === 'POST').map((r) => r.url);
}

beforeEach(() => {
  clock = new ManualClock(START_MS);
});

afterEach(async () => {
  await peer?.close();
});

describe('esphome commands', () => {
  it('turns a switch on by its URL-encoded name without sending the duration', async () => {
    await startPeer({ idFormat: 'name' });
    await adapter().runZone('switch/Front Lawn', 600);

    expect(posts()).toEqual(['/switch/Front%20Lawn/turn_on']);
    expect(peer.requests[0]?.body).toBe('');
    expect(peer.isOn('switch', 'Front Lawn')).toBe(true);
  });

  it('addresses legacy firmware by object id', async () => {
    await startPeer({ idFormat: 'legacy' });
    const esp = adapter({}, [{ zone: 'front', station: 'switch.front_lawn' }]);
    await esp.runZone('switch.front_lawn', 600);

    expect(posts()).toEqual(['/switch/front_lawn/turn_on']);
    expect((await esp.readStatus()).stations['switch.front_lawn']?.running).toBe(true);
  });

  it('opens and closes a valve, stopping only that zone', async () => {
    await startPeer();
    const esp = adapter();
    await esp.runZone('valve/Drip Line', 300);
    expect(peer.isOn('valve', 'Drip Line')).toBe(true);

    await expect(esp.stopZone('valve/Drip Line')).resolves.toBe('zone');
    expect(posts()).toEqual(['/valve/Drip%20Line/open', '/valve/Drip%20Line/close']);
    expect(peer.isOn('valve', 'Drip Line')).toBe(false);
  });

  it('turns a switch off to stop it', async () => {
    await startPeer();
    peer.setOn('switch', 'Back Yard', true);
    await expect(adapter().stopZone('switch/Back Yard')).resolves.toBe('zone');
    expect(posts()).toEqual(['/switch/Back%20Yard/turn_off']);
    expect(peer.isOn('switch', 'Back Yard')).toBe(false);
  });

  it('stop-all closes every bound station', async () => {
    await startPeer();
    peer.setOn('switch', 'Front Lawn', true);
    peer.setOn('valve', 'Drip Line', true);
    await adapter().stopAll();

    expect(posts().sort()).toEqual(
      ['/switch/Front%20Lawn/turn_off', '/switch/Back%20Yard/turn_off', '/valve/Drip%20Line/close'].sort(),
    );
    expect(peer.isOn('switch', 'Front Lawn')).toBe(false);
    expect(peer.isOn('valve', 'Drip Line')).toBe(false);
  });

  it('stop-all keeps closing past an unknown entity and then reports it', async () => {
    await startPeer();
    peer.setOn('valve', 'Drip Line', true);
    const stations = [{ zone: 'ghost', station: 'switch/Ghost' }, ...NAMED];
    const err = await controllerError(adapter({}, stations).stopAll());

    expect(err.status).toBe(502);
    expect(err.message).toContain('switch/Ghost');
    expect(peer.isOn('valve', 'Drip Line')).toBe(false);
    expect(posts()).toHaveLength(4);
  });

  it('reports what it is: service-timed, per-zone stop, concurrency from config', async () => {
    await startPeer();
    expect(adapter().capabilities).toEqual({
      per_zone_stop: true,
      state_readback: true,
      zone_scan: false,
      water_level: false,
      flow: false,
      concurrent_zones: false,
      self_timed: false,
      device_limit: false,
    });
    expect(adapter({ concurrent_zones: true }).capabilities.concurrent_zones).toBe(true);
  });
});

describe('esphome readback', () => {
  it('reads switches by value/state and valves by state', async () => {
    await startPeer();
    peer.setOn('switch', 'Front Lawn', true);
    peer.setOn('valve', 'Drip Line', true);
    clock.advance(42_000);

    const status = await adapter().readStatus();
    expect(status.observed_epoch).toBe(Math.floor(START_MS / 1000) + 42);
    expect(status.stations).toEqual({
      'switch/Front Lawn': { running: true, remaining_s: null },
      'switch/Back Yard': { running: false, remaining_s: null },
      'valve/Drip Line': { running: true, remaining_s: null },
    });
    expect(peer.requests.every((r) => r.method === 'GET')).toBe(true);
  });

  it('counts a valve that is still opening as running', async () => {
    await startPeer({ entities: [{ domain: 'valve', name: 'Drip Line', operation: 'OPENING' }] });
    const status = await adapter({}, [{ zone: 'drip', station: 'valve/Drip Line' }]).readStatus();
    expect(status.stations['valve/Drip Line']).toEqual({ running: true, remaining_s: null });
  });

  it('polls at poll_interval_s and confirms within it', async () => {
    await startPeer();
    const esp = adapter({ poll_interval_s: 15 });
    expect(esp.pollIntervalMs).toBe(15_000);
    expect(esp.confirmWithinS).toBe(15);
  });
});

describe('esphome error mapping', () => {
  it('maps an unknown entity to 502 controller_unreachable naming it', async () => {
    await startPeer();
    const err = await controllerError(adapter().runZone('switch/Side Strip', 60));
    expect(err.code).toBe('controller_unreachable');
    expect(err.status).toBe(502);
    expect(err.message).toContain('"switch/Side Strip"');
    expect(err.message).toContain('HTTP 404');
  });

  it('names the entity when the URL form does not match the firmware', async () => {
    await startPeer({ idFormat: 'legacy' });
    const err = await controllerError(adapter().readStatus());
    expect(err.status).toBe(502);
    expect(err.message).toContain('switch/Front Lawn');
  });

  it('sends basic auth when a username is set', async () => {
    await startPeer({ auth: { username: 'admin', password: PASSWORD } });
    await adapter({ username: 'admin', password: PASSWORD }).runZone('switch/Front Lawn', 60);
    expect(peer.isOn('switch', 'Front Lawn')).toBe(true);
  });

  it('maps a refused password to 424 controller_auth_failed without echoing it', async () => {
    await startPeer({ auth: { username: 'admin', password: PASSWORD } });
    const wrong = `${PASSWORD}-wrong`;
    const err = await controllerError(
      adapter({ username: 'admin', password: wrong }).runZone('switch/Front Lawn', 60),
    );
    expect(err.code).toBe('controller_auth_failed');
    expect(err.status).toBe(424);
    expect(err.message).not.toContain(wrong);
    expect(peer.isOn('switch', 'Front Lawn')).toBe(false);
  });

  it('maps missing credentials to 424 as well', async () => {
    await startPeer({ auth: { username: 'admin', password: PASSWORD } });
    const err = await controllerError(adapter().readStatus());
    expect(err.status).toBe(424);
  });

  it('maps a refused connection to 502 controller_unreachable', async () => {
    await startPeer();
    const err = await controllerError(
      adapter({ base_url: await refusedBaseUrl() }).runZone('switch/Front Lawn', 60),
    );
    expect(err.code).toBe('controller_unreachable');
    expect(err.status).toBe(502);
  });

  it('maps a silent device to 502 controller_unreachable within timeout_s', async () => {
    await startPeer();
    peer.hang = true;
    const started = Date.now();
    const err = await controllerError(adapter({ timeout_s: 1 }).stopZone('switch/Front Lawn'));
    expect(err.code).toBe('controller_unreachable');
    expect(err.message).toMatch(/no answer .* within 1 s/);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('answers a zone scan with 501 controller_unsupported', async () => {
    await startPeer();
    const err = await controllerError(adapter().scanZones());
    expect(err.code).toBe('controller_unsupported');
    expect(err.status).toBe(501);
    expect(peer.requests).toHaveLength(0);
  });

  it('refuses a station in neither entity form before calling the device', async () => {
    await startPeer();
    const err = await controllerError(adapter().runZone('light.porch', 60));
    expect(err.status).toBe(502);
    expect(peer.requests).toHaveLength(0);
  });
});

describe('esphome config and stations', () => {
  it('applies the defaults: poll every 5 s, 10 s timeout, one zone at a time', () => {
    const config = esphomeKind.configSchema.parse({ base_url: 'http://sprinkler.local' });
    expect(config).toMatchObject({ poll_interval_s: 5, timeout_s: 10, concurrent_zones: false });
  });

  it.each([
    ['a missing base_url', {}],
    ['a base_url that is not http(s)', { base_url: 'mqtt://sprinkler.local' }],
    [
      'credentials in the base_url (fetch would quote them)',
      { base_url: `http://admin:${PASSWORD}@s.local` },
    ],
    ['poll_interval_s below 2', { base_url: 'http://s.local', poll_interval_s: 1 }],
    ['poll_interval_s above 3600', { base_url: 'http://s.local', poll_interval_s: 3601 }],
    ['timeout_s of 0', { base_url: 'http://s.local', timeout_s: 0 }],
    ['a non-boolean concurrent_zones', { base_url: 'http://s.local', concurrent_zones: 'yes' }],
  ])('rejects %s', (_label, block) => {
    expect(esphomeKind.configSchema.safeParse(block).success).toBe(false);
  });

  it.each([
    ['switch.front_lawn', true],
    ['valve.front_lawn', true],
    ['switch/Front Lawn', true],
    ['valve/Front Lawn', true],
    ['switch/Garden/Front Lawn', true],
    ['light.porch', false],
    ['switch.Front Lawn', false],
    ['switch/', false],
    ['switch/ Front Lawn', false],
    ['front_lawn', false],
  ])('parseStation(%j) is %s', (station, ok) => {
    expect(esphomeKind.parseStation?.(station)).toBe(ok);
  });

  it('encodes each name segment of a sub-device entity', () => {
    expect(parseEsphomeStation('switch/Garden/Zone 1')).toEqual({
      domain: 'switch',
      urlPath: 'Garden/Zone%201',
    });
    expect(parseEsphomeStation('valve.zone_1')).toEqual({ domain: 'valve', urlPath: 'zone_1' });
  });
});

describe('the sprinkler component run duration (a device-side limit)', () => {
  const SPRINKLER: EsphomePeerOptions = {
    entities: [
      { domain: 'switch', name: 'Front Lawn' },
      { domain: 'number', name: 'Front Lawn Run Duration', value: 600, min: 1, max: 240 * 60 },
    ],
  };

  it('sets the valve run duration before opening it; the valve then closes itself on the device', async () => {
    await startPeer({
      ...SPRINKLER,
      clock,
      sprinkler: [{ valve: 'Front Lawn', runDuration: 'Front Lawn Run Duration', unit: 's' }],
    });
    const esp = adapter({ run_duration_numbers: { 'switch/Front Lawn': 'number/Front Lawn Run Duration' } }, [
      { zone: 'front', station: 'switch/Front Lawn' },
    ]);
    expect(esp.capabilities).toMatchObject({ device_limit: true, self_timed: false });

    await esp.runZone('switch/Front Lawn', 90);
    expect(posts()).toEqual([
      '/number/Front%20Lawn%20Run%20Duration/set?value=90',
      '/switch/Front%20Lawn/turn_on',
    ]);
    expect(peer.valueOf('Front Lawn Run Duration')).toBe(90);
    clock.advance(89_000);
    expect((await esp.readStatus()).stations['switch/Front Lawn']?.running).toBe(true);
    clock.advance(1_000);
    expect((await esp.readStatus()).stations['switch/Front Lawn']?.running).toBe(false);
  });

  it('rounds up to whole minutes when the device number is in minutes', async () => {
    await startPeer({
      ...SPRINKLER,
      idFormat: 'legacy',
      clock,
      sprinkler: [{ valve: 'Front Lawn', runDuration: 'Front Lawn Run Duration', unit: 'min' }],
    });
    const esp = adapter(
      {
        run_duration_numbers: { 'switch.front_lawn': 'number.front_lawn_run_duration' },
        run_duration_unit: 'min',
      },
      [{ zone: 'front', station: 'switch.front_lawn' }],
    );
    await esp.runZone('switch.front_lawn', 90);
    expect(posts()[0]).toBe('/number/front_lawn_run_duration/set?value=2');
  });

  it('has no device-side limit while a bound station lacks a run-duration number', async () => {
    await startPeer(SPRINKLER);
    const esp = adapter({ run_duration_numbers: { 'switch/Front Lawn': 'number/Front Lawn Run Duration' } });
    expect(esp.capabilities.device_limit).toBe(false);
    expect(
      esphomeKind.configSchema.safeParse({ base_url: 'http://x', run_duration_numbers: { a: 'switch/x' } })
        .success,
    ).toBe(false);
  });
});
