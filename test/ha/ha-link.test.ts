import { Writable } from 'node:stream';
import pino from 'pino';
import { systemClock } from '../../server/src/core/clock';
import { silentLogger, type Logger } from '../../server/src/core/logger';
import { HaLink, HaRequestError, type HaLinkOptions, type HaState } from '../../server/src/ha/ha-link';
import { freePort, HaPeer, PEER_TOKEN, waitFor } from '../helpers/ha-peer';

const STATES = [
  {
    entity_id: 'sensor.outdoor_temperature',
    state: '21.4',
    attributes: {
      unit_of_measurement: '°C',
      device_class: 'temperature',
      friendly_name: 'Outdoor temperature',
    },
    last_changed: '2025-08-13T15:40:38.687439+00:00',
    last_updated: '2025-08-13T15:40:38.687439+00:00',
  },
  {
    entity_id: 'switch.small_bedroom_switch_0',
    state: 'off',
    attributes: { friendly_name: 'Small bedroom Switch 0' },
    last_changed: '2025-08-13T15:40:38.687439+00:00',
    last_updated: '2025-08-13T15:40:38.687439+00:00',
    last_reported: '2025-08-13T16:12:42.187999+00:00',
  },
  {
    entity_id: 'input_number.streamdeck',
    state: '0',
    attributes: { initial: null, editable: true, min: 0, max: 100, step: 1, mode: 'slider' },
  },
];

const peers: HaPeer[] = [];
const links: HaLink[] = [];

async function startPeer(options: Parameters<typeof HaPeer.start>[0] = {}): Promise<HaPeer> {
  const peer = await HaPeer.start({ states: STATES, ...options });
  peers.push(peer);
  return peer;
}

function makeLink(url: string, overrides: Partial<HaLinkOptions> = {}): HaLink {
  const link = new HaLink({
    url,
    token: PEER_TOKEN,
    logger: silentLogger(),
    clock: systemClock,
    retryMinMs: 20,
    retryMaxMs: 100,
    ...overrides,
  });
  links.push(link);
  return link;
}

function capturingLogger(): { logger: Logger; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { logger: pino({ level: 'trace' }, stream), text: () => chunks.join('') };
}

afterEach(async () => {
  for (const link of links.splice(0)) await link.stop();
  for (const peer of peers.splice(0)) await peer.close();
});

