import pino from 'pino';
import { ManualClock, systemClock } from '../../server/src/core/clock';
import { silentLogger } from '../../server/src/core/logger';
import { ControllerError } from '../../server/src/controllers/errors';
import {
  HA_NOT_CONFIGURED,
  haServiceCallKind,
  HaServiceCallController,
  type HaServiceCallConfig,
  type HaServiceCallTimings,
} from '../../server/src/controllers/adapters/ha-service-call';
import type { AdapterContext, HaServices, StationBinding } from '../../server/src/controllers/types';
import { HaLink } from '../../server/src/ha/ha-link';
import { HaPeer, PEER_TOKEN, waitFor, type PeerStateInput } from '../helpers/ha-peer';

/**
 * The `ha_service_call` adapter against a real HaLink talking to the
 * loopback Home Assistant peer: the service calls HA records, the pushed
 * valve state, and how HA's absence, outages and refusals reach the
 * dispatcher as controller errors.
 */

const STATES: PeerStateInput[] = [
  { entity_id: 'switch.front_lawn', state: 'off', attributes: { friendly_name: 'Front lawn' } },
  {
    entity_id: 'valve.back_beds',
    state: 'closed',
    attributes: { device_class: 'water', friendly_name: 'Back beds', supported_features: 3 },
  },
  { entity_id: 'valve.pond_fill', state: 'closed', attributes: { friendly_name: 'Pond fill' } },
  {
    entity_id: 'valve.gas_main',
    state: 'open',
    attributes: { device_class: 'gas', friendly_name: 'Gas main' },
  },
  { entity_id: 'switch.drip_line', state: 'off', attributes: {} },
  { entity_id: 'input_boolean.test_zone', state: 'off', attributes: { friendly_name: 'Test zone' } },
  { entity_id: 'script.water_roses', state: 'off', attributes: { friendly_name: 'Water roses' } },
  { entity_id: 'sensor.outdoor_temperature', state: '21.4', attributes: { friendly_name: 'Outdoor' } },
];

const BINDINGS: StationBinding[] = [
  { zone: 'front_lawn', station: 'switch.front_lawn' },
  { zone: 'back_beds', station: 'valve.back_beds' },
  { zone: 'roses', station: 'script.water_roses' },
];

const T0_MS = Date.parse('2026-05-01T06:00:00Z');

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startPeer(): Promise<HaPeer> {
  const peer = await HaPeer.start({ states: STATES });
  cleanups.push(() => peer.close());
  return peer;
}

function makeLink(peer: HaPeer): HaLink {
  const link = new HaLink({
    url: peer.url,
    token: PEER_TOKEN,
    logger: silentLogger(),
    clock: systemClock,
    retryMinMs: 20,
    retryMaxMs: 100,
  });
  cleanups.push(() => link.stop());
  return link;
}

async function startLink(peer: HaPeer): Promise<HaLink> {
  const link = makeLink(peer);
  await link.start();
  return link;
}

interface Harness {
  adapter: HaServiceCallController;
  notify: jest.Mock;
  clock: ManualClock;
}

function makeAdapter(
  ha: HaServices | null,
  options: {
    stations?: StationBinding[];
    config?: Record<string, unknown>;
    timings?: HaServiceCallTimings;
  } = {},
): Harness {
  const notify = jest.fn();
  const clock = new ManualClock(T0_MS);
  const ctx: AdapterContext<HaServiceCallConfig> = {
    id: 'ha',
    config: haServiceCallKind.configSchema.parse(options.config ?? {}),
    logger: pino({ level: 'silent' }),
    clock,
    fetch,
    stations: options.stations ?? BINDINGS,
    ha,
    notify,
  };
  const adapter = new HaServiceCallController(ctx, options.timings);
  cleanups.push(() => adapter.stop());
  return { adapter, notify, clock };
}

/** Runs a command expected to fail and returns its ControllerError. */
async function controllerErrorOf(run: () => Promise<unknown>): Promise<ControllerError> {
  const err = await run().then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ControllerError);
  return err as ControllerError;
}

