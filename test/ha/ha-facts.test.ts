import type { Server } from 'node:http';
import request from 'supertest';
import { siteFactsOf } from '../../server/src/ha/ha-facts';
import { distanceKm } from '../../server/src/location/site';
import { DEFAULT_HA_CONFIG, freePort, HaPeer, PEER_TOKEN } from '../helpers/ha-peer';
import { minimalConfig, serviceTracker } from '../helpers/service';

/**
 * Home Assistant's location facts (get_config) as fallbacks for what the
 * config leaves unset: the deployment time zone (irrigation and forecast),
 * the elevation (forecast requests) and GET /location; the config wins when
 * it sets them, and a deployment far from HA's home ignores them.
 */

const services = serviceTracker();
const peers: HaPeer[] = [];
afterEach(async () => {
  for (const peer of peers.splice(0)) await peer.close();
});

/** HA's home (the peer's default get_config) is Boulder; its time zone here differs from the lookup's there. */
const HA_TIME_ZONE = 'America/Phoenix';
const NEAR_HOME = { lat: 40.02, lon: -105.27 };

async function startPeer(port?: number): Promise<HaPeer> {
  const peer = await HaPeer.start({
    config: { time_zone: HA_TIME_ZONE },
    ...(port === undefined ? {} : { port }),
  });
  peers.push(peer);
  return peer;
}

function haEnv(port: number): Record<string, string> {
  return { HA_URL: `ws://127.0.0.1:${port}/api/websocket`, HA_TOKEN: PEER_TOKEN };
}

