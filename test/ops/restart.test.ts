import fs from 'node:fs';
import request from 'supertest';
import { json, LoopbackPeer } from '../helpers/loopback-peer';
import { exited, spawnService } from '../helpers/process';
import { makeDataDir, serviceTracker } from '../helpers/service';

/**
 * POST /system/restart (spec 4.8, 7): 409 `watering_in_progress` naming the
 * running zones unless forced; 202 `{mode}`. `supervisor` asks a stand-in
 * Supervisor (HA's API path and bearer token); `exit` ends a real child
 * process cleanly.
 */

const { boot } = serviceTracker();
const peers: LoopbackPeer[] = [];
afterEach(async () => {
  for (const peer of peers.splice(0)) await peer.close();
});

const CONFIG = `schema_version = 2
[deployment.location]
lat = 40.7
lon = -74.0

[[controllers]]
id = "pretend"
kind = "dry_run"
default = true

[zones.front_lawn]
display_name = "Front lawn"
species = "tall_fescue"
controller_station = "1"

[zones.back_beds]
display_name = "Back beds"
species = "ornamental_shrubs"
controller_station = "2"
`;

async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('POST /system/restart', () => {
  it('refuses with 409 watering_in_progress naming the running zones, and restarts when forced', async () => {
    let exits = 0;
    const booted = await boot({ configToml: CONFIG, serviceOptions: { exit: () => (exits += 1) } });
    const server = booted.service.server;
    await request(server)
      .post('/api/v1/irrigation/action')
      .send({ kind: 'run', zone: 'back_beds', seconds: 600 })
      .expect(200);

    const refused = await request(server).post('/api/v1/system/restart').send({}).expect(409);
    expect(refused.body).toMatchObject({ code: 'watering_in_progress', zones: ['back_beds'] });
    expect(refused.body.error).toContain('back_beds');
    expect(exits).toBe(0);

    const forced = await request(server).post('/api/v1/system/restart').send({ force: true }).expect(202);
    expect(forced.body).toEqual({ mode: 'exit' });
    await until(() => exits === 1);
  });

  it('restarts at once when nothing waters; a bad body is 400 and the legacy prefix has no such route', async () => {
    let exits = 0;
    const booted = await boot({ configToml: CONFIG, serviceOptions: { exit: () => (exits += 1) } });
    const server = booted.service.server;
    await request(server).post('/api/v1/system/restart').send({ force: 'yes' }).expect(400);
    await request(server).post('/api/system/restart').expect(404);
    expect(exits).toBe(0);
    const res = await request(server).post('/api/v1/system/restart').expect(202);
    expect(res.body).toEqual({ mode: 'exit' });
    await until(() => exits === 1);
  });

  it('in the add-on asks the Supervisor to restart the add-on', async () => {
    // Answers as the Supervisor does: {"result": "ok", "data": {}}; its core websocket is not served here.
    const supervisor = await new LoopbackPeer((req) =>
      req.path === '/addons/self/restart' ? json(200, { result: 'ok', data: {} }) : json(404, {}),
    ).start();
    peers.push(supervisor);
    let exits = 0;
    const booted = await boot({
      configToml: CONFIG,
      env: { SUPERVISOR_TOKEN: 'sv-token-4411', SUPERVISOR_API: supervisor.baseUrl },
      serviceOptions: { exit: () => (exits += 1) },
    });
    const res = await request(booted.service.server).post('/api/v1/system/restart').expect(202);
    expect(res.body).toEqual({ mode: 'supervisor' });
    await until(() => supervisor.requests.some((r) => r.path === '/addons/self/restart'));
    const call = supervisor.requests.find((r) => r.path === '/addons/self/restart');
    expect(call?.method).toBe('POST');
    expect(call?.headers.authorization).toBe('Bearer sv-token-4411');
    expect(exits).toBe(0);
  });

  it('in exit mode the real process stops cleanly with status 0', async () => {
    const dataDir = makeDataDir();
    fs.writeFileSync(`${dataDir}/config.toml`, CONFIG);
    const { child, port } = await spawnService(dataDir);
    try {
      const res = await request(`http://127.0.0.1:${port}`).post('/api/v1/system/restart').expect(202);
      expect(res.body).toEqual({ mode: 'exit' });
      expect(await exited(child)).toBe(0);
    } finally {
      child.kill('SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
