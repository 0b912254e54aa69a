import pino from 'pino';
import {
  OpenSprinklerController,
  openSprinklerKind,
  type OpenSprinklerConfig,
} from '../../server/src/controllers/adapters/opensprinkler';
import { ControllerError } from '../../server/src/controllers/errors';
import { ManualClock } from '../../server/src/core/clock';
import { silentLogger, type Logger } from '../../server/src/core/logger';
import { rejection } from '../helpers/loopback-peer';
import { OPENDOOR_MD5, OpenSprinklerPeer } from '../helpers/opensprinkler-peer';

/**
 * The OpenSprinkler adapter against the loopback device of
 * test/helpers/opensprinkler-peer.ts (the fw-221 demo device of the shared
 * fixtures): commands, readback, the `{"result":N}` error mapping, transport
 * faults, and the rule that the password hash never leaves the query string.
 */

const T0_MS = Date.UTC(2025, 5, 1, 12, 0, 0);
const T0 = T0_MS / 1000;
const WRONG_MD5 = '0123456789abcdef0123456789abcdef';

let clock: ManualClock;
let peer: OpenSprinklerPeer;

beforeEach(async () => {
  clock = new ManualClock(T0_MS);
  peer = await new OpenSprinklerPeer({ clock }).start();
});

afterEach(async () => {
  await peer.close();
});

function parseConfig(config: Record<string, unknown>): OpenSprinklerConfig {
  return openSprinklerKind.configSchema.parse(config);
}

function adapter(
  config: Record<string, unknown> = {},
  logger: Logger = silentLogger(),
): OpenSprinklerController {
  const parsed = parseConfig({ host: peer.host, password_md5: OPENDOOR_MD5, timeout_s: 2, ...config });
  return new OpenSprinklerController({
    id: 'backyard',
    config: parsed,
    logger,
    clock,
    fetch,
    stations: [],
    ha: null,
    notify: () => undefined,
  });
}

/** The ControllerError a call must fail with. */
async function failure(promise: Promise<unknown>): Promise<ControllerError> {
  const err = await rejection(promise);
  expect(err).toBeInstanceOf(ControllerError);
  return err as ControllerError;
}

function lastRequest(path: string) {
  const found = peer.requests.filter((req) => req.path === path).at(-1);
  if (!found) throw new Error(`no ${path} request`);
  return found;
}

describe('commands', () => {
  it('opens station 1 as sid=0 for t seconds, with the hash lower-cased', async () => {
    await adapter({ password_md5: OPENDOOR_MD5.toUpperCase() }).runZone('1', 300);

    const req = lastRequest('/cm');
    expect(Object.fromEntries(req.query)).toEqual({ pw: OPENDOOR_MD5, sid: '0', en: '1', t: '300' });
    expect(peer.isOpen(0)).toBe(true);
  });

  it('stops one station and reports the zone scope; stopping it again is idempotent (result 17)', async () => {
    const os = adapter();
    await os.runZone('3', 600);

    await expect(os.stopZone('3')).resolves.toBe('zone');
    expect(Object.fromEntries(lastRequest('/cm').query)).toMatchObject({ sid: '2', en: '0' });
    expect(peer.isOpen(2)).toBe(false);

    await expect(os.stopZone('3')).resolves.toBe('zone');
    expect(peer.requests.filter((req) => req.path === '/cm')).toHaveLength(3);
  });

  it('stops everything, running and queued, with /cv rsn=1', async () => {
    const os = adapter();
    await os.runZone('1', 300);
    await os.runZone('2', 300);
    expect(peer.entries()).toHaveLength(2);

    await os.stopAll();

    expect(lastRequest('/cv').query.get('rsn')).toBe('1');
    expect(peer.entries()).toEqual([]);
  });

  it('refuses a station that is not a 1-based number before calling the device', async () => {
    const os = adapter();
    for (const station of ['0', 'front_lawn', '01', '1000']) {
      const err = await failure(os.runZone(station, 60));
      expect(err.code).toBe('controller_unsupported');
      expect(err.status).toBe(501);
    }
    expect(await failure(os.stopZone('x'))).toMatchObject({ code: 'controller_unsupported' });
    expect(peer.requests).toHaveLength(0);
  });
});

