import type { Server } from 'node:http';
import request from 'supertest';
import { HA_ADOPTION_KEY, pauseEpoch, planAdoption, RETIRED_HELPERS } from '../../server/src/ha/adoption';
import type { HaState } from '../../server/src/ha/ha-link';
import { neutralControls } from '../../server/src/irrigation/controls/types';
import { irrigationSnapshotSchema } from '../../server/src/irrigation/snapshot-schema';
import { freePort, HaPeer, PEER_TOKEN, type PeerStateInput } from '../helpers/ha-peer';
import { minimalConfig, serviceTracker } from '../helpers/service';

/**
 * Adoption of the retired HA helpers over the real service and a loopback
 * Home Assistant (test/helpers/ha-peer.ts): every outcome, the values really
 * applied, the records kept across a restart (never adopted twice), the
 * standalone [] and `ha_reachable` following the link.
 */

const services = serviceTracker();
const peers: HaPeer[] = [];
afterEach(async () => {
  for (const peer of peers.splice(0)) await peer.close();
});

/** A pause end two months ahead, on the hour (a pause reaches at most 366 days ahead). */
const PAUSE_END = Math.floor(Date.now() / 3_600_000) * 3600 + 60 * 86400;
/** How HA shows it: local date and time (the timestamp attribute is what is read). */
const PAUSE_END_STATE = new Date(PAUSE_END * 1000).toISOString().slice(0, 19).replace('T', ' ');

async function startPeer(states: PeerStateInput[], port?: number): Promise<HaPeer> {
  const peer = await HaPeer.start({ states, ...(port === undefined ? {} : { port }) });
  peers.push(peer);
  return peer;
}

function haEnv(port: number): Record<string, string> {
  return { HA_URL: `ws://127.0.0.1:${port}/api/websocket`, HA_TOKEN: PEER_TOKEN };
}

interface Entry {
  entity: string;
  outcome: string;
  target: string;
  adopted_value: string | null;
  previous_value: string | null;
  epoch: number;
  observed_value?: string;
}

async function snapshot(server: Server): Promise<Record<string, unknown> & { ha_adoption: Entry[] }> {
  const res = await request(server).get('/api/v1/irrigation/snapshot').expect(200);
  return res.body as Record<string, unknown> & { ha_adoption: Entry[] };
}

async function act(server: Server, body: Record<string, unknown>): Promise<void> {
  await request(server).post('/api/v1/irrigation/action').send(body).expect(200);
}

