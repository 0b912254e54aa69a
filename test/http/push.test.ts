import { generateKeyPairSync, createECDH } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { PushServicePeer } from '../helpers/push-service-peer';
import { makeDataDir, serviceTracker } from '../helpers/service';

/**
 * /push/vapid-key, /push/subscribe and /push/unsubscribe (spec 4.8) on the
 * real service: the generated keypair and where it lives, keys named by the
 * config, `features.enable_push = false`, body checks, the idempotent upsert
 * and the 503s without a database.
 */

const services = serviceTracker();

const BASE = `schema_version = 2
[deployment.location]
lat = 40.7
lon = -74.0
`;

function browserSubscription(endpoint = 'https://push.example.net/wpush/abc123') {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return {
    endpoint,
    expirationTime: null,
    keys: {
      p256dh: ecdh.getPublicKey().toString('base64url'),
      auth: Buffer.alloc(16, 7).toString('base64url'),
    },
  };
}

describe('GET /push/vapid-key', () => {
  it('answers the keypair generated at first start, kept in <data>/private (0700, file 0600) across restarts', async () => {
    const first = await services.boot({ configToml: BASE });
    const res = await request(first.service.server).get('/api/v1/push/vapid-key').expect(200);
    const key = Buffer.from(res.body.public_key, 'base64url');
    expect(key).toHaveLength(65);
    expect(key[0]).toBe(4);
    expect(Object.keys(res.body)).toEqual(['public_key']);
    const dir = path.join(first.dataDir, 'private');
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(dir, 'vapid.json')).mode & 0o777).toBe(0o600);
    // The legacy alias answers the same key.
    expect((await request(first.service.server).get('/api/push/vapid-key').expect(200)).body).toEqual(
      res.body,
    );

    await first.service.stop();
    const again = await services.boot({ dataDir: first.dataDir, configToml: BASE });
    expect((await request(again.service.server).get('/api/v1/push/vapid-key').expect(200)).body).toEqual(
      res.body,
    );
  });

  it('answers 503 "vapid not configured" when push is turned off', async () => {
    const booted = await services.boot({ configToml: `${BASE}\n[features]\nenable_push = false\n` });
    const res = await request(booted.service.server).get('/api/v1/push/vapid-key').expect(503);
    expect(res.body).toMatchObject({ error: 'vapid not configured', code: 'vapid_not_configured' });
    expect(fs.existsSync(path.join(booted.dataDir, 'private', 'vapid.json'))).toBe(false);
    const status = await request(booted.service.server).get('/api/v1/notifications').expect(200);
    expect(status.body.push).toMatchObject({ enabled: false, vapid_configured: false });
  });

  it('loads the keypair the config names (PEM key file) and refuses a public key that does not match it', async () => {
    const dataDir = makeDataDir();
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    fs.writeFileSync(path.join(dataDir, 'vapid.pem'), privateKey.export({ format: 'pem', type: 'sec1' }));
    const jwk = publicKey.export({ format: 'jwk' });
    const raw = Buffer.concat([
      Buffer.from([4]),
      Buffer.from(jwk.x!, 'base64url'),
      Buffer.from(jwk.y!, 'base64url'),
    ]);
    const configured = `${BASE}\n[notifications.web_push]\nvapid_private_path = "vapid.pem"\nvapid_public = "${raw.toString('base64url')}"\nvapid_subject = "mailto:me@example.net"\n`;
    const booted = await services.boot({ dataDir, configToml: configured });
    const res = await request(booted.service.server).get('/api/v1/push/vapid-key').expect(200);
    expect(res.body.public_key).toBe(raw.toString('base64url'));
    expect(fs.existsSync(path.join(dataDir, 'private'))).toBe(false);

    // A hot reload to a mismatching public key: nothing is served rather than a key that cannot sign.
    const other = createECDH('prime256v1');
    other.generateKeys();
    const config = (await request(booted.service.server).get('/api/v1/config').expect(200)).body;
    config.notifications.web_push.vapid_public = other.getPublicKey().toString('base64url');
    await request(booted.service.server).put('/api/v1/config').send(config).expect(200);
    await request(booted.service.server).get('/api/v1/push/vapid-key').expect(503);
    const status = await request(booted.service.server).get('/api/v1/notifications').expect(200);
    expect(status.body.push.note).toBe(
      'notifications.web_push.vapid_public does not belong to the private key',
    );
    // The private key never appears in any answer.
    const pem = privateKey.export({ format: 'jwk' }).d!;
    expect(JSON.stringify(status.body)).not.toContain(pem);
  });
});