describe('HaLink connection', () => {
  it('authenticates with the token and reports itself reachable', async () => {
    const peer = await startPeer();
    const link = makeLink(peer.url);
    expect(link.reachable).toBe(false);
    await link.start();

    expect(peer.authAttempts).toEqual([PEER_TOKEN]);
    expect(peer.openConnections).toBe(1);
    expect(link.reachable).toBe(true);
    expect(link.health()).toEqual({ env_configured: true, reachable: true, snapshot_source: null });
    expect(link.status()).toMatchObject({
      state: 'connected',
      ha_version: '2025.8.1',
      note: null,
      mode: 'standalone',
    });
    expect(link.subsystemStatus()).toEqual({ status: 'ok', note: null });
    // Like the library's own createSocket: coalesced messages requested with id 1 on HA >= 2022.9.
    await waitFor(() => peer.received.some((m) => m.type === 'supported_features'), 'supported_features');
    expect(peer.received[0]).toEqual({
      type: 'supported_features',
      id: 1,
      features: { coalesce_messages: 1 },
    });
  });

  it('does not ask for coalesced messages from an HA older than 2022.9', async () => {
    const peer = await startPeer({ haVersion: '2022.8.7' });
    const link = makeLink(peer.url);
    await link.start();
    await link.getConfig();
    expect(peer.received.map((m) => m.type)).toEqual(['get_config']);
  });

  it('on auth_invalid stays unreachable with a clear note, does not crash and does not hammer HA', async () => {
    const peer = await startPeer();
    const link = makeLink(peer.url, { token: 'wrong-token', authRetryMs: 60_000 });
    await expect(link.start()).resolves.toBeUndefined();

    expect(link.reachable).toBe(false);
    const status = link.status();
    expect(status.state).toBe('auth_failed');
    expect(status.note).toMatch(/rejected the access token/);
    expect(status.note).toMatch(/Invalid access token or password/);
    expect(link.health()).toEqual({ env_configured: true, reachable: false, snapshot_source: null });
    expect(link.subsystemStatus().status).toBe('invalid');
    await expect(link.getStates()).rejects.toMatchObject({ code: 'not_connected' });

    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(peer.authAttempts).toEqual(['wrong-token']);
    expect(peer.openConnections).toBe(0);
  });

  it('retries a failed first connect with back-off until HA comes up', async () => {
    const port = await freePort();
    const link = makeLink(`ws://127.0.0.1:${port}/api/websocket`);
    await link.start();
    expect(link.reachable).toBe(false);
    expect(link.status().state).toBe('unreachable');
    expect(link.status().note).toMatch(
      /not reachable at ws:\/\/127\.0\.0\.1:\d+\/api\/websocket: .*ECONNREFUSED/,
    );
    expect(link.subsystemStatus().status).toBe('unavailable');

    const changes: boolean[] = [];
    link.onConnectionChange((connected) => changes.push(connected));
    const peer = await startPeer({ port });
    await waitFor(() => link.reachable, 'the retried connect');
    expect(changes).toEqual([true]);
    expect(peer.openConnections).toBe(1);
    await expect(link.getConfig()).resolves.toMatchObject({ time_zone: 'America/Denver' });
  });

  it('stop() closes the socket cleanly and ends all work', async () => {
    const peer = await startPeer();
    const link = makeLink(peer.url);
    await link.start();
    const changes: boolean[] = [];
    link.onConnectionChange((connected) => changes.push(connected));
    await link.stop();

    expect(link.reachable).toBe(false);
    expect(link.status().state).toBe('stopped');
    expect(changes).toEqual([false]);
    await waitFor(() => peer.openConnections === 0, 'the peer to see the close');
    await expect(link.getStates()).rejects.toBeInstanceOf(HaRequestError);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(peer.connectionCount).toBe(1);
  });

  it('stop() while HA is down ends the retries', async () => {
    const port = await freePort();
    const link = makeLink(`ws://127.0.0.1:${port}/api/websocket`, { retryMinMs: 50, retryMaxMs: 50 });
    await link.start();
    await link.stop();
    const peer = await startPeer({ port });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(peer.connectionCount).toBe(0);
  });

  it('never logs the token', async () => {
    const peer = await startPeer();
    const { logger, text } = capturingLogger();
    const bad = makeLink(peer.url, { token: 'secret-wrong-token-xyz', logger, authRetryMs: 60_000 });
    await bad.start();
    const good = makeLink(peer.url, { logger });
    await good.start();
    peer.dropConnections();
    await waitFor(() => peer.openConnections === 1 && good.reachable, 'reconnect');
    await good.stop();
    await bad.stop();

    const logs = text();
    expect(logs).toMatch(/rejected the access token/);
    expect(logs).toMatch(/reconnected to Home Assistant/);
    expect(logs).not.toContain('secret-wrong-token-xyz');
    expect(logs).not.toContain(PEER_TOKEN);
  });
});

