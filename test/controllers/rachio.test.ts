import pino from 'pino';
import {
  RACHIO_DEFAULT_BASE_URL,
  rachioKind,
  type RachioConfig,
} from '../../server/src/controllers/adapters/rachio';
import { ControllerError } from '../../server/src/controllers/errors';
import type { ControllerAdapter, StationBinding } from '../../server/src/controllers/types';
import { ManualClock } from '../../server/src/core/clock';
import type { Logger } from '../../server/src/core/logger';
import { refusedBaseUrl, rejection } from '../helpers/loopback-peer';
import {
  RACHIO_DEVICE_ID,
  RACHIO_PEER_KEY,
  RACHIO_ZONES,
  RachioPeer,
  type RachioPeerOptions,
} from '../helpers/rachio-peer';
import { httpFetch } from '../../server/src/core/http-fetch';

/**
 * The Rachio adapter against a loopback Rachio cloud: commands, readback from
 * current_schedule, the whole-device stop, zone scan, and the spec 7 error
 * mapping (a vendor 401 is our 424, never a 401; the API key never leaks).
 */

const START_MS = Date.UTC(2025, 5, 1, 6, 0, 0);
const STATIONS: StationBinding[] = [
  { zone: 'front', station: RACHIO_ZONES.front },
  { zone: 'back', station: RACHIO_ZONES.back },
];

let clock: ManualClock;
let peer: RachioPeer;

async function startPeer(options: RachioPeerOptions = {}): Promise<RachioPeer> {
  peer = await new RachioPeer({ nowMs: () => clock.nowMs(), ...options }).start();
  return peer;
}

function parseConfig(overrides: Record<string, unknown> = {}): RachioConfig {
  return rachioKind.configSchema.parse({ api_key: RACHIO_PEER_KEY, base_url: peer.baseUrl, ...overrides });
}

function adapter(
  overrides: Record<string, unknown> = {},
  options: { logger?: Logger; fetch?: typeof fetch } = {},
): ControllerAdapter {
  return rachioKind.create({
    id: 'rachio-1',
    config: parseConfig(overrides),
    logger: options.logger ?? pino({ level: 'silent' }),
    clock,
    fetch: options.fetch ?? httpFetch,
    stations: STATIONS,
    ha: null,
    notify: () => {},
  });
}

/** A logger whose lines the test can read. */
function capturingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return { logger: pino({ level: 'trace' }, { write: (line: string) => void lines.push(line) }), lines };
}

async function controllerError(promise: Promise<unknown>): Promise<ControllerError> {
  const err = await rejection(promise);
  expect(err).toBeInstanceOf(ControllerError);
  return err as ControllerError;
}

function bodyOf(path: string): unknown {
  const seen = peer.requests.filter((r) => r.path === `/1/public${path}`);
  expect(seen).toHaveLength(1);
  return JSON.parse(seen[0]?.body ?? 'null');
}

beforeEach(() => {
  clock = new ManualClock(START_MS);
});

afterEach(async () => {
  await peer?.close();
});

describe('rachio commands', () => {
  it('starts a zone with PUT /zone/start, the bearer key and a JSON body in seconds', async () => {
    await startPeer();
    await adapter().runZone(RACHIO_ZONES.front, 600);

    const request = peer.requests.find((r) => r.path === '/1/public/zone/start');
    expect(request?.method).toBe('PUT');
    expect(request?.headers.authorization).toBe(`Bearer ${RACHIO_PEER_KEY}`);
    expect(request?.headers['content-type']).toMatch(/^application\/json/);
    expect(bodyOf('/zone/start')).toEqual({ id: RACHIO_ZONES.front, duration: 600 });
    expect(peer.running?.zoneId).toBe(RACHIO_ZONES.front);
  });

  it('stops a zone by stopping the whole device and says so', async () => {
    await startPeer();
    const rachio = adapter({ device_id: RACHIO_DEVICE_ID });
    await rachio.runZone(RACHIO_ZONES.back, 300);

    await expect(rachio.stopZone(RACHIO_ZONES.back)).resolves.toBe('device');
    expect(bodyOf('/device/stop_water')).toEqual({ id: RACHIO_DEVICE_ID });
    expect(peer.running).toBeNull();
  });

  it('stops all watering with the same device call', async () => {
    await startPeer();
    const rachio = adapter({ device_id: RACHIO_DEVICE_ID });
    await rachio.runZone(RACHIO_ZONES.front, 300);

    await rachio.stopAll();
    expect(peer.requests.find((r) => r.path === '/1/public/device/stop_water')?.method).toBe('PUT');
    expect(peer.running).toBeNull();
  });

  it('finds the device from the account once when device_id is null', async () => {
    await startPeer();
    const rachio = adapter({ device_id: null });

    await rachio.stopAll();
    await rachio.readStatus();
    await rachio.stopAll();

    const infoCalls = peer.requests.filter((r) => r.path === '/1/public/person/info');
    expect(infoCalls).toHaveLength(1);
    const stops = peer.requests.filter((r) => r.path === '/1/public/device/stop_water');
    expect(stops.map((r) => JSON.parse(r.body))).toEqual([
      { id: RACHIO_DEVICE_ID },
      { id: RACHIO_DEVICE_ID },
    ]);
  });

  it('reports what it is: self-timed, device-wide stop, one zone at a time, polled readback', async () => {
    await startPeer();
    const rachio = adapter();
    expect(rachio.kind).toBe('rachio');
    expect(rachio.capabilities).toEqual({
      per_zone_stop: false,
      state_readback: true,
      zone_scan: true,
      water_level: false,
      flow: false,
      concurrent_zones: false,
      self_timed: true,
      device_limit: true,
    });
  });
});