describe('ha_service_call kind', () => {
  it('describes itself, parses entity-id stations of the drivable domains and applies config defaults', () => {
    expect(haServiceCallKind.kind).toBe('ha_service_call');
    expect(haServiceCallKind.label).toBe('Home Assistant switch, valve or script');
    const parse = haServiceCallKind.parseStation as (station: string) => boolean;
    for (const ok of [
      'switch.front_lawn',
      'valve.front_lawn',
      'input_boolean.zone_1',
      'script.water',
      ' valve.x ',
    ]) {
      expect(parse(ok)).toBe(true);
    }
    for (const bad of [
      '3',
      'light.porch',
      'switch.',
      'switch.Front',
      'switch._x',
      'switch.a__b',
      'front_lawn',
    ]) {
      expect(parse(bad)).toBe(false);
    }
    expect(haServiceCallKind.configSchema.parse({})).toEqual({
      timeout_s: 10,
      concurrent_zones: false,
      script_seconds_variable: 'seconds',
    });
    expect(haServiceCallKind.configSchema.safeParse({ timeout_s: 61 }).success).toBe(false);
    expect(haServiceCallKind.configSchema.safeParse({ zone_map: { lawn: 'light.porch' } }).success).toBe(
      false,
    );
    expect(haServiceCallKind.configSchema.safeParse({ zone_map: { lawn: 'valve.lawn' } }).success).toBe(true);
  });

  it('counts a script zone (it receives the seconds) as a device-side limit, a switch or valve not', () => {
    const scripts = [{ zone: 'lawn', station: 'script.water_lawn' }];
    expect(makeAdapter(null, { stations: scripts }).adapter.capabilities.device_limit).toBe(true);
    const mixed = [...scripts, { zone: 'beds', station: 'switch.beds' }];
    expect(makeAdapter(null, { stations: mixed }).adapter.capabilities.device_limit).toBe(false);
  });

  it('reports its capabilities from the bound stations and config', () => {
    const { adapter } = makeAdapter(null, { config: { concurrent_zones: true } });
    expect(adapter.capabilities).toEqual({
      per_zone_stop: true,
      state_readback: true,
      zone_scan: true,
      water_level: false,
      flow: false,
      concurrent_zones: true,
      self_timed: false,
      device_limit: false,
    });
    expect(adapter.pollIntervalMs).toBeNull();
    expect(adapter.confirmWithinS).toBe(5);

    const scriptsOnly = makeAdapter(null, { stations: [{ zone: 'roses', station: 'script.water_roses' }] });
    expect(scriptsOnly.adapter.capabilities.state_readback).toBe(false);
    expect(scriptsOnly.adapter.confirmWithinS).toBeNull();
  });
});

