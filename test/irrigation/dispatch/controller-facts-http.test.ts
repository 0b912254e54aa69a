import request from 'supertest';
import { systemClock } from '../../../server/src/core/clock';
import { OPENDOOR_MD5, OpenSprinklerPeer } from '../../helpers/opensprinkler-peer';
import { EsphomePeer } from '../../helpers/esphome-peer';
import { serviceTracker, type BootedService } from '../../helpers/service';

/**
 * Through the real service: stop_all answers per controller (two
 * OpenSprinkler peers, one rejecting the credential), a zone bound to a
 * master station draws a validation warning once the device was read,
 * readback honesty in the snapshot, and /health and the snapshot naming a
 * controller whose failsafe is software-only.
 */

const services = serviceTracker();
const peers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const peer of peers.splice(0)) await peer.close();
});

const WRONG_MD5 = '0123456789abcdef0123456789abcdef';

async function openSprinkler(): Promise<OpenSprinklerPeer> {
  const peer = await new OpenSprinklerPeer({ clock: systemClock }).start();
  peers.push(peer);
  return peer;
}

function controller(id: string, host: string, password: string, isDefault = false): string {
  return `
[[controllers]]
id = "${id}"
kind = "opensprinkler"
default = ${isDefault}
[controllers.config]
host = "${host}"
password_md5 = "${password}"
poll_interval_s = 2
timeout_s = 2
`;
}

function configOf(controllers: string, zones: string): string {
  return `schema_version = 2
[deployment.location]
lat = 40.7
lon = -74.0
${controllers}
${zones}`;
}

function action(booted: BootedService, body: Record<string, unknown>) {
  return request(booted.service.server).post('/api/v1/irrigation/action').send(body);
}

async function until(check: () => Promise<boolean> | boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('stop_all across two controllers, one failing', () => {
  it('stops the one it can and answers per controller; 424 only when nothing stopped', async () => {
    const good = await openSprinkler();
    const bad = await openSprinkler();
    const booted = await services.boot({
      configToml: configOf(
        controller('yard', good.host, OPENDOOR_MD5, true) + controller('garage', bad.host, WRONG_MD5),
        `[zones.front_lawn]
controller_station = "1"
[zones.side]
controller_id = "garage"
controller_station = "1"`,
      ),
    });
    await action(booted, { kind: 'run', zone: 'front_lawn', seconds: 600 }).expect(200);
    expect(good.isOpen(0)).toBe(true);

    const res = await action(booted, { kind: 'stop_all' }).expect(200);
    expect(good.isOpen(0)).toBe(false);
    expect(res.body).toMatchObject({ ok: false, partial: true, kind: 'stop_all', confirm_within_s: 2 });
    expect(res.body.controllers).toEqual([
      { controller_id: 'yard', ok: true, confirm_within_s: 2 },
      {
        controller_id: 'garage',
        ok: false,
        status: 424,
        code: 'controller_auth_failed',
        error: expect.stringContaining('rejected the credential'),
      },
    ]);
    const rows = booted.service.store?.runs.listWindow(0, 4_102_444_800, 'front_lawn') ?? [];
    expect(rows.find((r) => r.source === 'manual')).toMatchObject({
      status: 'aborted',
      note: 'stopped by stop_all',
    });

    await good.close();
    const none = await action(booted, { kind: 'stop_all' });
    expect(none.status).toBe(424);
    expect(none.body.code).toBe('controller_auth_failed');
    expect(none.body.controllers).toEqual([
      expect.objectContaining({
        controller_id: 'yard',
        ok: false,
        status: 502,
        code: 'controller_unreachable',
      }),
      expect.objectContaining({ controller_id: 'garage', ok: false, status: 424 }),
    ]);
  }, 30_000);
});

describe('master stations', () => {
  it('warns about a zone bound to the master station once the device was read (zone_station_master)', async () => {
    const peer = await openSprinkler();
    peer.device.options.mas = 1;
    const booted = await services.boot({
      configToml: configOf(
        controller('os', peer.host, OPENDOOR_MD5, true),
        `[zones.pump]
controller_station = "1"
[zones.lawn]
controller_station = "2"`,
      ),
    });
    const server = booted.service.server;
    await until(async () => {
      const report = (await request(server).get('/api/v1/config/validate')).body;
      return (report.warnings ?? []).some((w: { code: string }) => w.code === 'zone_station_master');
    });
    const report = (await request(server).get('/api/v1/config/validate').expect(200)).body;
    expect(report.warnings.filter((w: { code: string }) => w.code === 'zone_station_master')).toEqual([
      {
        code: 'zone_station_master',
        path: '$.zones.pump.controller_station',
        message: expect.stringContaining('master station of controller "os"'),
      },
    ]);
    const run = await action(booted, { kind: 'run', zone: 'pump', seconds: 60 });
    expect(run.status).toBe(501);
    expect(run.body.code).toBe('controller_unsupported');
    expect(peer.entries()).toEqual([]);
  }, 20_000);
});

describe('readback honesty and the failsafe in the snapshot and /health', () => {
  it('reports running_known false after a failed reading, keeping the last good epoch', async () => {
    const peer = await openSprinkler();
    const booted = await services.boot({
      configToml: configOf(
        controller('os', peer.host, OPENDOOR_MD5, true),
        '[zones.lawn]\ncontroller_station = "1"',
      ),
    });
    const server = booted.service.server;
    const zone = async () =>
      (await request(server).get('/api/v1/irrigation/snapshot')).body.zones.find(
        (z: { slug: string }) => z.slug === 'lawn',
      );
    await action(booted, { kind: 'run', zone: 'lawn', seconds: 600 }).expect(200);
    await until(async () => (await zone())?.running === true);
    const seen = (await zone()).running_observed_epoch as number;
    expect(seen).toBeGreaterThan(0);
    peer.fault = 'http500';
    await until(async () => (await zone())?.running_known === false);
    const unknown = await zone();
    expect(unknown).toMatchObject({ running: false, running_known: false, ledger_running: true });
    expect(unknown.running_observed_epoch).toBeGreaterThanOrEqual(seen);
    peer.fault = 'none';
    await until(async () => (await zone())?.running_known === true);
    expect(await zone()).toMatchObject({ running: true, running_known: true });
  }, 30_000);

  it('names a controller whose failsafe is software-only in /health and the snapshot', async () => {
    const peer = await openSprinkler();
    const esp = await new EsphomePeer({ entities: [{ domain: 'switch', name: 'Beds' }] }).start();
    peers.push(esp);
    const booted = await services.boot({
      configToml: configOf(
        controller('os', peer.host, OPENDOOR_MD5, true) +
          `
[[controllers]]
id = "esp"
kind = "esphome_native"
[controllers.config]
base_url = "${esp.baseUrl}"
`,
        `[zones.lawn]
controller_station = "1"
[zones.beds]
controller_id = "esp"
controller_station = "switch/Beds"`,
      ),
    });
    const server = booted.service.server;
    const health = (await request(server).get('/api/v1/health').expect(200)).body;
    expect(health.controllers).toEqual([
      expect.objectContaining({ id: 'os', failsafe: 'device' }),
      expect.objectContaining({ id: 'esp', failsafe: 'software' }),
    ]);
    const snapshot = (await request(server).get('/api/v1/irrigation/snapshot').expect(200)).body;
    expect(snapshot.software_failsafe_controllers).toEqual(['esp']);
  }, 20_000);
});
