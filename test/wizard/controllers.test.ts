import request from 'supertest';
import { systemClock } from '../../server/src/core/clock';
import { refusedBaseUrl } from '../helpers/loopback-peer';
import { OPENDOOR_MD5, OpenSprinklerPeer } from '../helpers/opensprinkler-peer';
import { RACHIO_DEVICE_ID, RACHIO_PEER_KEY, RachioPeer } from '../helpers/rachio-peer';
import { minimalConfig, serviceTracker, type BootedService } from '../helpers/service';

/**
 * POST /wizard/test_controller and /wizard/scan_zones against loopback
 * controllers: the OpenSprinkler and Rachio peers.
 *
 * A rejected OpenSprinkler password answers 424 controller_auth_failed on
 * test_controller: spec 7 gives a rejected controller credential 424 and
 * never 401; spec 4.6's "502 unreachable" covers the device not answering.
 * scan_zones folds every failure into 502 zone_scan_failed (spec 4.6).
 */

const services = serviceTracker();
const REDACTED = '***redacted***';
const API = '/api/v1/wizard';
const WRONG_MD5 = '0123456789abcdef0123456789abcdef';

let peer: OpenSprinklerPeer;
beforeEach(async () => {
  peer = await new OpenSprinklerPeer({ clock: systemClock }).start();
});
afterEach(async () => {
  await peer.close();
});

function osEntry(overrides: Record<string, unknown> = {}, id = 'os1'): Record<string, unknown> {
  return {
    id,
    default: true,
    enabled: true,
    kind: 'opensprinkler',
    config: { host: peer.host, password_md5: OPENDOOR_MD5, ...overrides },
  };
}

function post(booted: BootedService, route: string, body: unknown): request.Test {
  return request(booted.service.server)
    .post(`${API}/${route}`)
    .send(body as object);
}

/** A service whose live config drives the peer as controller os1. */
async function bootWithPeerConfig(): Promise<BootedService> {
  const booted = await services.boot();
  await request(booted.service.server)
    .put('/api/v1/config')
    .send(minimalConfig({ controllers: [osEntry()] }))
    .expect(200);
  return booted;
}

