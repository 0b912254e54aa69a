import request from 'supertest';
import { systemClock } from '../../server/src/core/clock';
import { ChatWebhookPeer } from '../helpers/chat-webhook-peer';
import { loopbackOnlyFetch, serviceTracker, type BootedService } from '../helpers/service';
import { NtfyPeer } from '../helpers/ntfy-peer';
import { OpenSprinklerPeer } from '../helpers/opensprinkler-peer';
import { PushServicePeer } from '../helpers/push-service-peer';

/**
 * Notices from their real causes through the whole service: a config save
 * raising a zone's cap (spec 6.2: tag `cap-raised-<slug>`, deep link
 * `/zones/<slug>`), a controller rejecting its credential on a dispatch, a
 * manual run finishing; each reaches the peers once, and GET /notifications
 * shows the deliveries with no secret in it.
 */

const services = serviceTracker();
const closers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c.close();
});

const NTFY_TOKEN = 'tk_notify_secret_0123456789';

async function peers() {
  const ntfy = await new NtfyPeer({ topic: 'yard', token: NTFY_TOKEN }).start();
  const chat = await new ChatWebhookPeer().start();
  const push = await new PushServicePeer().start();
  closers.push(ntfy, chat, push);
  return { ntfy, chat, push };
}

function configToml(p: Awaited<ReturnType<typeof peers>>, controller: string, zones: string): string {
  return `schema_version = 2
[deployment.location]
lat = 40.7
lon = -74.0

[notifications.ntfy]
base_url = "${p.ntfy.baseUrl}"
topic = "yard"
auth_token = "${NTFY_TOKEN}"

[notifications.slack]
webhook_url = "${p.chat.url}"

${controller}
${zones}`;
}

const DRY_RUN = `[[controllers]]
id = "dry"
kind = "dry_run"
default = true`;

const ZONES = `[zones.front_lawn]
display_name = "Front lawn"
species = "tall_fescue"
controller_station = "1"

[zones.back_beds]
display_name = "Back beds"
species = "ornamental_shrubs"
controller_station = "2"`;

async function boot(p: Awaited<ReturnType<typeof peers>>, controller = DRY_RUN): Promise<BootedService> {
  return services.boot({
    configToml: configToml(p, controller, ZONES),
    env: { RAINCHECK_PUBLIC_URL: 'https://rain.example.net/app' },
    serviceOptions: {
      fetch: (input, init) => p.push.fetch(input as string, init).catch(() => loopbackOnlyFetch(input, init)),
    },
  });
}

async function until(check: () => boolean, timeoutMs = 8_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 400));

it('a save raising max_run_minutes past 60 pushes cap-raised-<slug> with /zones/<slug>, once', async () => {
  const p = await peers();
  const booted = await boot(p);
  const server = booted.service.server;
  const key = (await request(server).get('/api/v1/push/vapid-key').expect(200)).body.public_key;
  await request(server).post('/api/v1/push/subscribe').send(p.push.subscribe(key)).expect(200);

  const config = (await request(server).get('/api/v1/config').expect(200)).body;
  config.zones.front_lawn.max_run_minutes = 90;
  await request(server).put('/api/v1/config').send(config).expect(200);
  await until(() => p.push.received.length === 1 && p.ntfy.messages.length === 1);
  expect(p.push.refusals).toEqual([]);
  expect(p.push.received[0]?.payload).toMatchObject({
    tag: 'cap-raised-front_lawn',
    url: '/zones/front_lawn',
    title: 'Front lawn may now run 90 minutes',
  });
  expect(p.ntfy.messages[0]).toMatchObject({ click: 'https://rain.example.net/app/zones/front_lawn' });
  expect(p.chat.posts[0]?.text).toContain(
    '<https://rain.example.net/app/zones/front_lawn|Open in Raincheck>',
  );

  // Saving again without a raise, or lowering, tells nothing; raising it further at once is coalesced.
  config.zones.front_lawn.display_name = 'Front lawn (north)';
  await request(server).put('/api/v1/config').send(config).expect(200);
  config.zones.front_lawn.max_run_minutes = 120;
  await request(server).put('/api/v1/config').send(config).expect(200);
  config.zones.back_beds.max_run_minutes = 45;
  await request(server).put('/api/v1/config').send(config).expect(200);
  await settle();
  expect(p.push.received).toHaveLength(1);
  expect(p.ntfy.messages).toHaveLength(1);

  config.zones.back_beds.max_run_minutes = 75;
  await request(server).put('/api/v1/config').send(config).expect(200);
  await until(() => p.push.received.length === 2);
  expect(p.push.received[1]?.payload).toMatchObject({ tag: 'cap-raised-back_beds', url: '/zones/back_beds' });
});

it('a dispatch the controller refuses for its credential is told once, at the highest priority', async () => {
  const p = await peers();
  const opensprinkler = await new OpenSprinklerPeer({ clock: systemClock }).start();
  closers.push(opensprinkler);
  const controller = `[[controllers]]
id = "os"
kind = "opensprinkler"
default = true
[controllers.config]
host = "${opensprinkler.host}"
password_md5 = "00000000000000000000000000000000"
poll_interval_s = 60
timeout_s = 2`;
  const booted = await boot(p, controller);
  const run = await request(booted.service.server)
    .post('/api/v1/irrigation/action')
    .send({ kind: 'run', zone: 'front_lawn', seconds: 60 })
    .expect(424);
  expect(run.body.code).toBe('controller_auth_failed');
  await request(booted.service.server)
    .post('/api/v1/irrigation/action')
    .send({ kind: 'run', zone: 'back_beds', seconds: 60 })
    .expect(424);
  await until(() => p.ntfy.messages.length >= 1);
  await settle();
  expect(p.ntfy.messages).toEqual([
    expect.objectContaining({ title: 'Controller os rejected its credential', priority: 5 }),
  ]);
  expect(p.chat.posts).toHaveLength(1);
});

it('a manual run that ends is told with how long it ran; the status page lists it without secrets', async () => {
  const p = await peers();
  const booted = await boot(p);
  const server = booted.service.server;
  await request(server)
    .post('/api/v1/irrigation/action')
    .send({ kind: 'run', zone: 'back_beds', seconds: 1 })
    .expect(200);
  await until(() => p.ntfy.messages.length === 1, 10_000);
  expect(p.ntfy.messages[0]).toMatchObject({
    title: 'Back beds watered',
    message: 'Watered 1 s (dry run: no valve opened).',
    tags: ['droplet', 'watering_finished'],
    click: 'https://rain.example.net/app/zones/back_beds',
  });
  await until(() => p.chat.posts.length === 1);
  const status = await request(server).get('/api/v1/notifications').expect(200);
  const ntfy = status.body.channels.find((c: { id: string }) => c.id === 'ntfy');
  expect(ntfy).toMatchObject({ configured: true, last_sent: { event: 'watering_finished', status: 'sent' } });
  expect(status.body.channels.find((c: { id: string }) => c.id === 'email')).toMatchObject({
    configured: false,
    note: 'add [notifications.email] to the configuration',
  });
  expect(status.body.links).toBe(true);
  const text = JSON.stringify(status.body);
  expect(text).not.toContain(NTFY_TOKEN);
  expect(text).not.toContain(p.chat.token);
  // GET /config redacts the ntfy token and the webhook URL (it carries the token).
  const config = JSON.stringify((await request(server).get('/api/v1/config').expect(200)).body);
  expect(config).not.toContain(NTFY_TOKEN);
  expect(config).not.toContain(p.chat.token);
});