describe('ha_service_call commands', () => {
  it('runs a switch with switch.turn_on and an input_boolean with input_boolean.turn_on, targeting the entity', async () => {
    const peer = await startPeer();
    const { adapter } = makeAdapter(await startLink(peer));
    await adapter.runZone('switch.front_lawn', 600);
    await adapter.runZone('input_boolean.test_zone', 60);
    expect(peer.calls).toEqual([
      {
        domain: 'switch',
        service: 'turn_on',
        service_data: undefined,
        target: { entity_id: 'switch.front_lawn' },
        return_response: undefined,
      },
      {
        domain: 'input_boolean',
        service: 'turn_on',
        service_data: undefined,
        target: { entity_id: 'input_boolean.test_zone' },
        return_response: undefined,
      },
    ]);
  });

  it('opens a valve with valve.open_valve', async () => {
    const peer = await startPeer();
    const { adapter } = makeAdapter(await startLink(peer));
    await adapter.runZone('valve.back_beds', 300);
    expect(peer.calls).toEqual([
      expect.objectContaining({
        domain: 'valve',
        service: 'open_valve',
        target: { entity_id: 'valve.back_beds' },
      }),
    ]);
  });

  it('runs a script with the seconds and the station as variables (variable name configurable)', async () => {
    const peer = await startPeer();
    const link = await startLink(peer);
    await makeAdapter(link).adapter.runZone('script.water_roses', 900);
    await makeAdapter(link, { config: { script_seconds_variable: 'duration' } }).adapter.runZone(
      'script.water_roses',
      120,
    );
    expect(peer.calls.map((c) => [`${c.domain}.${c.service}`, c.service_data, c.target])).toEqual([
      [
        'script.turn_on',
        { variables: { seconds: 900, station: 'script.water_roses' } },
        { entity_id: 'script.water_roses' },
      ],
      [
        'script.turn_on',
        { variables: { duration: 120, station: 'script.water_roses' } },
        { entity_id: 'script.water_roses' },
      ],
    ]);
  });

  it('stops one zone with the domain’s off service and answers scope zone', async () => {
    const peer = await startPeer();
    const { adapter } = makeAdapter(await startLink(peer));
    await expect(adapter.stopZone('switch.front_lawn')).resolves.toBe('zone');
    await expect(adapter.stopZone('valve.back_beds')).resolves.toBe('zone');
    await expect(adapter.stopZone('script.water_roses')).resolves.toBe('zone');
    await expect(adapter.stopZone('input_boolean.test_zone')).resolves.toBe('zone');
    expect(peer.calls.map((c) => [`${c.domain}.${c.service}`, c.target?.entity_id])).toEqual([
      ['switch.turn_off', 'switch.front_lawn'],
      ['valve.close_valve', 'valve.back_beds'],
      ['script.turn_off', 'script.water_roses'],
      ['input_boolean.turn_off', 'input_boolean.test_zone'],
    ]);
  });

  it('stop_all stops every bound station once, tries all even when one fails, and throws that failure', async () => {
    const peer = await startPeer();
    const stations = [...BINDINGS, { zone: 'front_lawn_again', station: 'switch.front_lawn' }];
    const { adapter } = makeAdapter(await startLink(peer), { stations });
    await adapter.stopAll();
    const stopped = (): string[] =>
      peer.calls.map((c) => `${c.domain}.${c.service} ${String(c.target?.entity_id)}`);
    expect(stopped().sort()).toEqual([
      'script.turn_off script.water_roses',
      'switch.turn_off switch.front_lawn',
      'valve.close_valve valve.back_beds',
    ]);

    peer.calls.length = 0;
    peer.rejectServices.add('valve.close_valve');
    const err = await controllerErrorOf(() => adapter.stopAll());
    expect(err.code).toBe('controller_unreachable');
    expect(err.message).toContain('Action valve.close_valve not found.');
    expect(stopped()).toHaveLength(3);
  });

  it('refuses a station that is not a drivable entity id without calling HA', async () => {
    const peer = await startPeer();
    const { adapter } = makeAdapter(await startLink(peer));
    const err = await controllerErrorOf(() => adapter.runZone('light.porch', 60));
    expect(err.code).toBe('controller_unsupported');
    expect(peer.calls).toHaveLength(0);
  });
});

