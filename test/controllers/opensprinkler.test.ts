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
import { httpFetch } from '../../server/src/core/http-fetch';

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
    // The service gives adapters its node:http fetch (main.ts).
    fetch: httpFetch,
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
    peer.flowClicksPerSecond[0] = 0.5;
    const os = adapter();
    await os.runZone('1', 60);

    expect(os.capabilities.flow).toBe(false);
    expect((await os.readStatus()).flow_rate_gpm).toBeNull();
  });

  it("converts the firmware's real-time click count with the device pulse rate in the configured unit", async () => {
    peer.device.options.sn1t = 2;
    peer.flowClicksPerSecond[0] = 0.5;
    const gallons = adapter({ flow_pulse_unit: 'gal' });
    await gallons.runZone('1', 600);
    const raw = (await (await fetch(`${peer.http.baseUrl}/jc?pw=${OPENDOOR_MD5}`)).json()) as Record<
      string,
      number
    >;
    expect(raw).toMatchObject({ flcrt: 500, flwrt: 1000 });

    // fpr 1.00 gal per click: 0.5 clicks per second = 30 gal/min.
    expect(gallons.capabilities.flow).toBe(true);
    expect((await gallons.readStatus()).flow_rate_gpm).toBe(30);

    // fpr 0.50 L per click: 15 L/min = 3.963 gal/min.
    peer.device.options.fpr0 = 50;
    const status = await adapter({ flow_pulse_unit: 'l' }).readStatus();
    expect(status.flow_rate_gpm).toBeCloseTo(15 / 3.785411784, 3);
    expect(status.flow_total_gal_today).toBeNull();
  });

  it('reads zero flow with every station closed, and null when sensor 1 is no flow sensor', async () => {
    peer.device.options.sn1t = 2;
    expect((await adapter({ flow_pulse_unit: 'gal' }).readStatus()).flow_rate_gpm).toBe(0);
    // 2.2.1 reports the flow count for sensor 1 only.
    peer.device.options.sn1t = 0;
    peer.device.options.sn2t = 2;
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

describe('firmware 2.2.1 path by path (the peer as the firmware source answers)', () => {
  async function raw(path: string, pw: string): Promise<{ status: number; body: string }> {
    const response = await fetch(`${peer.http.baseUrl}${path}?pw=${pw}&sid=0&en=1&t=60`);
    return { status: response.status, body: await response.text() };
  }

  it('answers a wrong password with {"fwv":221} on /ja and /jo, result 2 elsewhere, and 404 on an unknown path', async () => {
    expect(await raw('/ja', WRONG_MD5)).toEqual({ status: 200, body: '{"fwv":221}' });
    expect(await raw('/jo', WRONG_MD5)).toEqual({ status: 200, body: '{"fwv":221}' });
    for (const path of ['/jc', '/jn', '/js', '/cm', '/cv']) {
      expect(await raw(path, WRONG_MD5)).toEqual({ status: 200, body: '{"result":2,"item":""}' });
    }
    expect(await raw('/xx', OPENDOOR_MD5)).toEqual({
      status: 404,
      body: 'The requested page does not exist',
    });
    expect(peer.entries()).toEqual([]);
  });

  it('the old ATmega server answers {"result":N} and result 32 for an unknown path', async () => {
    const avr = await new OpenSprinklerPeer({ clock, style: 'avr' }).start();
    try {
      const response = await fetch(`${avr.http.baseUrl}/xx?pw=${OPENDOOR_MD5}`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ result: 32 });
    } finally {
      await avr.close();
    }
  });

  it('parses /cm like the firmware: missing values 16, 16-bit timer, atoi station numbers', async () => {
    const cm = async (query: string) =>
      (await (await fetch(`${peer.http.baseUrl}/cm?pw=${OPENDOOR_MD5}&${query}`)).json()) as {
        result: number;
      };
    expect(await cm('en=1&t=60')).toMatchObject({ result: 16 });
    expect(await cm('sid=0&t=60')).toMatchObject({ result: 16 });
    expect(await cm('sid=0&en=1')).toMatchObject({ result: 16 });
    expect(await cm('sid=0&en=1&t=0')).toMatchObject({ result: 17 });
    expect(await cm('sid=8&en=1&t=60')).toMatchObject({ result: 17 });
    expect(await cm('sid=0&en=0')).toMatchObject({ result: 17 });
    // 65596 wraps to 60 in the firmware's uint16_t timer; "abc" is station 0 to atoi.
    expect(await cm('sid=abc&en=1&t=65596')).toMatchObject({ result: 1 });
    expect(peer.entries()).toMatchObject([{ sid: 0, duration: 60 }]);
  });
});

describe('wrong password on every path the adapter uses', () => {
  it('is controller_auth_failed on /ja (HTTP 200, fwv only), not unreachable', async () => {
    const os = adapter({ password_md5: WRONG_MD5 });
    for (const call of [() => os.readStatus(), () => os.scanZones()]) {
      const err = await failure(call());
      expect(err).toMatchObject({ code: 'controller_auth_failed', status: 424 });
      expect(err.message).toContain('/ja');
    }
  });

  it('is controller_auth_failed on the /jc /jo /jn /js fallback of firmware without /ja', async () => {
    peer.hasJa = false;
    const good = adapter();
    await good.readStatus(); // learns that /ja is missing
    const wrong = adapter({ password_md5: WRONG_MD5 });
    // The first read of a new adapter tries /ja (404), then /jc answers result 2.
    expect(await failure(wrong.readStatus())).toMatchObject({ code: 'controller_auth_failed' });
    expect(peer.requests.at(-1)?.path).toBe('/jc');
    // /jo, the next read of the fallback, answers a wrong password with fwv only:
    const jo = await (await fetch(`${peer.http.baseUrl}/jo?pw=${WRONG_MD5}`)).json();
    expect(jo).toEqual({ fwv: 221 });
  });

  it('is controller_auth_failed on /cm and /cv', async () => {
    const os = adapter({ password_md5: WRONG_MD5 });
    expect(await failure(os.runZone('1', 60))).toMatchObject({ code: 'controller_auth_failed' });
    expect(await failure(os.stopZone('1'))).toMatchObject({ code: 'controller_auth_failed' });
    expect(await failure(os.stopAll())).toMatchObject({ code: 'controller_auth_failed' });
    expect(peer.requests.map((r) => r.path)).toEqual(['/cm', '/cm', '/cv']);
  });

  it('reads /jo with a wrong password as the auth failure it is (fwv only)', async () => {
    peer.hasJa = false;
    // A device that lets /jc through but guards /jo: only /jo's fwv-only body tells.
    const os = adapter({ password_md5: WRONG_MD5 });
    const original = peer.http.handler;
    peer.http.handler = (req, base) =>
      req.path === '/jc'
        ? original({ ...req, query: new URLSearchParams({ pw: OPENDOOR_MD5 }) }, base)
        : original(req, base);
    const err = await failure(os.readStatus());
    expect(err).toMatchObject({ code: 'controller_auth_failed' });
    expect(err.message).toContain('/jo');
  });
});

describe('unknown-path answer of /ja', () => {
  it('falls back on HTTP 404 (2.2.x boards) and on result 32 (ATmega server)', async () => {
    for (const style of ['otf', 'avr'] as const) {
      const device = await new OpenSprinklerPeer({ clock, style }).start();
      device.hasJa = false;
      try {
        const os = new OpenSprinklerController({
          id: 'old',
          config: parseConfig({ host: device.host, password_md5: OPENDOOR_MD5 }),
          logger: silentLogger(),
          clock,
          // The service gives adapters its node:http fetch (main.ts).
          fetch: httpFetch,
          stations: [],
          ha: null,
          notify: () => undefined,
        });
        await os.runZone('2', 30);
        expect((await os.readStatus()).stations['2']).toEqual({ running: true, remaining_s: 30 });
        expect(device.requests.map((r) => r.path)).toEqual(['/cm', '/ja', '/jc', '/jo', '/jn', '/js']);
      } finally {
        await device.close();
      }
    }
  });
});

describe('master stations and device facts', () => {
  it('leaves master stations out of the scan and names them in the device facts', async () => {
    peer.device.options.mas = 1;
    peer.device.options.mas2 = 8;
    const os = adapter();

    const zones = await os.scanZones();
    expect(zones.map((zone) => zone.station)).toEqual(['2', '3', '4', '5', '6', '7']);
    expect((await os.readStatus()).device?.master_stations).toEqual(['1', '8']);
  });

  it('says why the firmware refuses a master station (result 48)', async () => {
    peer.device.options.mas = 1;
    const os = adapter();
    await os.readStatus();

    const err = await failure(os.runZone('1', 60));
    expect(err.code).toBe('controller_unsupported');
    expect(err.message).toContain('master station');
    expect(peer.entries()).toEqual([]);
  });

  it('shows a master output on while a station bound to it runs', async () => {
    peer.device.options.mas = 1;
    peer.device.stations.masop = [0b0000_0010]; // station 2 uses the master
    const os = adapter();
    await os.runZone('2', 60);
    const status = await os.readStatus();
    expect(status.stations['1']?.running).toBe(true);
    expect(status.stations['2']?.running).toBe(true);
  });

  it('reports firmware, operation enabled and the boot time (device local time converted to UTC)', async () => {
    peer.device.options.fwm = 3;
    const os = adapter();
    expect((await os.readStatus()).device).toEqual({
      firmware: '2.2.1(3)',
      enabled: true,
      master_stations: [],
      booted_epoch: T0,
    });

    await fetch(`${peer.http.baseUrl}/cv?pw=${OPENDOOR_MD5}&en=0`);
    clock.advance(3_600_000);
    peer.reboot();
    expect((await os.readStatus()).device).toMatchObject({ enabled: false, booted_epoch: T0 + 3600 });
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
      device_limit: true,
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