describe('rachio readback and scan', () => {
  it('reads the running zone and its remaining seconds from current_schedule', async () => {
    await startPeer();
    const rachio = adapter({ device_id: RACHIO_DEVICE_ID });
    await rachio.runZone(RACHIO_ZONES.front, 600);
    clock.advance(100_000);

    const status = await rachio.readStatus();
    expect(status.observed_epoch).toBe(Math.floor(START_MS / 1000) + 100);
    expect(status.stations).toEqual({
      [RACHIO_ZONES.front]: { running: true, remaining_s: 500 },
      [RACHIO_ZONES.back]: { running: false, remaining_s: null },
    });
    expect(status.water_level_pct).toBeNull();
  });

  it('reads every bound zone as idle when nothing runs', async () => {
    await startPeer();
    const status = await adapter({ device_id: RACHIO_DEVICE_ID }).readStatus();
    expect(Object.values(status.stations).every((s) => !s.running)).toBe(true);
    expect(Object.keys(status.stations).sort()).toEqual([RACHIO_ZONES.front, RACHIO_ZONES.back].sort());
  });

  it('lists the enabled zones of the device in zone-number order', async () => {
    await startPeer();
    const zones = await adapter().scanZones();
    expect(zones).toEqual([
      { station: RACHIO_ZONES.front, name: 'Front Lawn' },
      { station: RACHIO_ZONES.back, name: 'Back Yard' },
    ]);
    expect(peer.requests.map((r) => r.path)).toEqual([
      '/1/public/person/info',
      expect.stringMatching(/^\/1\/public\/person\//),
    ]);
  });

  it('refuses a scan for a configured device the account does not have', async () => {
    await startPeer();
    const err = await controllerError(adapter({ device_id: 'not-my-device' }).scanZones());
    expect(err.code).toBe('controller_unreachable');
    expect(err.message).toContain('not-my-device');
  });
});

describe('rachio error mapping', () => {
  it('maps a rejected API key to 424 controller_auth_failed without echoing the key', async () => {
    await startPeer();
    const wrongKey = 'wrong-key-5f1e0c7a-secret';
    const err = await controllerError(adapter({ api_key: wrongKey }).runZone(RACHIO_ZONES.front, 60));
    expect(err.code).toBe('controller_auth_failed');
    expect(err.status).toBe(424);
    expect(err.message).not.toContain(wrongKey);
    expect(JSON.stringify(err.extra)).not.toContain(wrongKey);
  });

  it('maps 429 to controller_rate_limited with the remaining-calls header and a hint', async () => {
    await startPeer({ limit: 1700, remaining: 0 });
    const err = await controllerError(adapter().runZone(RACHIO_ZONES.front, 60));
    expect(err.code).toBe('controller_rate_limited');
    expect(err.status).toBe(429);
    expect(err.extra.rate_limit_remaining).toBe('0');
    expect(err.extra.hint).toMatch(/poll_interval_s/);
    expect(peer.running).toBeNull();
  });

  it('succeeds on the last call of the budget, warns, and is refused on the next', async () => {
    await startPeer({ remaining: 1 });
    const { logger, lines } = capturingLogger();
    const rachio = adapter({}, { logger });

    await rachio.runZone(RACHIO_ZONES.front, 60);
    expect(peer.running?.zoneId).toBe(RACHIO_ZONES.front);
    const warning = lines
      .map((l) => JSON.parse(l) as { level: number; msg: string })
      .find((l) => l.level === 40);
    expect(warning?.msg).toMatch(/budget is spent/);

    const err = await controllerError(rachio.runZone(RACHIO_ZONES.back, 60));
    expect(err.status).toBe(429);
    expect(lines.join('\n')).not.toContain(RACHIO_PEER_KEY);
  });

  it('reports an OFFLINE device as 502 controller_unreachable', async () => {
    await startPeer();
    peer.deviceStatus = 'OFFLINE';
    const err = await controllerError(adapter({ device_id: RACHIO_DEVICE_ID }).readStatus());
    expect(err.code).toBe('controller_unreachable');
    expect(err.status).toBe(502);
    expect(err.message).toContain('device offline');
  });

  it('maps a refused connection to 502 controller_unreachable without the key', async () => {
    await startPeer();
    const base = `${await refusedBaseUrl()}/1/public`;
    const err = await controllerError(adapter({ base_url: base }).runZone(RACHIO_ZONES.front, 60));
    expect(err.code).toBe('controller_unreachable');
    expect(err.status).toBe(502);
    expect(err.message).not.toContain(RACHIO_PEER_KEY);
  });

  it('maps a silent cloud to 502 controller_unreachable within timeout_s', async () => {
    await startPeer();
    peer.hang = true;
    const started = Date.now();
    const err = await controllerError(adapter({ timeout_s: 1 }).runZone(RACHIO_ZONES.front, 60));
    expect(err.code).toBe('controller_unreachable');
    expect(err.message).toMatch(/no answer .* within 1 s/);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('scrubs the key from a message even when it reaches a URL', async () => {
    await startPeer();
    // A device id that (wrongly) holds the key puts it into the request path.
    const err = await controllerError(adapter({ device_id: RACHIO_PEER_KEY }).readStatus());
    expect(err.code).toBe('controller_unreachable');
    expect(err.message).toContain('HTTP 404');
    expect(err.message).not.toContain(RACHIO_PEER_KEY);
  });

  it('forgets a failed device lookup so the next call retries it', async () => {
    await startPeer();
    peer.hang = true;
    const rachio = adapter({ timeout_s: 1 });
    await controllerError(rachio.stopAll());
    peer.hang = false;

    await rachio.stopAll();
    expect(peer.requests.filter((r) => r.path === '/1/public/device/stop_water')).toHaveLength(1);
  });
});

describe('rachio config', () => {
  it('applies the defaults: poll every 120 s, 15 s timeout, the public API base URL', async () => {
    const seen: string[] = [];
    const fakeFetch: typeof fetch = async (input) => {
      seen.push(String(input));
      return new Response(null, { status: 204 });
    };
    const config = rachioKind.configSchema.parse({ api_key: 'k' });
    expect(config.timeout_s).toBe(15);
    const rachio = rachioKind.create({
      id: 'r',
      config,
      logger: pino({ level: 'silent' }),
      clock,
      fetch: fakeFetch,
      stations: [],
      ha: null,
      notify: () => {},
    });
    expect(rachio.pollIntervalMs).toBe(120_000);
    expect(rachio.confirmWithinS).toBe(120);

    await rachio.runZone('zone-1', 60);
    expect(seen).toEqual([`${RACHIO_DEFAULT_BASE_URL}/zone/start`]);
  });

  it('reads poll_interval_s null as 120 s and honours a set value', async () => {
    await startPeer();
    expect(adapter({ poll_interval_s: null }).pollIntervalMs).toBe(120_000);
    const slow = adapter({ poll_interval_s: 600 });
    expect(slow.pollIntervalMs).toBe(600_000);
    expect(slow.confirmWithinS).toBe(600);
  });

  it.each([
    ['poll_interval_s below 60', { api_key: 'k', poll_interval_s: 30 }],
    ['poll_interval_s above 3600', { api_key: 'k', poll_interval_s: 3601 }],
    ['a fractional poll_interval_s', { api_key: 'k', poll_interval_s: 90.5 }],
    ['a missing api_key', {}],
    ['an empty api_key', { api_key: '' }],
    ['timeout_s above 60', { api_key: 'k', timeout_s: 61 }],
    ['a base_url that is not http(s)', { api_key: 'k', base_url: 'ftp://api.rach.io' }],
    ['credentials in the base_url', { api_key: 'k', base_url: 'https://user:pw@api.rach.io/1/public' }],
    ['a zone_map station with whitespace', { api_key: 'k', zone_map: { front: 'zone 1' } }],
  ])('rejects %s', (_label, block) => {
    expect(rachioKind.configSchema.safeParse(block).success).toBe(false);
  });

  it('keeps unknown keys (loose object) and the secret under the name api_key', () => {
    const parsed = rachioKind.configSchema.parse({ api_key: 'k', note: 'x' });
    expect(parsed).toMatchObject({ api_key: 'k', note: 'x' });
  });

  it('accepts a zone id as a station and nothing with whitespace', () => {
    const parse = rachioKind.parseStation ?? (() => true);
    expect(parse(RACHIO_ZONES.front)).toBe(true);
    expect(parse('')).toBe(false);
    expect(parse('zone 1')).toBe(false);
  });
});