describe('readStatus', () => {
  it('reads a running station with its remaining seconds, stamped by the injected clock', async () => {
    const os = adapter();
    await os.runZone('1', 300);
    clock.advance(100_000);

    const status = await os.readStatus();

    expect(status.observed_epoch).toBe(T0 + 100);
    expect(status.stations['1']).toEqual({ running: true, remaining_s: 200 });
    expect(status.stations['2']).toEqual({ running: false, remaining_s: null });
    expect(Object.keys(status.stations)).toEqual(['1', '2', '3', '4', '5', '6', '7', '8']);
    expect(peer.requests.map((req) => req.path)).toEqual(['/cm', '/ja']);
  });

  it('shows the station closed once its timer elapsed on the device', async () => {
    const os = adapter();
    await os.runZone('4', 60);
    clock.advance(61_000);

    expect((await os.readStatus()).stations['4']).toEqual({ running: false, remaining_s: null });
  });

  it('reads a queued station (pid set, output bit off) as not running until its turn', async () => {
    const os = adapter();
    await os.runZone('1', 300);
    await os.runZone('2', 120); // same sequential group: the device queues it

    const raw = (await (await fetch(`${peer.http.baseUrl}/ja?pw=${OPENDOOR_MD5}`)).json()) as {
      settings: { ps: number[][] };
      status: { sn: number[] };
    };
    expect(raw.settings.ps[1]?.[0]).toBe(99);
    expect(raw.status.sn[1]).toBe(0);

    expect((await os.readStatus()).stations['2']).toEqual({ running: false, remaining_s: null });

    clock.advance(310_000);
    expect((await os.readStatus()).stations['2']).toEqual({ running: true, remaining_s: 110 });
  });

  it('reports the water level from options.wl', async () => {
    peer.device.options.wl = 63;
    expect((await adapter().readStatus()).water_level_pct).toBe(63);

    peer.device.options.wl = 251;
    expect((await adapter().readStatus()).water_level_pct).toBeNull();
  });

  it('falls back to /jc /jo /jn /js when the firmware has no /ja, and remembers that', async () => {
    peer.hasJa = false;
    const os = adapter();
    await os.runZone('5', 90);

    expect((await os.readStatus()).stations['5']).toEqual({ running: true, remaining_s: 90 });
    await os.readStatus();

    const paths = peer.requests.map((req) => req.path);
    expect(paths.filter((path) => path === '/ja')).toHaveLength(1);
    expect(paths.slice(-4)).toEqual(['/jc', '/jo', '/jn', '/js']);
  });
});

describe('flow', () => {
  it('gives no flow without flow_pulse_unit, even with a flow sensor', async () => {
    peer.device.options.sn1t = 2;
    peer.flowWindow = { flwrt: 30, flcrt: 15 };
    const os = adapter();

    expect(os.capabilities.flow).toBe(false);
    expect((await os.readStatus()).flow_rate_gpm).toBeNull();
  });

  it('converts the click window with the device pulse rate in the configured unit', async () => {
    peer.device.options.sn2t = 2;
    peer.flowWindow = { flwrt: 30, flcrt: 15 };

    // fpr 1.00 gal per click: 15 clicks in 30 s = 30 gal/min.
    const gallons = adapter({ flow_pulse_unit: 'gal' });
    expect(gallons.capabilities.flow).toBe(true);
    expect((await gallons.readStatus()).flow_rate_gpm).toBe(30);

    // fpr 0.50 L per click: 15 clicks in 30 s = 15 L/min = 3.963 gal/min.
    peer.device.options.fpr0 = 50;
    const status = await adapter({ flow_pulse_unit: 'l' }).readStatus();
    expect(status.flow_rate_gpm).toBeCloseTo(15 / 3.785411784, 3);
    expect(status.flow_total_gal_today).toBeNull();
  });

  it('reports null flow when the device has no flow sensor', async () => {
    peer.flowWindow = { flwrt: 30, flcrt: 15 };
    expect((await adapter({ flow_pulse_unit: 'gal' }).readStatus()).flow_rate_gpm).toBeNull();
  });
});

describe('scanZones', () => {
  it('lists station names by 1-based station, skipping disabled stations', async () => {
    peer.device.stations.snames = ['Front lawn', 'Back lawn', 'Spare', 'Beds', 'S05', 'S06', 'S07', 'Drip'];
    peer.device.stations.stn_dis = [0b00000100];

    const zones = await adapter().scanZones();

    expect(zones).toHaveLength(7);
    expect(zones[0]).toEqual({ station: '1', name: 'Front lawn' });
    expect(zones.map((zone) => zone.station)).not.toContain('3');
    expect(zones.at(-1)).toEqual({ station: '8', name: 'Drip' });
  });
});

describe('device refusals', () => {
  it('maps result 2 (wrong password, HTTP 200) to 424 controller_auth_failed', async () => {
    const os = adapter({ password_md5: WRONG_MD5 });

    const calls = [
      () => os.readStatus(),
      () => os.runZone('1', 60),
      () => os.stopAll(),
      () => os.scanZones(),
    ];
    for (const call of calls) {
      const err = await failure(call());
      expect(err.code).toBe('controller_auth_failed');
      expect(err.status).toBe(424);
    }
    expect(peer.entries()).toEqual([]);
  });

  it('maps result 48 (station already queued) to 502 controller_unreachable naming the meaning', async () => {
    const os = adapter();
    await os.runZone('1', 300);

    const err = await failure(os.runZone('1', 300));

    expect(err.code).toBe('controller_unreachable');
    expect(err.status).toBe(502);
    expect(err.message).toContain('result 48');
    expect(err.message).toContain('Not Permitted');
  });

  it('maps result 17 on a run (station past the device count) to controller_unreachable', async () => {
    const err = await failure(adapter().runZone('9', 60));

    expect(err.code).toBe('controller_unreachable');
    expect(err.message).toContain('Out of Range');
  });
});

