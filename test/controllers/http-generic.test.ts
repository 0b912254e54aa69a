import pino from 'pino';
import {
  httpGenericKind,
  isRunningValue,
  resolvePointer,
  type HttpGenericController,
} from '../../server/src/controllers/adapters/http-generic';
import { ControllerError } from '../../server/src/controllers/errors';
import type { StationBinding } from '../../server/src/controllers/types';
import { ManualClock } from '../../server/src/core/clock';
import { json, LoopbackPeer, refusedBaseUrl, rejection, type PeerHandler } from '../helpers/loopback-peer';
import { httpFetch } from '../../server/src/core/http-fetch';

/**
 * The generic HTTP adapter against a loopback "board": what it sends (method,
 * templated URL and body, headers), how it reads state through JSON Pointers,
 * and how the board's failures map to the spec 7 controller codes.
 */

const T0_MS = Date.UTC(2025, 5, 1, 12, 0, 0);
const TOKEN = 'board-token-7c1e9d';
const ok: PeerHandler = () => json(200, { ok: true });

let peer: LoopbackPeer;
let clock: ManualClock;

beforeEach(async () => {
  clock = new ManualClock(T0_MS);
  peer = await new LoopbackPeer(ok).start();
});

afterEach(async () => {
  await peer.close();
});

function bindings(...stations: string[]): StationBinding[] {
  return stations.map((station, index) => ({ zone: `zone_${index + 1}`, station }));
}

function baseConfig(base: string): Record<string, unknown> {
  return {
    run: {
      url: `${base}/zones/{station}/on?for={seconds}`,
      body: '{"zone": "{station}", "seconds": {seconds}, "minutes": {minutes}}',
    },
    stop: { method: 'PUT', url: `${base}/zones/{station}/off` },
    bearer_token: TOKEN,
    headers: { 'X-Board': 'garden' },
  };
}

function adapter(
  config: Record<string, unknown>,
  stations: StationBinding[] = bindings('1', '2'),
): HttpGenericController {
  const parsed = httpGenericKind.configSchema.parse(config);
  return httpGenericKind.create({
    id: 'board',
    config: parsed,
    logger: pino({ level: 'silent' }),
    clock,
    // The service gives adapters its node:http fetch (main.ts).
    fetch: httpFetch,
    stations,
    ha: null,
    notify: () => undefined,
  }) as HttpGenericController;
}

async function controllerError(promise: Promise<unknown>): Promise<ControllerError> {
  const err = await rejection(promise);
  expect(err).toBeInstanceOf(ControllerError);
  return err as ControllerError;
}

describe('config schema', () => {
  it('fills the documented defaults', () => {
    const config = httpGenericKind.configSchema.parse({
      run: { url: 'http://board/run/{station}' },
      stop: { url: 'http://board/stop/{station}' },
    });
    expect(config.run).toMatchObject({ method: 'POST', content_type: 'application/json' });
    expect(config).toMatchObject({
      timeout_s: 10,
      poll_interval_s: 10,
      concurrent_zones: false,
      self_timed: true,
    });
    expect(config.status).toBeUndefined();
  });

  it.each([
    ['a run without a url', { run: {}, stop: { url: 'http://b/s' } }],
    ['a missing stop', { run: { url: 'http://b/r' } }],
    ['a url that is not http', { run: { url: 'ftp://b/r' }, stop: { url: 'http://b/s' } }],
    ['an unknown method', { run: { url: 'http://b/r', method: 'HEAD' }, stop: { url: 'http://b/s' } }],
    [
      'a GET with a body',
      { run: { url: 'http://b/r', method: 'GET', body: 'x' }, stop: { url: 'http://b/s' } },
    ],
    [
      'a JSON body that is not JSON',
      { run: { url: 'http://b/r', body: '{"zone": {station' }, stop: { url: 'http://b/s' } },
    ],
    ['timeout_s 0', { run: { url: 'http://b/r' }, stop: { url: 'http://b/s' }, timeout_s: 0 }],
    ['timeout_s 61', { run: { url: 'http://b/r' }, stop: { url: 'http://b/s' }, timeout_s: 61 }],
    ['poll_interval_s 1', { run: { url: 'http://b/r' }, stop: { url: 'http://b/s' }, poll_interval_s: 1 }],
    [
      'a status pointer without a leading slash',
      {
        run: { url: 'http://b/r' },
        stop: { url: 'http://b/s' },
        status: { url: 'http://b/st', running_pointer: 'x' },
      },
    ],
  ])('rejects %s', (_what, config) => {
    expect(httpGenericKind.configSchema.safeParse(config).success).toBe(false);
  });

  it('accepts a plain-text body that is not JSON', () => {
    const config = {
      run: { url: 'http://b/r', body: 'on {station}', content_type: 'text/plain' },
      stop: { url: 'http://b/s' },
    };
    expect(httpGenericKind.configSchema.safeParse(config).success).toBe(true);
  });
});