describe('ha_service_call pushed state', () => {
  it('seeds from get_states on start, then follows state_changed: running, notify, arrival time', async () => {
    const peer = await startPeer();
    const { adapter, notify, clock } = makeAdapter(await startLink(peer));
    await adapter.start();
    await waitFor(() => peer.subscriptionCount() === 1, 'the state subscription');
    expect(peer.received.filter((m) => m.type === 'get_states')).toHaveLength(1);

    const seeded = await adapter.readStatus();
    expect(seeded.stations).toEqual({
      'switch.front_lawn': { running: false, remaining_s: null },
      'valve.back_beds': { running: false, remaining_s: null },
    });
    expect(seeded.observed_epoch).toBe(T0_MS / 1000);
    expect(seeded).toMatchObject({ water_level_pct: null, flow_rate_gpm: null, flow_total_gal_today: null });
    notify.mockClear();

    clock.advance(42_000);
    peer.emitStateChange('switch.front_lawn', { state: 'on' });
    await waitFor(() => notify.mock.calls.length === 1, 'notify after the switch turned on');
    const status = await adapter.readStatus();
    expect(status.stations['switch.front_lawn']).toEqual({ running: true, remaining_s: null });
    expect(status.stations['valve.back_beds']).toEqual({ running: false, remaining_s: null });
    expect(status.observed_epoch).toBe(T0_MS / 1000 + 42);
    // State arrived by push: no further get_states.
    expect(peer.received.filter((m) => m.type === 'get_states')).toHaveLength(1);
  });

  it('a valve opening counts as running; unavailable or removed makes the station unknown (absent)', async () => {
    const peer = await startPeer();
    const { adapter, notify } = makeAdapter(await startLink(peer));
    await adapter.start();
    await waitFor(() => peer.subscriptionCount() === 1, 'the state subscription');
    expect(notify).toHaveBeenCalledTimes(1); // the first read made the stations known
    notify.mockClear();

    peer.emitStateChange('valve.back_beds', { state: 'opening' });
    await waitFor(() => notify.mock.calls.length === 1, 'the valve opening');
    expect((await adapter.readStatus()).stations['valve.back_beds']).toEqual({
      running: true,
      remaining_s: null,
    });

    peer.emitStateChange('valve.back_beds', { state: 'unavailable' });
    await waitFor(() => notify.mock.calls.length === 2, 'the valve going unavailable');
    const unavailable = await adapter.readStatus();
    expect(unavailable.stations).not.toHaveProperty(['valve.back_beds']);
    expect(unavailable.stations).toHaveProperty(['switch.front_lawn']);

    peer.emitStateChange('switch.front_lawn', null);
    await waitFor(() => notify.mock.calls.length === 3, 'the switch removed');
    expect((await adapter.readStatus()).stations).toEqual({});
  });

  it('never reports a script station and does not notify for events that change nothing', async () => {
    const peer = await startPeer();
    const { adapter, notify } = makeAdapter(await startLink(peer));
    await adapter.start();
    await waitFor(() => peer.subscriptionCount() === 1, 'the state subscription');
    notify.mockClear();
    peer.emitStateChange('script.water_roses', { state: 'on' });
    peer.emitStateChange('switch.front_lawn', { state: 'off', attributes: { friendly_name: 'Renamed' } });
    peer.emitStateChange('valve.back_beds', { state: 'open' });
    await waitFor(() => notify.mock.calls.length === 1, 'the valve event');
    const status = await adapter.readStatus();
    expect(Object.keys(status.stations).sort()).toEqual(['switch.front_lawn', 'valve.back_beds']);
    expect(status.stations['valve.back_beds']?.running).toBe(true);
    expect(notify).toHaveBeenCalledTimes(1);
  });

  it('starts without throwing while HA is not connected yet, and reads the states once it is', async () => {
    const peer = await startPeer();
    const link = makeLink(peer);
    const { adapter, notify } = makeAdapter(link, { timings: { retryMs: 30 } });
    await expect(adapter.start()).resolves.toBeUndefined();
    expect(notify).not.toHaveBeenCalled();

    peer.setState({ entity_id: 'valve.back_beds', state: 'open', attributes: { device_class: 'water' } });
    await link.start();
    await waitFor(() => notify.mock.calls.length > 0, 'the retried read after the link came up');
    const status = await adapter.readStatus();
    expect(status.stations['valve.back_beds']).toEqual({ running: true, remaining_s: null });
    expect(status.stations['switch.front_lawn']).toEqual({ running: false, remaining_s: null });
  });

  it('re-reads the states periodically, catching a change no event announced (missed during a reconnect)', async () => {
    const peer = await startPeer();
    const { adapter, notify } = makeAdapter(await startLink(peer), { timings: { refreshMs: 30 } });
    await adapter.start();
    notify.mockClear();
    peer.setState({ entity_id: 'switch.front_lawn', state: 'on' });
    await waitFor(() => notify.mock.calls.length === 1, 'the periodic read');
    expect((await adapter.readStatus()).stations['switch.front_lawn']).toEqual({
      running: true,
      remaining_s: null,
    });
  });

  it('a controller of scripts only has no readback', async () => {
    const peer = await startPeer();
    const { adapter } = makeAdapter(await startLink(peer), {
      stations: [{ zone: 'roses', station: 'script.water_roses' }],
    });
    await adapter.start();
    const err = await controllerErrorOf(() => adapter.readStatus());
    expect(err.code).toBe('controller_unsupported');
    expect(peer.subscriptionCount()).toBe(0);
  });
});

