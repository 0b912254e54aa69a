import request from 'supertest';
import { systemClock } from '../../../server/src/core/clock';
import { unionIntervals } from '../../../server/src/irrigation/engine/applied-water';
import type { ValveWatchdogEvent } from '../../../server/src/core/bus';
import type { StoredRun } from '../../../server/src/store/runs';
import { OPENDOOR_MD5, OpenSprinklerPeer } from '../../helpers/opensprinkler-peer';
import { EsphomePeer } from '../../helpers/esphome-peer';
import { RACHIO_PEER_KEY, RachioPeer, RACHIO_ZONES } from '../../helpers/rachio-peer';
import { quietDemoClock, serviceTracker, type BootedService } from '../../helpers/service';

/**
 * POST /irrigation/action run, stop and stop_all through the real service to
 * loopback controllers: rows as the ledger promises (request row + observed
 * hardware row, water counted once), stop scopes, clamping, refusals and the
 * controller error codes.
 */

const services = serviceTracker();
const peers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const peer of peers.splice(0)) await peer.close();
});

const ZONES = `
[zones.front_lawn]
display_name = "Front lawn"
species = "tall_fescue"
soil_texture = "loam"
sprinkler_type = "spray"
area_sqft = 500
controller_station = "1"

[zones.back_beds]
display_name = "Back beds"
species = "ornamental_shrubs"
soil_texture = "loam"
sprinkler_type = "drip"
controller_station = "2"
`;

function openSprinklerConfig(host: string, password = OPENDOOR_MD5): string {
  return `schema_version = 2
[deployment.location]
lat = 40.7
lon = -74.0

[[controllers]]
id = "os"
kind = "opensprinkler"
default = true
[controllers.config]
host = "${host}"
password_md5 = "${password}"
poll_interval_s = 2
timeout_s = 2
${ZONES}`;
}

async function openSprinkler(): Promise<OpenSprinklerPeer> {
  const peer = await new OpenSprinklerPeer({ clock: systemClock }).start();
  peers.push(peer);
  return peer;
}

function action(booted: BootedService, body: Record<string, unknown>) {
  return request(booted.service.server).post('/api/v1/irrigation/action').send(body);
}

function rows(booted: BootedService, zone?: string): StoredRun[] {
  return booted.service.store?.runs.listWindow(0, 4_102_444_800, zone) ?? [];
}