async function eventually<T>(read: () => Promise<T>, ok: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function entry(entries: Entry[], entity: string): Entry {
  const found = entries.find((e) => e.entity === entity);
  if (!found) throw new Error(`no record for ${entity}`);
  return found;
}

function windLimit(snap: Record<string, unknown>): unknown {
  const rules = (snap.skip_check as { rules: { inputs: Record<string, unknown> }[] }).rules;
  return rules.find((r) => 'max_wind_limit_mph' in r.inputs)?.inputs.max_wind_limit_mph;
}

const DEMO_ZONES = ['back_lawn', 'front_lawn', 'shade_bed', 'side_strip', 'vegetables', 'xeriscape'];

describe('HA helper adoption', () => {
  it('adopts on a late first connection, with every outcome, and the values apply', async () => {
    const port = await freePort();
    const booted = await services.boot({ env: { DEMO: '1', ...haEnv(port) } });
    const server = booted.service.server;
    const store = booted.service.store!;

    // HA is down: nothing adopted yet, and the deprecated flag says so.
    const down = await snapshot(server);
    expect(down.ha_reachable).toBe(false);
    expect(down.ha_adoption).toEqual([]);

    // Local values set while HA is down: a non-default one (kept) and a stored default (replaced).
    await act(server, { kind: 'set_zone_override', zone: 'back_lawn', mode: 'skip' });
    await act(server, { kind: 'clear_pause_until' });

    await startPeer(
      [
        {
          entity_id: 'input_datetime.irrigation_pause_until',
          state: PAUSE_END_STATE,
          attributes: { has_date: true, has_time: true, timestamp: PAUSE_END },
        },
        { entity_id: 'input_select.irrigation_override_tomorrow', state: 'unavailable' },
        { entity_id: 'input_select.irrigation_global_override', state: 'Skip' },
        { entity_id: 'input_select.irrigation_zone_front_lawn_override', state: 'run' },
        { entity_id: 'input_select.irrigation_zone_back_lawn_override', state: 'run' },
        { entity_id: 'input_select.irrigation_zone_side_strip_override', state: 'sometimes' },
        { entity_id: 'input_number.irrigation_max_wind_mph', state: '12.0' },
        { entity_id: 'input_number.irrigation_min_temp_f', state: '150.0' },
      ],
      port,
    );

    const after = await eventually(
      () => snapshot(server),
      (s) => s.ha_adoption.length > 0,
      'the adoption records',
    );
    const records = after.ha_adoption;
    expect(after.ha_reachable).toBe(true);
    // One record per helper: 4 fixed, one per zone, 3 thresholds.
    expect(records.map((r) => r.entity).sort()).toEqual(
      [
        'input_boolean.irrigation_pause',
        'input_datetime.irrigation_pause_until',
        'input_select.irrigation_override_tomorrow',
        'input_select.irrigation_global_override',
        ...DEMO_ZONES.map((z) => `input_select.irrigation_zone_${z}_override`),
        'input_number.irrigation_max_wind_mph',
        'input_number.irrigation_min_temp_f',
        'input_number.irrigation_rain_skip_in',
      ].sort(),
    );
    expect(new Set(records.map((r) => r.epoch)).size).toBe(1);
    expect(Math.abs((records[0] as Entry).epoch - Date.now() / 1000)).toBeLessThan(60);

    expect(entry(records, 'input_boolean.irrigation_pause')).toEqual(
      expect.objectContaining({
        outcome: 'not_found',
        target: 'toggle:irrigation_pause',
        adopted_value: null,
        previous_value: null,
      }),
    );
    expect(entry(records, 'input_datetime.irrigation_pause_until')).toEqual(
      expect.objectContaining({
        outcome: 'adopted',
        target: 'pause_until_epoch',
        adopted_value: String(PAUSE_END),
        previous_value: '0',
      }),
    );
    expect(entry(records, 'input_select.irrigation_override_tomorrow')).toEqual(
      expect.objectContaining({ outcome: 'unreadable', adopted_value: null, observed_value: 'unavailable' }),
    );
    expect(entry(records, 'input_select.irrigation_global_override')).toEqual(
      expect.objectContaining({ outcome: 'adopted', adopted_value: 'skip', previous_value: null }),
    );
    expect(entry(records, 'input_select.irrigation_zone_front_lawn_override')).toEqual(
      expect.objectContaining({
        outcome: 'adopted',
        target: 'zone_override:front_lawn',
        adopted_value: 'run',
      }),
    );
    expect(entry(records, 'input_select.irrigation_zone_back_lawn_override')).toEqual(
      expect.objectContaining({
        outcome: 'kept_local',
        adopted_value: null,
        previous_value: 'skip',
        observed_value: 'run',
      }),
    );
    expect(entry(records, 'input_select.irrigation_zone_side_strip_override')).toEqual(
      expect.objectContaining({ outcome: 'unreadable', observed_value: 'sometimes' }),
    );
    expect(entry(records, 'input_select.irrigation_zone_shade_bed_override').outcome).toBe('not_found');
    expect(entry(records, 'input_number.irrigation_max_wind_mph')).toEqual(
      expect.objectContaining({ outcome: 'adopted', target: 'threshold:max_wind_mph', adopted_value: '12' }),
    );
    expect(entry(records, 'input_number.irrigation_min_temp_f')).toEqual(
      expect.objectContaining({ outcome: 'unreadable', adopted_value: null, observed_value: '150.0' }),
    );
    expect(entry(records, 'input_number.irrigation_rain_skip_in').outcome).toBe('not_found');
    for (const record of records) {
      if (record.outcome !== 'unreadable' && record.outcome !== 'kept_local') {
        expect(record).not.toHaveProperty('observed_value');
      }
    }

    // The values really apply: the snapshot and the stored controls show them.
    const parsed = irrigationSnapshotSchema.safeParse(after);
    expect(parsed.success ? [] : parsed.error.issues.slice(0, 3)).toEqual([]);
    expect(after.pause_until_epoch).toBe(PAUSE_END);
    expect((after.skip_check as { is_paused: boolean }).is_paused).toBe(true);
    expect(windLimit(after)).toBe(12);
    expect(store.controls.get('global_override')).toBe('skip');
    expect(store.controls.get('zone_override:front_lawn')).toBe('run');
    expect(store.controls.get('zone_override:back_lawn')).toBe('skip');
    expect(store.controls.get('threshold:min_temp_f')).toBeUndefined();
    expect(store.controls.get('override_tomorrow')).toBeUndefined();
    expect(store.controls.get(HA_ADOPTION_KEY)).toEqual(expect.objectContaining({ entries: records }));
  });

  it('keeps the first records across a restart and never adopts again', async () => {
    const peer = await startPeer([
      { entity_id: 'input_select.irrigation_global_override', state: 'skip' },
      { entity_id: 'input_select.irrigation_zone_front_lawn_override', state: 'run' },
      { entity_id: 'input_number.irrigation_max_wind_mph', state: '12' },
    ]);
    const first = await services.boot({ env: { DEMO: '1', ...haEnv(peer.port) } });
    // HA was up at boot: adoption finished before the service answered.
    const adopted = await snapshot(first.service.server);
    expect(entry(adopted.ha_adoption, 'input_select.irrigation_global_override').outcome).toBe('adopted');
    const plan = (adopted.water_plan as { zones: { zone: string; reason_code: string }[] }[])[0]!.zones;
    expect(plan.find((z) => z.zone === 'back_lawn')?.reason_code).toMatch(/global/);
    expect(plan.find((z) => z.zone === 'front_lawn')?.reason_code).not.toMatch(/global/);
    await first.service.stop();

    // HA's helpers change while the service is down.
    peer.setState({ entity_id: 'input_select.irrigation_global_override', state: 'run' });
    peer.setState({ entity_id: 'input_number.irrigation_max_wind_mph', state: '20' });
    peer.setState({ entity_id: 'input_boolean.irrigation_pause', state: 'on' });
    const connectionsBefore = peer.connectionCount;

    const second = await services.boot({ dataDir: first.dataDir, env: { DEMO: '1', ...haEnv(peer.port) } });
    expect(peer.connectionCount).toBeGreaterThan(connectionsBefore);
    const again = await snapshot(second.service.server);
    expect(again.ha_reachable).toBe(true);
    expect(again.ha_adoption).toEqual(adopted.ha_adoption);
    expect(windLimit(again)).toBe(12);
    expect((again.skip_check as { is_paused: boolean }).is_paused).toBe(false);
    expect(second.service.store!.controls.get('global_override')).toBe('skip');
    expect(second.service.store!.controls.get('toggle:irrigation_pause')).toBeUndefined();
  });

  it('waits for a config: HA up on a fresh install adopts once the config arrives', async () => {
    const peer = await startPeer([{ entity_id: 'input_select.irrigation_zone_bed_override', state: 'skip' }]);
    const booted = await services.boot({ env: haEnv(peer.port) });
    const server = booted.service.server;
    await request(server).get('/api/v1/irrigation/snapshot').expect(409);
    expect(booted.service.store!.controls.get(HA_ADOPTION_KEY)).toBeUndefined();
    const config = minimalConfig({
      controllers: [{ id: 'dry', default: true, enabled: true, kind: 'dry_run', config: {} }],
      zones: {
        bed: { display_name: 'Bed', species: 'bermuda', controller_id: 'dry', controller_station: '1' },
      },
    });
    await request(server).put('/api/v1/config').send(config).expect(200);
    const after = await eventually(
      () => snapshot(server),
      (s) => s.ha_adoption.length > 0,
      'adoption after the config',
    );
    expect(entry(after.ha_adoption, 'input_select.irrigation_zone_bed_override')).toEqual(
      expect.objectContaining({ outcome: 'adopted', adopted_value: 'skip', target: 'zone_override:bed' }),
    );
    expect(booted.service.store!.controls.get('zone_override:bed')).toBe('skip');
  });

  it('reports ha_reachable false while HA is down and true again after it reconnects', async () => {
    const first = await startPeer([]);
    const port = first.port;
    const booted = await services.boot({ env: { DEMO: '1', ...haEnv(port) } });
    const server = booted.service.server;
    expect((await snapshot(server)).ha_reachable).toBe(true);
    await first.close();
    peers.splice(peers.indexOf(first), 1);
    await eventually(
      () => snapshot(server),
      (s) => s.ha_reachable === false,
      'ha_reachable false',
    );
    await startPeer([], port);
    await eventually(
      () => snapshot(server),
      (s) => s.ha_reachable === true,
      'ha_reachable true after reconnecting',
    );
  });

  it('is empty on a standalone install, with ha_reachable true (the native path)', async () => {
    const booted = await services.boot({ env: { DEMO: '1' } });
    const snap = await snapshot(booted.service.server);
    expect(snap.ha_adoption).toEqual([]);
    expect(snap.ha_reachable).toBe(true);
    expect(booted.service.store!.controls.get(HA_ADOPTION_KEY)).toBeUndefined();
  });
});

describe('planAdoption and the helper readers', () => {
  const state = (entity_id: string, value: string, attributes: Record<string, unknown> = {}): HaState =>
    ({ entity_id, state: value, attributes }) as unknown as HaState;

  it('keeps the helper list in one constant with every target', () => {
    expect(RETIRED_HELPERS.map((h) => h.target)).toEqual([
      'toggle:irrigation_pause',
      'pause_until_epoch',
      'override_tomorrow',
      'global_override',
      'zone_override:<slug>',
      'threshold:max_wind_mph',
      'threshold:min_temp_f',
      'threshold:rain_skip_in',
    ]);
  });

  it('reads an input_datetime state in HA time zone when it has no timestamp, and prefers the timestamp', () => {
    const local = state('input_datetime.irrigation_pause_until', '2030-06-01 08:00:00', { has_date: true });
    expect(pauseEpoch(local, 'America/Denver')).toBe(Date.UTC(2030, 5, 1, 14, 0, 0) / 1000);
    const stamped = state('input_datetime.irrigation_pause_until', '2030-06-01 08:00:00', {
      has_date: true,
      timestamp: 1_900_000_000.5,
    });
    expect(pauseEpoch(stamped, 'America/Denver')).toBe(1_900_000_000);
    expect(pauseEpoch(state('x.y', '08:00:00', { has_date: false, timestamp: 28800 }), 'UTC')).toBeNull();
  });

  it('does not write a value the service already has, and a past pause adopts as no pause', () => {
    const now = 1_800_000_000;
    const plan = planAdoption({
      states: new Map([
        ['input_boolean.irrigation_pause', state('input_boolean.irrigation_pause', 'off')],
        [
          'input_datetime.irrigation_pause_until',
          state('input_datetime.irrigation_pause_until', '2027-01-15 07:00:00', {
            has_date: true,
            timestamp: now - 3600,
          }),
        ],
        ['input_number.irrigation_rain_skip_in', state('input_number.irrigation_rain_skip_in', '0.25')],
        ['input_number.irrigation_min_temp_f', state('input_number.irrigation_min_temp_f', 'warm')],
      ]),
      zoneSlugs: [],
      controls: { ...neutralControls(), thresholds: { max_wind_mph: 15 } },
      rows: { 'threshold:max_wind_mph': 15 },
      skipRules: { max_wind_mph: 15, min_temp_f: 38, rain_skip_in: 0.25 },
      timezone: 'UTC',
      haTimezone: 'UTC',
      now,
    });
    const outcome = (entity: string) => plan.entries.find((e) => e.entity === entity);
    expect(outcome('input_boolean.irrigation_pause')).toEqual(
      expect.objectContaining({ outcome: 'adopted', adopted_value: 'off', previous_value: null }),
    );
    expect(outcome('input_datetime.irrigation_pause_until')?.adopted_value).toBe('0');
    expect(outcome('input_number.irrigation_min_temp_f')).toEqual(
      expect.objectContaining({ outcome: 'unreadable', observed_value: 'warm' }),
    );
    // A stored threshold equal to the config's rule is not a local change: HA's helper is absent here.
    expect(outcome('input_number.irrigation_max_wind_mph')).toEqual(
      expect.objectContaining({ outcome: 'not_found', previous_value: '15' }),
    );
    // Every readable value equals what the service already acts on: nothing to write.
    expect(plan.writes).toEqual([]);
  });
});