describe('POST /push/subscribe and /push/unsubscribe', () => {
  it('upserts by endpoint (idempotent) and removes with a count', async () => {
    const booted = await services.boot({ configToml: BASE });
    const server = booted.service.server;
    const sub = browserSubscription();
    expect((await request(server).post('/api/v1/push/subscribe').send(sub).expect(200)).body).toEqual({
      ok: true,
    });
    await request(server).post('/api/v1/push/subscribe').send(sub).expect(200);
    const rotated = { ...sub, keys: browserSubscription().keys };
    await request(server).post('/api/v1/push/subscribe').send(rotated).expect(200);
    expect(booted.service.store?.pushSubscriptions.list()).toEqual([
      expect.objectContaining({ endpoint: sub.endpoint, p256dh: rotated.keys.p256dh }),
    ]);
    expect((await request(server).get('/api/v1/notifications').expect(200)).body.push.devices).toBe(1);
    const removed = await request(server)
      .post('/api/v1/push/unsubscribe')
      .send({ endpoint: sub.endpoint })
      .expect(200);
    expect(removed.body).toEqual({ ok: true, removed: 1 });
    expect(
      (await request(server).post('/api/v1/push/unsubscribe').send({ endpoint: sub.endpoint })).body,
    ).toEqual({
      ok: true,
      removed: 0,
    });
  });

  it.each([
    ['no keys', { endpoint: 'https://push.example.net/x' }],
    ['an http endpoint', browserSubscription('http://push.example.net/x')],
    ['a non-URL endpoint', browserSubscription('push.example.net/x')],
    [
      'a short p256dh',
      { ...browserSubscription(), keys: { p256dh: 'AAAA', auth: Buffer.alloc(16).toString('base64url') } },
    ],
    [
      'a 12-byte auth',
      {
        ...browserSubscription(),
        keys: { ...browserSubscription().keys, auth: Buffer.alloc(12).toString('base64url') },
      },
    ],
  ])('answers 400 invalid_body for %s', async (_name, body) => {
    const booted = await services.boot({ configToml: BASE });
    const res = await request(booted.service.server).post('/api/v1/push/subscribe').send(body).expect(400);
    expect(res.body.code).toBe('invalid_body');
    expect(booted.service.store?.pushSubscriptions.list()).toEqual([]);
  });

  it('answers 503 without a database (and GET /notifications still works)', async () => {
    const dataDir = makeDataDir();
    fs.mkdirSync(path.join(dataDir, 'raincheck.db'));
    const booted = await services.boot({ dataDir, configToml: BASE });
    const server = booted.service.server;
    const sub = await request(server).post('/api/v1/push/subscribe').send(browserSubscription()).expect(503);
    expect(sub.body.code).toBe('database_unavailable');
    const unsub = await request(server)
      .post('/api/v1/push/unsubscribe')
      .send({ endpoint: 'https://x.example/y' })
      .expect(503);
    expect(unsub.body.code).toBe('database_unavailable');
    const status = await request(server).get('/api/v1/notifications').expect(200);
    expect(status.body).toMatchObject({ persisted: false, push: { devices: null } });
    const routes = await request(server)
      .put('/api/v1/notifications/routes')
      .send({ routes: { anomaly: { ntfy: false } } });
    expect(routes.status).toBe(503);
  });
});

describe('"Send a test" through Web Push', () => {
  it('reaches a subscribed device with the test notice, and says when no channel is configured', async () => {
    const push = await new PushServicePeer().start();
    try {
      const booted = await services.boot({ configToml: BASE, serviceOptions: { fetch: push.fetch } });
      const server = booted.service.server;
      const key = (await request(server).get('/api/v1/push/vapid-key').expect(200)).body.public_key;
      const none = await request(server)
        .post('/api/v1/notifications/test')
        .send({ channel: 'web_push' })
        .expect(200);
      expect(none.body.results).toEqual([
        { channel: 'web_push', status: 'skipped', detail: 'no device is subscribed' },
      ]);
      await request(server).post('/api/v1/push/subscribe').send(push.subscribe(key)).expect(200);
      const sent = await request(server).post('/api/v1/notifications/test').send({}).expect(200);
      expect(sent.body.results).toEqual([
        { channel: 'web_push', status: 'sent', detail: '1 of 1 devices reached' },
      ]);
      expect(push.received[0]?.payload).toMatchObject({
        title: 'Raincheck test notice',
        url: '/settings/notifications',
      });
      const ntfy = await request(server)
        .post('/api/v1/notifications/test')
        .send({ channel: 'ntfy' })
        .expect(409);
      expect(ntfy.body.code).toBe('channel_not_configured');
      await request(server).post('/api/v1/notifications/test').send({ channel: 'pager' }).expect(400);
    } finally {
      await push.close();
    }
  });
});