async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('manual run on a polled controller (OpenSprinkler)', () => {
  it('writes the request row and the observed hardware row; applied water counts once', async () => {
    const peer = await openSprinkler();
    const booted = await services.boot({ configToml: openSprinklerConfig(peer.host) });
    const res = await action(booted, { kind: 'run', zone: 'front_lawn', seconds: 5 }).expect(200);
    expect(res.body).toMatchObject({ ok: true, zone: 'front_lawn', seconds: 5, clamped: false });
    expect(res.body.controller_id).toBe('os');
    expect(res.body.confirm_within_s).toBe(2);
    expect(peer.isOpen(0)).toBe(true);

    await until(() => rows(booted, 'front_lawn').some((r) => r.source === 'ha_refresher'), 15_000);
    const snapshot = await request(booted.service.server).get('/api/v1/irrigation/snapshot').expect(200);
    const zone = snapshot.body.zones.find((z: { slug: string }) => z.slug === 'front_lawn');
    expect(zone).toMatchObject({ running: true, running_known: true, ledger_running: true });

    await until(() => rows(booted, 'front_lawn').every((r) => r.status === 'completed'), 20_000);
    const done = rows(booted, 'front_lawn');
    const requested = done.find((r) => r.source === 'manual');
    const observed = done.find((r) => r.source === 'ha_refresher');
    expect(requested).toMatchObject({ status: 'completed', duration_s: 5, controller_id: 'os' });
    expect(requested?.session_id).toMatch(/^manual-/);
    expect(observed?.session_id).toBe(requested?.session_id);
    expect(observed?.note).toMatch(/^observed/);
    // Spray 1.6 in/h class rate: 5 s is a small but known depth, and the 500 sq ft area gives a volume.
    expect(requested?.applied_mm).toBeGreaterThan(0);
    expect(requested?.volume_gal).toBeGreaterThan(0);
    const union = unionIntervals(done.map((r) => [r.start_epoch, r.start_epoch + r.duration_s] as const));
    const seconds = union.reduce((s, [a, b]) => s + (b - a), 0);
    // Union, not sum: 5 s plus at most the one-second skew of whole-second epochs (and a poll's lag under load).
    expect(seconds).toBeLessThanOrEqual(7);
    expect(done.reduce((s, r) => s + r.duration_s, 0)).toBeGreaterThan(seconds);
  }, 45_000);

  it('stops one zone (scope zone), and stop_all resets the device; rows are aborted with the time open', async () => {
    const peer = await openSprinkler();
    const booted = await services.boot({ configToml: openSprinklerConfig(peer.host) });
    await action(booted, { kind: 'run', zone: 'front_lawn', seconds: 600 }).expect(200);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const stop = await action(booted, { kind: 'stop', zone: 'front_lawn' }).expect(200);
    expect(stop.body).toMatchObject({ ok: true, scope: 'zone', confirm_within_s: 2 });
    expect(stop.body.note).toBeUndefined();
    expect(peer.isOpen(0)).toBe(false);
    const stopped = rows(booted, 'front_lawn').find((r) => r.source === 'manual');
    expect(stopped?.status).toBe('aborted');
    expect(stopped?.duration_s).toBeGreaterThanOrEqual(1);
    expect(stopped?.duration_s).toBeLessThan(600);

    await action(booted, { kind: 'run', zone: 'back_beds', seconds: 600 }).expect(200);
    expect(peer.isOpen(1)).toBe(true);
    const all = await action(booted, { kind: 'stop_all' }).expect(200);
    expect(all.body).toMatchObject({ ok: true, kind: 'stop_all', confirm_within_s: 2 });
    expect(peer.requests.some((r) => r.path === '/cv' && r.query.get('rsn') === '1')).toBe(true);
    expect(peer.isOpen(1)).toBe(false);
    expect(rows(booted, 'back_beds').find((r) => r.source === 'manual')?.status).toBe('aborted');
  }, 30_000);

  it('asks for a restart when a controller changes while one of its valves is open', async () => {
    const peer = await openSprinkler();
    const booted = await services.boot({ configToml: openSprinklerConfig(peer.host) });
    const server = booted.service.server;
    const config = (await request(server).get('/api/v1/config').expect(200)).body;
    await action(booted, { kind: 'run', zone: 'front_lawn', seconds: 600 }).expect(200);
    config.controllers[0].config.poll_interval_s = 5;
    await request(server).put('/api/v1/config').send(config).expect(200);
    const held = await request(server).get('/api/v1/irrigation/snapshot').expect(200);
    expect(held.body.restart_required).toBe(true);
    expect(held.body.restart_reasons[0]).toMatch(/controller "os" changed while a valve was open/);
    // The old adapter still reaches the open valve.
    await action(booted, { kind: 'stop', zone: 'front_lawn' }).expect(200);
    expect(peer.isOpen(0)).toBe(false);
  });

  it('refuses a second zone on a one-at-a-time controller with 409 controller_busy', async () => {
    const peer = await openSprinkler();
    const booted = await services.boot({ configToml: openSprinklerConfig(peer.host) });
    await action(booted, { kind: 'run', zone: 'front_lawn', seconds: 600 }).expect(200);
    const busy = await action(booted, { kind: 'run', zone: 'back_beds', seconds: 60 }).expect(409);
    expect(busy.body.code).toBe('controller_busy');
    expect(busy.body.running_zone).toBe('front_lawn');
    expect(peer.isOpen(1)).toBe(false);
    await action(booted, { kind: 'stop_all' }).expect(200);
  });

  it('maps a wrong password to 424 controller_auth_failed and an offline device to 502; failures leave skipped rows', async () => {
    const peer = await openSprinkler();
    const wrong = 'ffffffffffffffffffffffffffffffff';
    const booted = await services.boot({ configToml: openSprinklerConfig(peer.host, wrong) });
    const auth = await action(booted, { kind: 'run', zone: 'front_lawn', seconds: 60 }).expect(424);
    expect(auth.body.code).toBe('controller_auth_failed');
    expect(JSON.stringify(auth.body)).not.toContain(wrong);
    await peer.close();
    const offline = await action(booted, { kind: 'run', zone: 'front_lawn', seconds: 60 }).expect(502);
    expect(offline.body.code).toBe('controller_unreachable');
    const failed = rows(booted, 'front_lawn');
    expect(failed).toHaveLength(2);
    for (const row of failed) {
      expect(row.status).toBe('skipped');
      expect(row.skip_reason).toMatch(/^dispatch_failed: /);
      expect(row.applied_mm).toBeNull();
    }
    expect(failed[1]?.note).toMatch(/cannot reach|no answer/);
  }, 20_000);
});