describe('commands', () => {
  it('runs a zone with the templated URL, JSON body, bearer token and static headers', async () => {
    await adapter(baseConfig(peer.baseUrl)).runZone('3', 90);

    expect(peer.requests).toHaveLength(1);
    const [seen] = peer.requests;
    expect(seen?.method).toBe('POST');
    expect(seen?.path).toBe('/zones/3/on');
    expect(seen?.query.get('for')).toBe('90');
    expect(JSON.parse(seen?.body ?? '')).toEqual({ zone: '3', seconds: 90, minutes: 2 });
    expect(seen?.headers['content-type']).toBe('application/json');
    expect(seen?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(seen?.headers['x-board']).toBe('garden');
  });

  it('rounds {minutes} up', async () => {
    const board = adapter(baseConfig(peer.baseUrl));
    await board.runZone('1', 60);
    await board.runZone('1', 61);
    expect(peer.requests.map((r) => JSON.parse(r.body).minutes)).toEqual([1, 2]);
  });

  it('URL-encodes a hostile station so it stays one path segment and adds no query', async () => {
    await adapter(baseConfig(peer.baseUrl)).runZone('../x?y=1', 30);

    const [seen] = peer.requests;
    expect(seen?.url).toBe('/zones/..%2Fx%3Fy%3D1/on?for=30');
    expect(seen?.path).toBe('/zones/..%2Fx%3Fy%3D1/on');
    expect([...(seen?.query.keys() ?? [])]).toEqual(['for']);
    expect(JSON.parse(seen?.body ?? '').zone).toBe('../x?y=1');
  });

  it('JSON-escapes a station that tries to break out of its string', async () => {
    const hostile = 'a", "seconds": 7200, "evil": "\\';
    await adapter(baseConfig(peer.baseUrl)).runZone(hostile, 30);

    const body = JSON.parse(peer.requests[0]?.body ?? '') as Record<string, unknown>;
    expect(body).toEqual({ zone: hostile, seconds: 30, minutes: 1 });
  });

  it('form-encodes values in a form body and leaves a text body as is', async () => {
    const config = {
      ...baseConfig(peer.baseUrl),
      run: {
        url: `${peer.baseUrl}/form`,
        body: 'zone={station}&t={seconds}',
        content_type: 'application/x-www-form-urlencoded',
      },
      stop: { url: `${peer.baseUrl}/text`, body: 'off {station}', content_type: 'text/plain' },
    };
    const board = adapter(config);
    await board.runZone('a&b=c', 5);
    await board.stopZone('a&b');

    expect(new URLSearchParams(peer.requests[0]?.body).get('zone')).toBe('a&b=c');
    expect(peer.requests[0]?.body).toBe('zone=a%26b%3Dc&t=5');
    expect(peer.requests[1]?.body).toBe('off a&b');
    expect(peer.requests[1]?.headers['content-type']).toBe('text/plain');
  });

  it('stops one zone with its own method and no body', async () => {
    const scope = await adapter(baseConfig(peer.baseUrl)).stopZone('2');

    expect(scope).toBe('zone');
    const [seen] = peer.requests;
    expect(seen?.method).toBe('PUT');
    expect(seen?.path).toBe('/zones/2/off');
    expect(seen?.body).toBe('');
    expect(seen?.headers['content-type']).toBeUndefined();
  });

  it('calls the stop_all endpoint once when configured', async () => {
    const config = {
      ...baseConfig(peer.baseUrl),
      stop_all: { method: 'DELETE', url: `${peer.baseUrl}/zones` },
    };
    await adapter(config, bindings('1', '2', '3')).stopAll();

    expect(peer.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['DELETE /zones']);
  });

  it('without stop_all stops every bound station once', async () => {
    await adapter(baseConfig(peer.baseUrl), bindings('1', '2', '2', '5')).stopAll();

    expect(peer.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'PUT /zones/1/off',
      'PUT /zones/2/off',
      'PUT /zones/5/off',
    ]);
  });

  it('the per-station fallback tries every station and throws the last failure', async () => {
    peer.handler = (req) => (req.path === '/zones/1/off' ? json(500, {}) : json(200, {}));
    const err = await controllerError(adapter(baseConfig(peer.baseUrl), bindings('1', '2')).stopAll());

    expect(peer.requests.map((r) => r.path)).toEqual(['/zones/1/off', '/zones/2/off']);
    expect(err.code).toBe('controller_unreachable');
    expect(err.message).toContain('/zones/1/off');
  });

  it('arms a device-side limit only when the board gets the duration or times itself', () => {
    const untimed = { ...baseConfig(peer.baseUrl), run: { url: `${peer.baseUrl}/zones/{station}/on` } };
    expect(adapter({ ...untimed, self_timed: false }).capabilities.device_limit).toBe(false);
    expect(adapter({ ...untimed, self_timed: true }).capabilities.device_limit).toBe(true);
    const tasmota = { url: `${peer.baseUrl}/cm?cmnd=Backlog%20PulseTime1%20{pulsetime}%3BPower1%20ON` };
    expect(adapter({ ...untimed, run: tasmota, self_timed: false }).capabilities.device_limit).toBe(true);
  });

  it('fills {pulsetime} as Tasmota encodes PulseTime (tenths below 11.2 s, else seconds + 100)', async () => {
    const board = adapter({
      ...baseConfig(peer.baseUrl),
      run: { method: 'GET', url: `${peer.baseUrl}/t?p={pulsetime}` },
    });
    await board.runZone('1', 5);
    await board.runZone('1', 600);
    await board.runZone('1', 100_000);
    expect(peer.requests.map((r) => r.query.get('p'))).toEqual(['50', '700', '64900']);
  });

  it('reports its capabilities and refuses a zone scan', async () => {
    const board = adapter({ ...baseConfig(peer.baseUrl), self_timed: false, concurrent_zones: true });
    expect(board.capabilities).toEqual({
      per_zone_stop: true,
      state_readback: false,
      zone_scan: false,
      water_level: false,
      flow: false,
      concurrent_zones: true,
      self_timed: false,
      device_limit: true,
    });
    const err = await controllerError(board.scanZones());
    expect(err.code).toBe('controller_unsupported');
  });
});