describe('HaLink requests', () => {
  it('reads states and config', async () => {
    const peer = await startPeer();
    const link = makeLink(peer.url);
    await link.start();

    const states = await link.getStates();
    expect(states.map((s) => s.entity_id)).toEqual(STATES.map((s) => s.entity_id));
    const temperature = states.find((s) => s.entity_id === 'sensor.outdoor_temperature') as HaState;
    expect(temperature.state).toBe('21.4');
    expect(temperature.attributes.unit_of_measurement).toBe('°C');
    expect(temperature.last_updated).toBe('2025-08-13T15:40:38.687439+00:00');
    expect(states[1]?.last_reported).toBe('2025-08-13T16:12:42.187999+00:00');

    const config = await link.getConfig();
    expect(config).toMatchObject({
      latitude: 40.015,
      longitude: -105.2705,
      elevation: 1655,
      time_zone: 'America/Denver',
    });
  });

  it('calls services with domain, service, data and target, and surfaces HA errors', async () => {
    const peer = await startPeer();
    const link = makeLink(peer.url);
    await link.start();

    await expect(
      link.callService('valve', 'open_valve', undefined, { entity_id: 'valve.front_lawn' }),
    ).resolves.toMatchObject({ response: null });
    await link.callService(
      'input_number',
      'set_value',
      { value: 42 },
      { entity_id: 'input_number.streamdeck' },
    );
    expect(peer.calls).toEqual([
      {
        domain: 'valve',
        service: 'open_valve',
        service_data: undefined,
        target: { entity_id: 'valve.front_lawn' },
        return_response: undefined,
      },
      {
        domain: 'input_number',
        service: 'set_value',
        service_data: { value: 42 },
        target: { entity_id: 'input_number.streamdeck' },
        return_response: undefined,
      },
    ]);

    peer.rejectServices.add('switch.turn_on');
    const failure = link.callService('switch', 'turn_on', undefined, { entity_id: 'switch.nope' });
    await expect(failure).rejects.toBeInstanceOf(HaRequestError);
    await expect(failure).rejects.toMatchObject({
      code: 'service_not_found',
      message: 'call_service switch.turn_on: Action switch.turn_on not found.',
    });
  });

  it('rejects requests at once while not connected', async () => {
    const link = makeLink('ws://127.0.0.1:9/api/websocket');
    await expect(link.callService('switch', 'turn_on')).rejects.toMatchObject({ code: 'not_connected' });
  });

  it('times out a request HA never answers', async () => {
    const peer = await startPeer();
    const link = makeLink(peer.url, { requestTimeoutMs: 100 });
    await link.start();
    peer.ignoreCommands.add('get_config');
    await expect(link.getConfig()).rejects.toMatchObject({ code: 'timeout' });
    // The connection itself is fine and keeps serving.
    expect(link.reachable).toBe(true);
    await expect(link.getStates()).resolves.toHaveLength(3);
  });
});