/** Records every outgoing URL and fails it (tests never reach the internet). */
function recordingFetch(): { fetch: typeof fetch; urls: string[] } {
  const urls: string[] = [];
  const fake: typeof fetch = (input) => {
    urls.push(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    return Promise.reject(new TypeError('fetch failed: not reachable from tests'));
  };
  return { fetch: fake, urls };
}

function configAt(deployment: Record<string, unknown>): Record<string, unknown> {
  return minimalConfig({ deployment: { units: 'imperial', ...deployment } });
}

async function put(server: Server, config: Record<string, unknown>): Promise<void> {
  await request(server).put('/api/v1/config').send(config).expect(200);
}

async function timezones(server: Server): Promise<{ irrigation: string; forecast: string }> {
  const irrigation = await request(server).get('/api/v1/irrigation/snapshot').expect(200);
  const forecast = await request(server).get('/api/v1/forecast/snapshot').expect(200);
  return { irrigation: irrigation.body.timezone, forecast: forecast.body.timezone };
}

async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const forecastUrls = (urls: string[]) => urls.filter((u) => u.includes('open-meteo.com/v1/forecast'));

describe('HA facts as site fallbacks', () => {
  it("fills the unset time zone and elevation from HA's get_config, leaving the stored config alone", async () => {
    const peer = await startPeer();
    const recorder = recordingFetch();
    const booted = await services.boot({ env: haEnv(peer.port), serviceOptions: { fetch: recorder.fetch } });
    const server = booted.service.server;
    await put(server, configAt({ location: NEAR_HOME }));

    expect(await timezones(server)).toEqual({ irrigation: HA_TIME_ZONE, forecast: HA_TIME_ZONE });
    await eventually(async () => forecastUrls(recorder.urls).length > 0, 'a forecast request');
    expect(forecastUrls(recorder.urls).at(-1)).toContain(`elevation=${DEFAULT_HA_CONFIG.elevation}`);
    expect(forecastUrls(recorder.urls).at(-1)).toContain(`timezone=${encodeURIComponent(HA_TIME_ZONE)}`);
    const stored = await request(server).get('/api/v1/config').expect(200);
    expect(stored.body.deployment.timezone ?? null).toBeNull();
    expect(stored.body.deployment.location.elevation_m ?? null).toBeNull();
    expect(peer.received.filter((m) => m.type === 'get_config')).toHaveLength(1);
  });

  it('lets the config win when it sets the time zone and elevation', async () => {
    const peer = await startPeer();
    const recorder = recordingFetch();
    const booted = await services.boot({ env: haEnv(peer.port), serviceOptions: { fetch: recorder.fetch } });
    const server = booted.service.server;
    await put(
      server,
      configAt({ location: { ...NEAR_HOME, elevation_m: 1600 }, timezone: 'America/Chicago' }),
    );
    expect(await timezones(server)).toEqual({ irrigation: 'America/Chicago', forecast: 'America/Chicago' });
    await eventually(async () => forecastUrls(recorder.urls).length > 0, 'a forecast request');
    expect(forecastUrls(recorder.urls).at(-1)).toContain('elevation=1600');
  });

  it("ignores HA's facts for a deployment far from HA's home", async () => {
    const peer = await startPeer();
    const recorder = recordingFetch();
    const booted = await services.boot({ env: haEnv(peer.port), serviceOptions: { fetch: recorder.fetch } });
    const server = booted.service.server;
    await put(server, configAt({ location: { lat: 40.7, lon: -74.0 } }));
    expect(await timezones(server)).toEqual({ irrigation: 'America/New_York', forecast: 'America/New_York' });
    await eventually(async () => forecastUrls(recorder.urls).length > 0, 'a forecast request');
    expect(forecastUrls(recorder.urls).at(-1)).not.toContain('elevation=');
  });

  it('switches to HA time zone once a late connection reads the facts', async () => {
    const port = await freePort();
    const booted = await services.boot({ env: haEnv(port) });
    const server = booted.service.server;
    await put(server, configAt({ location: NEAR_HOME }));
    // Before HA answers: the offline lookup at the deployment's coordinates.
    expect((await timezones(server)).irrigation).toBe('America/Denver');
    await startPeer(port);
    await eventually(
      async () => (await timezones(server)).irrigation === HA_TIME_ZONE,
      "HA's time zone after the late connection",
    );
    expect((await timezones(server)).forecast).toBe(HA_TIME_ZONE);
  });
});

describe('GET /location with HA', () => {
  it("answers HA's home when neither the config nor LAT/LON say where", async () => {
    const peer = await startPeer();
    const { service } = await services.boot({ env: haEnv(peer.port) });
    const res = await request(service.server).get('/api/v1/location').expect(200);
    expect(res.body).toEqual({
      lat: DEFAULT_HA_CONFIG.latitude,
      lon: DEFAULT_HA_CONFIG.longitude,
      zoom: expect.any(Number),
      source: 'home_assistant',
    });
    const none = await services.boot();
    const world = await request(none.service.server).get('/api/v1/location').expect(200);
    expect(world.body.source).toBe('none');
    expect(res.body.zoom).toBeGreaterThan(world.body.zoom);
  });

  it('prefers LAT/LON from the environment, then the config, over HA', async () => {
    const peer = await startPeer();
    const { service } = await services.boot({ env: { ...haEnv(peer.port), LAT: '35.5', LON: '-97.25' } });
    const env = await request(service.server).get('/api/v1/location').expect(200);
    expect(env.body).toEqual(expect.objectContaining({ lat: 35.5, lon: -97.25, source: 'environment' }));
    await put(service.server, configAt({ location: { lat: 28.54, lon: -81.38 } }));
    const configured = await request(service.server).get('/api/location').expect(200);
    expect(configured.body).toEqual(expect.objectContaining({ lat: 28.54, lon: -81.38, source: 'config' }));
  });
});

describe('siteFactsOf', () => {
  it('keeps valid facts and nulls malformed ones', () => {
    expect(siteFactsOf(DEFAULT_HA_CONFIG, 100)).toEqual({
      latitude: 40.015,
      longitude: -105.2705,
      elevation_m: 1655,
      time_zone: 'America/Denver',
      read_epoch: 100,
    });
    expect(
      siteFactsOf({ latitude: 123, longitude: 'x', elevation: null, time_zone: 'Mars/Olympus' }, 1),
    ).toEqual({ latitude: null, longitude: null, elevation_m: null, time_zone: null, read_epoch: 1 });
    expect(distanceKm(NEAR_HOME.lat, NEAR_HOME.lon, 40.015, -105.2705)).toBeLessThan(1);
  });
});