describe('a controller that dies mid-run', () => {
  it('closes a valve the service owns at the planned end, and says so when the controller is gone', async () => {
    const esp = await new EsphomePeer({ entities: [{ domain: 'switch', name: 'Front Lawn' }] }).start();
    peers.push(esp);
    const booted = await services.boot({
      configToml: `schema_version = 2
[deployment.location]
lat = 40.7
lon = -74.0
[[controllers]]
id = "esp"
kind = "esphome_native"
default = true
[controllers.config]
base_url = "${esp.baseUrl}"
timeout_s = 1
[zones.front_lawn]
controller_station = "switch/Front Lawn"
sprinkler_type = "rotor"
`,
    });
    // A healthy run: the service turns the switch off itself at the end (ESPHome has no timer).
    await action(booted, { kind: 'run', zone: 'front_lawn', seconds: 1 }).expect(200);
    expect(esp.isOn('switch', 'Front Lawn')).toBe(true);
    await until(() => rows(booted, 'front_lawn')[0]?.status === 'completed');
    expect(esp.isOn('switch', 'Front Lawn')).toBe(false);

    const watchdog: ValveWatchdogEvent[] = [];
    booted.service.bus.on('valve.watchdog', (event) => watchdog.push(event));
    await action(booted, { kind: 'run', zone: 'front_lawn', seconds: 2 }).expect(200);
    // Seen open once (the hardware row starts), then the controller goes away.
    await until(() => rows(booted, 'front_lawn').filter((r) => r.source === 'ha_refresher').length === 2);
    await esp.close();
    await until(
      () => rows(booted, 'front_lawn').filter((r) => r.source === 'manual')[1]?.status === 'aborted',
      15_000,
    );
    const died = rows(booted, 'front_lawn').filter((r) => r.source === 'manual')[1];
    // Its readback died with it: only what was seen open is credited, and the stop keeps being retried.
    expect(died?.note).toMatch(/readback was lost during the run/);
    expect(died?.note).toMatch(/the stop at its planned end failed .*watchdog keeps trying/);
    expect(died?.duration_s).toBeLessThan(2);
    await until(() => watchdog.length > 0, 15_000);
    expect(watchdog[0]).toMatchObject({
      zone: 'front_lawn',
      controller_id: 'esp',
      closed: false,
      by: 'watchdog',
    });
  }, 30_000);
});

describe('manual run on dry-run and cloud controllers', () => {
  it('clamps a run to 7200 s and records pretend water as dry_run', async () => {
    const booted = await services.boot({ env: { DEMO: '1' }, serviceOptions: { clock: quietDemoClock() } });
    const slug = (await request(booted.service.server).get('/api/v1/irrigation/snapshot')).body.zones[0].slug;
    const res = await action(booted, { kind: 'run', zone: slug, seconds: 100_000 }).expect(200);
    expect(res.body).toMatchObject({ seconds: 7200, clamped: true });
    // Never cut silently: the row records what was asked.
    expect(rows(booted, slug)[0]?.note).toMatch(/^clamped from 100000 s to 7200 s/);
    const snapshot = await request(booted.service.server).get('/api/v1/irrigation/snapshot').expect(200);
    expect(snapshot.body.zones[0]).toMatchObject({ running: true, running_known: true });
    await action(booted, { kind: 'stop', zone: slug }).expect(200);
    const [row] = rows(booted, slug);
    expect(row).toMatchObject({
      source: 'dry_run:manual',
      status: 'aborted',
      applied_mm: null,
      volume_gal: null,
    });
  });

  it('answers scope device with a note when the controller has no per-zone stop (Rachio)', async () => {
    const rachio = await new RachioPeer().start();
    peers.push(rachio);
    const zoneId = RACHIO_ZONES.front;
    const booted = await services.boot({
      configToml: `schema_version = 2
[deployment.location]
lat = 40.7
lon = -74.0
[[controllers]]
id = "rachio"
kind = "rachio"
default = true
[controllers.config]
api_key = "${RACHIO_PEER_KEY}"
base_url = "${rachio.baseUrl}"
[zones.front_lawn]
controller_station = "${zoneId}"
`,
    });
    const run = await action(booted, { kind: 'run', zone: 'front_lawn', seconds: 300 }).expect(200);
    expect(run.body.confirm_within_s).toBe(120);
    const stop = await action(booted, { kind: 'stop', zone: 'front_lawn' }).expect(200);
    expect(stop.body.scope).toBe('device');
    expect(stop.body.note).toMatch(/no per-zone stop/);
    expect(rows(booted, 'front_lawn')[0]?.status).toBe('aborted');
  });
});