describe('HaLink state subscription', () => {
  it('delivers live state_changed events filtered by entity over one shared subscription', async () => {
    const peer = await startPeer();
    const link = makeLink(peer.url);
    await link.start();

    const seenA: Array<[string, string | null]> = [];
    const seenB: Array<[string, string | null]> = [];
    const stopA = link.subscribeStates(['sensor.outdoor_temperature'], (id, state) =>
      seenA.push([id, state?.state ?? null]),
    );
    const stopB = link.subscribeStates(
      ['sensor.outdoor_temperature', 'switch.small_bedroom_switch_0'],
      (id, state) => seenB.push([id, state?.state ?? null]),
    );
    await waitFor(() => peer.subscriptionCount() === 1, 'the subscription');
    expect(peer.received.filter((m) => m.type === 'subscribe_events')).toEqual([
      expect.objectContaining({ type: 'subscribe_events', event_type: 'state_changed' }),
    ]);

    peer.emitStateChange('sensor.unrelated', { state: '1' });
    peer.emitStateChange('switch.small_bedroom_switch_0', { state: 'on' });
    peer.emitStateChange('sensor.outdoor_temperature', { state: '22.0' });
    await waitFor(() => seenA.length === 1 && seenB.length === 2, 'the events');
    expect(seenA).toEqual([['sensor.outdoor_temperature', '22.0']]);
    expect(seenB).toEqual([
      ['switch.small_bedroom_switch_0', 'on'],
      ['sensor.outdoor_temperature', '22.0'],
    ]);

    // Entity removed: new_state null.
    peer.emitStateChange('sensor.outdoor_temperature', null);
    await waitFor(() => seenA.length === 2, 'the removal');
    expect(seenA[1]).toEqual(['sensor.outdoor_temperature', null]);

    stopA();
    expect(peer.subscriptionCount()).toBe(1);
    stopB();
    await waitFor(() => peer.subscriptionCount() === 0, 'the unsubscribe');
    expect(peer.received.some((m) => m.type === 'unsubscribe_events')).toBe(true);
  });

  it('accepts subscribers before start and subscribes once connected', async () => {
    const peer = await startPeer();
    const link = makeLink(peer.url);
    const seen: string[] = [];
    link.subscribeStates(['switch.small_bedroom_switch_0'], (_id, state) =>
      seen.push(state?.state ?? 'removed'),
    );
    await link.start();
    await waitFor(() => peer.subscriptionCount() === 1, 'the subscription');
    peer.emitStateChange('switch.small_bedroom_switch_0', { state: 'on' });
    await waitFor(() => seen.length === 1, 'the event');
    expect(seen).toEqual(['on']);
  });

  it('reconnects after the connection drops: reachable goes false then true and the subscription resumes', async () => {
    const peer = await startPeer();
    const link = makeLink(peer.url);
    await link.start();
    const seen: string[] = [];
    link.subscribeStates(['sensor.outdoor_temperature'], (_id, state) =>
      seen.push(state?.state ?? 'removed'),
    );
    await waitFor(() => peer.subscriptionCount() === 1, 'the subscription');

    const changes: boolean[] = [];
    const reachableAtChange: boolean[] = [];
    link.onConnectionChange((connected) => {
      changes.push(connected);
      reachableAtChange.push(link.reachable);
    });
    peer.dropConnections();
    await waitFor(() => changes.length === 2, 'disconnect and reconnect');
    expect(changes).toEqual([false, true]);
    expect(reachableAtChange).toEqual([false, true]);
    expect(link.reachable).toBe(true);
    expect(peer.connectionCount).toBe(2);
    expect(peer.authAttempts).toEqual([PEER_TOKEN, PEER_TOKEN]);

    await waitFor(() => peer.subscriptionCount() === 1, 'the resubscription');
    peer.emitStateChange('sensor.outdoor_temperature', { state: '23.5' });
    await waitFor(() => seen.length === 1, 'an event on the new connection');
    expect(seen).toEqual(['23.5']);
    await expect(link.getStates()).resolves.toHaveLength(3);
  });

  it('after the token is revoked during an outage, reports auth_failed instead of looping', async () => {
    const peer = await startPeer();
    const link = makeLink(peer.url, { authRetryMs: 60_000 });
    await link.start();
    peer.token = 'rotated';
    peer.dropConnections();
    await waitFor(() => link.status().state === 'auth_failed', 'auth failure on reconnect');
    expect(link.reachable).toBe(false);
    const attempts = peer.authAttempts.length;
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(peer.authAttempts.length).toBe(attempts);
  });
});

describe('HaLink keep-alive', () => {
  it('pings HA and drops a connection whose pings go unanswered, then reconnects', async () => {
    const peer = await startPeer();
    const link = makeLink(peer.url, { pingIntervalMs: 40, pingTimeoutMs: 60 });
    await link.start();
    await waitFor(() => peer.pings >= 2, 'pings');
    expect(peer.connectionCount).toBe(1);

    const changes: boolean[] = [];
    link.onConnectionChange((connected) => changes.push(connected));
    peer.respondToPings = false;
    await waitFor(() => changes.length >= 1, 'the half-open connection to be dropped');
    peer.respondToPings = true;
    await waitFor(() => link.reachable && peer.connectionCount === 2, 'the reconnect');
    expect(changes.slice(0, 2)).toEqual([false, true]);
  });
});