describe('POST /wizard/test_controller', () => {
  it('reads the OpenSprinkler peer and answers the probe body', async () => {
    const booted = await services.boot();
    peer.device.options.wl = 80;
    peer.device.options.fwm = 3;
    peer.device.options.mas = 8; // a pump master: not a zone
    const res = await post(booted, 'test_controller', { controller: osEntry() });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ok: true,
      reachable: true,
      master_enabled: true,
      water_level_pct: 80,
      zone_count: 7,
      firmware: '2.2.1(3)',
    });
    expect(peer.requests.some((r) => r.path === '/ja' && r.query.get('pw') === OPENDOOR_MD5)).toBe(true);
  });

  it('reports operation disabled on the device as master_enabled false', async () => {
    const booted = await services.boot();
    peer.device.settings.en = 0;
    const res = await post(booted, 'test_controller', { controller: osEntry() });
    expect(res.body).toMatchObject({ ok: true, master_enabled: false, firmware: '2.2.1' });
  });

  it('answers a rejected password with 424 controller_auth_failed, never 401', async () => {
    const booted = await services.boot();
    const res = await post(booted, 'test_controller', { controller: osEntry({ password_md5: WRONG_MD5 }) });
    expect(res.status).toBe(424);
    expect(res.body).toMatchObject({ code: 'controller_auth_failed', ok: false, reachable: true });
  });

  it('answers an unreachable controller with 502 controller_unreachable', async () => {
    const booted = await services.boot();
    const host = new URL(await refusedBaseUrl()).host;
    const res = await post(booted, 'test_controller', { controller: osEntry({ host }) });
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ code: 'controller_unreachable', ok: false, reachable: false });
  });

  it('answers 422 for kinds it cannot probe, unknown kinds and invalid blocks', async () => {
    const booted = await services.boot();
    const mqtt = await post(booted, 'test_controller', {
      controller: { id: 'm1', kind: 'mqtt_command', config: { broker_host: '127.0.0.1' } },
    });
    expect(mqtt.status).toBe(422);
    expect(mqtt.body.code).toBe('controller_unsupported');

    const unknown = await post(booted, 'test_controller', { controller: { id: 'x', kind: 'sprinklebot' } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.code).toBe('controller_unsupported');

    const invalid = await post(booted, 'test_controller', { controller: osEntry({ password_md5: 'nope' }) });
    expect(invalid.status).toBe(422);
    expect(invalid.body.code).toBe('controller_invalid');
    expect(invalid.body.issues).toContainEqual(expect.objectContaining({ path: 'config.password_md5' }));
  });

  it('answers 400 for a body without a controller object', async () => {
    const booted = await services.boot();
    const res = await post(booted, 'test_controller', { controller: 'os1' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_body');
  });

  it('restores a redacted password from the stored config by entry id', async () => {
    const booted = await bootWithPeerConfig();
    const res = await post(booted, 'test_controller', { controller: osEntry({ password_md5: REDACTED }) });
    expect(res.status).toBe(200);
    expect(res.body.zone_count).toBe(8);
  });

  it('answers 400 unmatched_redacted_secret when no stored entry has that id', async () => {
    const booted = await bootWithPeerConfig();
    const res = await post(booted, 'test_controller', {
      controller: osEntry({ password_md5: REDACTED }, 'os2'),
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('unmatched_redacted_secret');
    expect(res.body.paths).toEqual(['$.config.password_md5']);
  });

  it('answers 400 transport_field_mismatch when the host moves beside a restored secret', async () => {
    const booted = await bootWithPeerConfig();
    const res = await post(booted, 'test_controller', {
      controller: osEntry({ password_md5: REDACTED, host: '192.168.1.99' }),
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('transport_field_mismatch');
    expect(res.body.paths).toEqual(['$.config.host']);
  });

  describe('cloud controllers', () => {
    let rachio: RachioPeer;
    beforeEach(async () => {
      rachio = await new RachioPeer({ remaining: 100 }).start();
    });
    afterEach(async () => {
      await rachio.close();
    });

    it('adds discovered_device and rate_limit_remaining for rachio', async () => {
      const booted = await services.boot();
      const res = await post(booted, 'test_controller', {
        controller: {
          id: 'r1',
          kind: 'rachio',
          config: { api_key: RACHIO_PEER_KEY, base_url: rachio.baseUrl },
        },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ ok: true, reachable: true, zone_count: 2, water_level_pct: null });
      expect(res.body.discovered_device).toEqual({
        device_id: RACHIO_DEVICE_ID,
        name: 'Rachio-E1323B',
        device_count: 1,
      });
      expect(res.body.rate_limit_remaining).toBe(String(rachio.remaining));
    });

    it('answers a rejected API key with 424 and a spent budget with 429', async () => {
      const booted = await services.boot();
      const wrong = await post(booted, 'test_controller', {
        controller: { id: 'r1', kind: 'rachio', config: { api_key: 'wrong-key', base_url: rachio.baseUrl } },
      });
      expect(wrong.status).toBe(424);
      expect(wrong.body.code).toBe('controller_auth_failed');

      rachio.remaining = 0;
      const limited = await post(booted, 'test_controller', {
        controller: {
          id: 'r1',
          kind: 'rachio',
          config: { api_key: RACHIO_PEER_KEY, base_url: rachio.baseUrl },
        },
      });
      expect(limited.status).toBe(429);
      expect(limited.body).toMatchObject({ code: 'controller_rate_limited', rate_limit_remaining: '0' });
    });
  });
});

describe('POST /wizard/scan_zones', () => {
  it('lists the peer station names', async () => {
    const booted = await services.boot();
    peer.device.stations.snames[0] = 'Front lawn';
    peer.device.stations.stn_dis = [0b0000_0100]; // station 3 disabled
    const res = await post(booted, 'scan_zones', { controller: osEntry() });
    expect(res.status).toBe(200);
    expect(res.body.zones).toHaveLength(7);
    expect(res.body.zones[0]).toEqual({ station_id: '1', name: 'Front lawn' });
    expect(res.body.zones.map((z: { station_id: string }) => z.station_id)).not.toContain('3');
  });

  it('leaves the master stations (mas, mas2) out: the firmware refuses to run them', async () => {
    const booted = await services.boot();
    peer.device.options.mas = 1;
    peer.device.options.mas2 = 2;
    const res = await post(booted, 'scan_zones', { controller: osEntry() });
    expect(res.status).toBe(200);
    expect(res.body.zones.map((z: { station_id: string }) => z.station_id)).toEqual([
      '3',
      '4',
      '5',
      '6',
      '7',
      '8',
    ]);
  });

  it('answers 422 controller_unsupported for ha_service_call, mqtt_command and esphome_native', async () => {
    const booted = await services.boot();
    for (const kind of ['ha_service_call', 'mqtt_command', 'esphome_native']) {
      const res = await post(booted, 'scan_zones', { controller: { id: 'c1', kind, config: {} } });
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('controller_unsupported');
    }
  });

  it('answers 502 zone_scan_failed for an offline controller and a rejected credential', async () => {
    const booted = await services.boot();
    const wrong = await post(booted, 'scan_zones', { controller: osEntry({ password_md5: WRONG_MD5 }) });
    expect(wrong.status).toBe(502);
    expect(wrong.body).toMatchObject({ code: 'zone_scan_failed', cause: 'controller_auth_failed' });

    const entry = osEntry();
    await peer.close();
    const offline = await post(booted, 'scan_zones', { controller: entry });
    expect(offline.status).toBe(502);
    expect(offline.body).toMatchObject({ code: 'zone_scan_failed', cause: 'controller_unreachable' });
  });

  it('answers 502 zone_scan_failed for a kind without zone discovery', async () => {
    const booted = await services.boot();
    const base = `http://${peer.host}`;
    const res = await post(booted, 'scan_zones', {
      controller: {
        id: 'g1',
        kind: 'http_generic',
        config: { run: { url: `${base}/run/{station}` }, stop: { url: `${base}/stop/{station}` } },
      },
    });
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ code: 'zone_scan_failed', cause: 'controller_unsupported' });
  });

  it('restores a redacted secret for scan_zones too', async () => {
    const booted = await bootWithPeerConfig();
    const ok = await post(booted, 'scan_zones', { controller: osEntry({ password_md5: REDACTED }) });
    expect(ok.status).toBe(200);
    expect(ok.body.zones).toHaveLength(8);
    const unmatched = await post(booted, 'scan_zones', {
      controller: osEntry({ password_md5: REDACTED }, 'nope'),
    });
    expect(unmatched.status).toBe(400);
    expect(unmatched.body.code).toBe('unmatched_redacted_secret');
  });
});
