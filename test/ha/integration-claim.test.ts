import fs from 'node:fs';
import path from 'node:path';
import { connectAsync } from 'mqtt';
import request from 'supertest';
import { IntegrationClaim } from '../../server/src/ha/integration-claim';
import { startMosquitto, type MosquittoBroker } from '../helpers/mosquitto';
import { makeDataDir, serviceTracker, type BootedService } from '../helpers/service';

/**
 * Issue 26, "one entity per fact": when the companion integration claims the
 * install (PUT /ha/claim), the service withdraws its MQTT discovery configs
 * from the broker and publishes none while claimed, across restarts; the
 * release brings them back. Real service (DEMO=1), real Mosquitto.
 */

const services = serviceTracker();
let broker: MosquittoBroker;

beforeAll(async () => {
  broker = await startMosquitto();
});

afterAll(async () => {
  await broker?.stop();
});

/** Polls an asynchronous check (a broker read, an HTTP answer) until it holds. */
async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function installIdOf(dataDir: string): string {
  return fs.readFileSync(path.join(dataDir, 'install-id'), 'utf8').trim();
}

/** What the broker keeps retained on this install's discovery config topics (non-empty payloads). */
async function retainedConfigs(installId: string): Promise<string[]> {
  const client = await connectAsync(broker.url, { clientId: `late-${Date.now()}`, reconnectPeriod: 0 });
  const topics = new Set<string>();
  client.on('message', (topic, payload, packet) => {
    if (packet.retain && payload.length > 0) topics.add(topic);
  });
  await client.subscribeAsync(`homeassistant/+/raincheck_${installId}/+/config`, { qos: 1 });
  await new Promise((resolve) => setTimeout(resolve, 300));
  await client.endAsync(true);
  return [...topics].sort();
}

async function boot(dataDir: string): Promise<BootedService> {
  return services.boot({
    dataDir,
    env: { DEMO: '1', MQTT_HOST: '127.0.0.1', MQTT_PORT: String(broker.port) },
    serviceOptions: { mqttRepublishDelayMs: () => 20 },
  });
}

async function mqttConnected(booted: BootedService): Promise<void> {
  await waitFor(async () => {
    const res = await request(booted.service.server).get('/api/v1/health');
    return res.body.subsystems?.mqtt === 'ok';
  }, 'the MQTT connection');
}

describe('the integration claim', () => {
  it('withdraws the MQTT discovery configs, keeps them away after a restart, and the release brings them back', async () => {
    const dataDir = makeDataDir();
    let booted = await boot(dataDir);
    const installId = installIdOf(dataDir);
    let published: string[] = [];
    await waitFor(async () => (published = await retainedConfigs(installId)).length > 0, 'the first publish');
    expect(published).toContain(`homeassistant/switch/raincheck_${installId}/pause/config`);

    const claimed = await request(booted.service.server).put('/api/v1/ha/claim').send({ claimed: true });
    expect(claimed.status).toBe(200);
    expect(claimed.body).toMatchObject({ claimed: true, mqtt_discovery: 'withdrawn' });
    expect(typeof claimed.body.claimed_epoch).toBe('number');
    await waitFor(async () => (await retainedConfigs(installId)).length === 0, 'the configs withdrawn');

    await booted.service.stop();
    booted = await boot(dataDir);
    expect((await request(booted.service.server).get('/api/v1/ha/claim')).body).toMatchObject({
      claimed: true,
      mqtt_discovery: 'withdrawn',
    });
    await mqttConnected(booted);
    // Connected for longer than the republish delay (20 ms): a claimed install published nothing.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await retainedConfigs(installId)).toEqual([]);

    const released = await request(booted.service.server).put('/api/v1/ha/claim').send({ claimed: false });
    expect(released.body).toEqual({ claimed: false, claimed_epoch: null, mqtt_discovery: 'published' });
    await waitFor(
      async () => (await retainedConfigs(installId)).length === published.length,
      'the configs published again',
    );
  });

  it('refuses a body without a boolean claimed (400 invalid_body) and changes nothing', async () => {
    const booted = await services.boot({ env: { DEMO: '1' } });
    const res = await request(booted.service.server).put('/api/v1/ha/claim').send({ claimed: 'yes' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_body');
    expect((await request(booted.service.server).get('/api/v1/ha/claim')).body).toEqual({
      claimed: false,
      claimed_epoch: null,
      mqtt_discovery: 'not_configured',
    });
  });

  it('a damaged claim file reads as unclaimed (discovery stays on)', () => {
    const dataDir = makeDataDir();
    fs.writeFileSync(path.join(dataDir, 'ha-claim.json'), '{not json');
    expect(IntegrationClaim.inDataDir(dataDir).get()).toEqual({ claimed: false, claimed_epoch: null });
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
});