describe('status readback', () => {
  const document = {
    zones: {
      '1': { running: true, remaining: 42 },
      '2': { running: 'off', remaining: 0 },
      'a/b': { running: 'ON', remaining: '15' },
      '4': { running: null },
    },
  };

  function withStatus(base: string, status: Record<string, unknown>): Record<string, unknown> {
    return { ...baseConfig(base), poll_interval_s: 30, timeout_s: 5, status };
  }

  it('reads each station through the running and remaining pointers', async () => {
    peer.handler = (req) => (req.path === '/state' ? json(200, document) : json(404, {}));
    const board = adapter(
      withStatus(peer.baseUrl, {
        url: `${peer.baseUrl}/state`,
        running_pointer: '/zones/{station}/running',
        remaining_pointer: '/zones/{station}/remaining',
      }),
      bindings('1', '2', 'a/b', '4', '9'),
    );

    const status = await board.readStatus();

    expect(status.observed_epoch).toBe(T0_MS / 1000);
    expect(status.stations).toEqual({
      '1': { running: true, remaining_s: 42 },
      '2': { running: false, remaining_s: 0 },
      'a/b': { running: true, remaining_s: 15 },
      '4': { running: false, remaining_s: null },
    });
    expect(status.stations['9']).toBeUndefined();
    expect(peer.requests).toHaveLength(1);
    expect(peer.requests[0]?.method).toBe('GET');
    expect(peer.requests[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('polls when a status request is configured', () => {
    const board = adapter(withStatus(peer.baseUrl, { url: `${peer.baseUrl}/state`, running_pointer: '/on' }));
    expect(board.capabilities.state_readback).toBe(true);
    expect(board.pollIntervalMs).toBe(30_000);
    expect(board.confirmWithinS).toBe(35);
  });

  it('fetches one document per station when the status URL names {station}', async () => {
    peer.handler = (req) => json(200, { relay: req.path === '/zone/2' ? 'open' : 'closed' });
    const board = adapter(
      withStatus(peer.baseUrl, { url: `${peer.baseUrl}/zone/{station}`, running_pointer: '/relay' }),
      bindings('1', '2'),
    );

    const status = await board.readStatus();

    expect(peer.requests.map((r) => r.path)).toEqual(['/zone/1', '/zone/2']);
    expect(status.stations).toEqual({
      '1': { running: false, remaining_s: null },
      '2': { running: true, remaining_s: null },
    });
  });

  it('a status answer that is not JSON is controller_unreachable', async () => {
    peer.handler = () => ({ status: 200, body: '<html>', contentType: 'text/html' });
    const board = adapter(withStatus(peer.baseUrl, { url: `${peer.baseUrl}/state`, running_pointer: '/on' }));
    const err = await controllerError(board.readStatus());
    expect(err.code).toBe('controller_unreachable');
    expect(err.message).toContain('not JSON');
  });

  it('without a status request it is fire-and-forget: readStatus is controller_unsupported (501)', async () => {
    const board = adapter(baseConfig(peer.baseUrl));
    expect(board.capabilities.state_readback).toBe(false);
    expect(board.pollIntervalMs).toBeNull();
    expect(board.confirmWithinS).toBeNull();

    const err = await controllerError(board.readStatus());
    expect(err.code).toBe('controller_unsupported');
    expect(err.status).toBe(501);
    expect(peer.requests).toHaveLength(0);
  });

  it.each([true, 1, 2, 'on', 'ON', 'open', 'running', 'true', ' True ', '1'])('%p means running', (value) => {
    expect(isRunningValue(value)).toBe(true);
  });

  it.each([false, 0, 'off', 'OFF', 'closed', 'idle', '', null, {}, []])('%p means not running', (value) => {
    expect(isRunningValue(value)).toBe(false);
  });

  it('resolves RFC 6901 pointers, including escaped tokens and array indexes', () => {
    const doc = { 'a/b': { 'c~d': [10, 20] }, '': 'empty' };
    expect(resolvePointer(doc, '/a~1b/c~0d/1')).toBe(20);
    expect(resolvePointer(doc, '/')).toBe('empty');
    expect(resolvePointer(doc, '')).toBe(doc);
    expect(resolvePointer(doc, '/a~1b/c~0d/2')).toBeUndefined();
    expect(resolvePointer(doc, '/a~1b/c~0d/01')).toBeUndefined();
    expect(resolvePointer(doc, '/missing/x')).toBeUndefined();
    expect(resolvePointer({ toString: 1 }, '/constructor')).toBeUndefined();
  });
});

describe('failures', () => {
  async function runFailure(base: string, timeoutS = 10): Promise<ControllerError> {
    const err = await controllerError(adapter({ ...baseConfig(base), timeout_s: timeoutS }).runZone('1', 60));
    expect(err.message).not.toContain(TOKEN);
    expect(JSON.stringify(err.extra)).not.toContain(TOKEN);
    return err;
  }

  it.each([401, 403])('%i is controller_auth_failed (424), never a 401', async (status) => {
    peer.handler = () => json(status, { error: `bad token ${TOKEN}` });
    const err = await runFailure(peer.baseUrl);
    expect(err.code).toBe('controller_auth_failed');
    expect(err.status).toBe(424);
  });

  it('429 is controller_rate_limited with the remaining-calls header', async () => {
    peer.handler = () => json(429, {}, undefined, { 'x-ratelimit-remaining': '0' });
    const err = await runFailure(peer.baseUrl);
    expect(err.code).toBe('controller_rate_limited');
    expect(err.status).toBe(429);
    expect(err.extra.rate_limit_remaining).toBe('0');
  });

  it('500 is controller_unreachable (502) naming the status', async () => {
    peer.handler = () => json(500, { detail: TOKEN });
    const err = await runFailure(peer.baseUrl);
    expect(err.code).toBe('controller_unreachable');
    expect(err.status).toBe(502);
    expect(err.message).toContain('HTTP 500');
  });

  it('a refused connection is controller_unreachable', async () => {
    const err = await runFailure(await refusedBaseUrl());
    expect(err.code).toBe('controller_unreachable');
    expect(err.status).toBe(502);
  });

  it('a board that never answers is controller_unreachable after timeout_s', async () => {
    peer.handler = () => ({ status: 200, body: '', hang: true });
    const started = Date.now();
    const err = await runFailure(peer.baseUrl, 1);
    expect(err.code).toBe('controller_unreachable');
    expect(err.message).toContain('within 1 s');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('a token placed in the URL query is not echoed in errors', async () => {
    peer.handler = () => json(500, {});
    const config = {
      ...baseConfig(peer.baseUrl),
      run: { url: `${peer.baseUrl}/run?key=${TOKEN}&z={station}` },
    };
    const err = await controllerError(adapter(config).runZone('1', 60));
    expect(err.message).toContain('/run');
    expect(err.message).not.toContain(TOKEN);
  });
});