describe('ha_service_call errors', () => {
  it('without Home Assistant every command is controller_unreachable (502) naming the missing settings', async () => {
    const { adapter } = makeAdapter(null);
    await expect(adapter.start()).resolves.toBeUndefined();
    const commands: Array<() => Promise<unknown>> = [
      () => adapter.runZone('switch.front_lawn', 60),
      () => adapter.stopZone('switch.front_lawn'),
      () => adapter.stopAll(),
      () => adapter.readStatus(),
      () => adapter.scanZones(),
    ];
    for (const command of commands) {
      const err = await controllerErrorOf(command);
      expect(err.code).toBe('controller_unreachable');
      expect(err.status).toBe(502);
      expect(err.message).toBe(HA_NOT_CONFIGURED);
    }
    expect(HA_NOT_CONFIGURED).toBe(
      'Home Assistant is not configured (set SUPERVISOR_TOKEN, or HA_URL and HA_TOKEN)',
    );
  });

  it('HA going away mid-run makes stop controller_unreachable and the held state unknown', async () => {
    const peer = await startPeer();
    const { adapter, notify } = makeAdapter(await startLink(peer), { timings: { retryMs: 60_000 } });
    await adapter.start();
    await adapter.runZone('switch.front_lawn', 600);
    expect((await adapter.readStatus()).stations).toHaveProperty(['switch.front_lawn']);
    notify.mockClear();

    await peer.close();
    const err = await controllerErrorOf(async () => {
      // The link notices the drop asynchronously; until then the call fails as connection_lost.
      await new Promise((resolve) => setTimeout(resolve, 20));
      return adapter.stopZone('switch.front_lawn');
    });
    expect(err.code).toBe('controller_unreachable');
    expect(err.status).toBe(502);
    expect(err.message).toMatch(/switch\.turn_off switch\.front_lawn failed: .*(not connected|connection)/);
    expect(notify).toHaveBeenCalled();
    const status = await controllerErrorOf(() => adapter.readStatus());
    expect(status.code).toBe('controller_unreachable');
  });

  it('service_not_found from HA is controller_unreachable carrying HA’s message', async () => {
    const peer = await startPeer();
    const { adapter } = makeAdapter(await startLink(peer));
    peer.rejectServices.add('switch.turn_on');
    const err = await controllerErrorOf(() => adapter.runZone('switch.front_lawn', 60));
    expect(err.code).toBe('controller_unreachable');
    expect(err.message).toContain('Action switch.turn_on not found.');
    expect(err.message).not.toContain(PEER_TOKEN);
  });

  it('unauthorized from HA is controller_auth_failed (424) with a token hint', async () => {
    const peer = await startPeer();
    const { adapter } = makeAdapter(await startLink(peer));
    peer.failServices.set('valve.open_valve', { code: 'unauthorized', message: 'Unauthorized' });
    const err = await controllerErrorOf(() => adapter.runZone('valve.back_beds', 60));
    expect(err.code).toBe('controller_auth_failed');
    expect(err.status).toBe(424);
    expect(err.extra.hint).toMatch(/token/);
  });

  it('a call HA never answers is controller_unreachable after timeout_s', async () => {
    const peer = await startPeer();
    const { adapter } = makeAdapter(await startLink(peer), { config: { timeout_s: 1 } });
    peer.ignoreCommands.add('call_service');
    const startedMs = Date.now();
    const err = await controllerErrorOf(() => adapter.runZone('switch.front_lawn', 60));
    expect(err.code).toBe('controller_unreachable');
    expect(err.message).toContain('did not answer switch.turn_on switch.front_lawn within 1 s');
    expect(Date.now() - startedMs).toBeGreaterThanOrEqual(950);
  });
});

describe('ha_service_call zone scan', () => {
  it('lists switches and valves by friendly name, water valves first, never a gas valve', async () => {
    const peer = await startPeer();
    const { adapter } = makeAdapter(await startLink(peer));
    await expect(adapter.scanZones()).resolves.toEqual([
      { station: 'valve.back_beds', name: 'Back beds' },
      { station: 'valve.pond_fill', name: 'Pond fill' },
      { station: 'switch.front_lawn', name: 'Front lawn' },
      { station: 'switch.drip_line', name: 'switch.drip_line' },
    ]);
  });
});