describe('transport faults', () => {
  it('reports an offline device as controller_unreachable', async () => {
    const os = adapter();
    await peer.close();

    const err = await failure(os.readStatus());

    expect(err.code).toBe('controller_unreachable');
    expect(err.message).toContain('cannot reach');
  });

  it('gives up on a device that never answers within timeout_s', async () => {
    peer.fault = 'hang';
    const started = Date.now();

    const err = await failure(adapter({ timeout_s: 1 }).runZone('1', 60));

    expect(Date.now() - started).toBeLessThan(3000);
    expect(err.code).toBe('controller_unreachable');
    expect(err.message).toContain('within 1 s');
  });

  it('reports an HTTP 500 as controller_unreachable naming the status', async () => {
    peer.fault = 'http500';

    const err = await failure(adapter().stopAll());

    expect(err.code).toBe('controller_unreachable');
    expect(err.message).toContain('HTTP 500');
  });
});

describe('the password hash', () => {
  it('never appears in an error message, hint or log line', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'trace' }, { write: (line: string) => void lines.push(line) });
    const good = adapter({}, logger);
    const wrong = adapter({ password_md5: WRONG_MD5 }, logger);
    await good.runZone('1', 60);
    await good.stopZone('1');
    await good.runZone('2', 60);

    const errors = [
      await failure(wrong.readStatus()),
      await failure(wrong.runZone('3', 60)),
      await failure(good.runZone('2', 60)),
      await failure(good.runZone('9', 60)),
    ];
    peer.fault = 'http500';
    errors.push(await failure(good.readStatus()));
    peer.fault = 'hang';
    errors.push(await failure(adapter({ timeout_s: 1 }, logger).scanZones()));
    peer.fault = 'none';
    await peer.close();
    errors.push(await failure(good.stopAll()));

    expect(lines.length).toBeGreaterThan(0);
    const seen = [...errors.map((err) => `${err.message} ${JSON.stringify(err.extra)}`), ...lines].join('\n');
    expect(seen).toContain('127.0.0.1');
    expect(seen).not.toContain(OPENDOOR_MD5);
    expect(seen).not.toContain(WRONG_MD5);
    expect(seen).not.toContain('pw=');
  });
});

describe('config', () => {
  it('applies the defaults', () => {
    expect(parseConfig({ host: 'os.local', password_md5: OPENDOOR_MD5 })).toEqual({
      host: 'os.local',
      port: 80,
      password_md5: OPENDOOR_MD5,
      poll_interval_s: 10,
      timeout_s: 10,
      concurrent_zones: false,
    });
  });

  it('derives capabilities and polling from the config', () => {
    const os = adapter({ poll_interval_s: 30, concurrent_zones: true });

    expect(os.confirmWithinS).toBe(30);
    expect(os.pollIntervalMs).toBe(30_000);
    expect(os.capabilities).toEqual({
      per_zone_stop: true,
      state_readback: true,
      zone_scan: true,
      water_level: true,
      flow: false,
      concurrent_zones: true,
      self_timed: true,
    });
  });

  it('takes the port from host:port over port, or from port for a bare host', async () => {
    const port = Number(new URL(peer.http.baseUrl).port);
    await adapter({ host: `127.0.0.1:${port}`, port: 1 }).runZone('1', 60);
    await adapter({ host: '127.0.0.1', port }).stopZone('1');
    await adapter({ host: `http://127.0.0.1:${port}` }).stopAll();

    expect(peer.requests.map((req) => req.path)).toEqual(['/cm', '/cm', '/cv']);
  });

  it.each([
    ['an empty host', { host: '' }],
    ['a host with a path', { host: 'http://os.local/api' }],
    ['a non-http scheme', { host: 'ftp://os.local' }],
    ['a short hash', { password_md5: OPENDOOR_MD5.slice(1) }],
    ['a non-hex hash', { password_md5: `z${OPENDOOR_MD5.slice(1)}` }],
    ['port 0', { port: 0 }],
    ['port 65536', { port: 65536 }],
    ['poll_interval_s 1', { poll_interval_s: 1 }],
    ['poll_interval_s 3601', { poll_interval_s: 3601 }],
    ['a fractional poll_interval_s', { poll_interval_s: 2.5 }],
    ['timeout_s 0', { timeout_s: 0 }],
    ['timeout_s 61', { timeout_s: 61 }],
    ['a numeric zone_map station', { zone_map: { front: 1 } }],
    ['an unknown flow unit', { flow_pulse_unit: 'm3' }],
  ])('rejects %s', (_name, override) => {
    const result = openSprinklerKind.configSchema.safeParse({
      host: 'os.local',
      password_md5: OPENDOOR_MD5,
      ...override,
    });
    expect(result.success).toBe(false);
  });

  it('accepts 1-based station numbers only', () => {
    const parse = openSprinklerKind.parseStation!;
    expect(['1', '8', '12', '999', ' 3 '].map(parse)).toEqual([true, true, true, true, true]);
    expect(['0', '01', '1000', 'a', '', '-1'].map(parse)).toEqual([false, false, false, false, false, false]);
    expect(openSprinklerKind.kind).toBe('opensprinkler');
    expect(openSprinklerKind.label).toBe('OpenSprinkler (direct HTTP)');
  });
});
