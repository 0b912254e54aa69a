import { EmailChannel } from '../../server/src/notify/channels/email';
import { NtfyChannel } from '../../server/src/notify/channels/ntfy';
import { SlackChannel } from '../../server/src/notify/channels/slack';
import { WebPushChannel } from '../../server/src/notify/channels/web-push';
import type { Notice } from '../../server/src/notify/types';
import { loadVapidKeys, type VapidKeys } from '../../server/src/notify/vapid';
import type { PushSubscription } from '../../server/src/store/push-subscriptions';
import { ChatWebhookPeer } from '../helpers/chat-webhook-peer';
import { refusedBaseUrl } from '../helpers/loopback-peer';
import { NtfyPeer } from '../helpers/ntfy-peer';
import { PushServicePeer } from '../helpers/push-service-peer';
import { makeDataDir } from '../helpers/service';
import { selfSignedCertificate, SmtpPeer } from '../helpers/smtp-peer';

/**
 * Each channel against a loopback peer that speaks the real protocol: what
 * goes on the wire, how the peer's refusals read (retry or give up) and that
 * secrets never appear in what a channel reports.
 */

const closers: { close(): Promise<void> | void }[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c.close();
});

function notice(overrides: Partial<Notice> = {}): Notice {
  return {
    event: 'cap_raised',
    severity: 'warning',
    title: 'Front lawn may now run 90 minutes',
    body: 'Its per-run cap went from 60 to 90 minutes.',
    link: '/zones/front_lawn',
    tag: 'cap-raised-front_lawn',
    key: 'cap-raised-front_lawn',
    window_s: 600,
    epoch: 1_750_000_000,
    ...overrides,
  };
}

describe('ntfy', () => {
  const TOKEN = 'tk_0123456789abcdefghijklmnopq';

  async function peer(): Promise<NtfyPeer> {
    const p = await new NtfyPeer({ topic: 'raincheck-yard', token: TOKEN }).start();
    closers.push(p);
    return p;
  }

  it('publishes the body with Title, Priority, Tags, Click and the bearer token', async () => {
    const p = await peer();
    const channel = new NtfyChannel(
      { base_url: p.baseUrl, topic: 'raincheck-yard', auth_token: TOKEN },
      { fetch, publicUrl: 'https://rain.example.net/app/' },
    );
    const result = await channel.send(notice({ title: 'Front lawn – 90 min cap °' }));
    expect(result).toEqual({ status: 'sent', detail: 'published to topic raincheck-yard' });
    expect(p.messages).toEqual([
      {
        topic: 'raincheck-yard',
        title: 'Front lawn – 90 min cap °',
        message: 'Its per-run cap went from 60 to 90 minutes.',
        priority: 4,
        tags: ['warning', 'cap_raised'],
        click: 'https://rain.example.net/app/zones/front_lawn',
        authorization: `Bearer ${TOKEN}`,
      },
    ]);
  });

  it('sends no Click without a public URL, and critical notices at priority 5', async () => {
    const p = await peer();
    const channel = new NtfyChannel(
      { base_url: p.baseUrl, topic: 'raincheck-yard', auth_token: TOKEN },
      { fetch, publicUrl: null },
    );
    await channel.send(notice({ severity: 'critical' }));
    expect(p.messages[0]).toMatchObject({ click: null, priority: 5, tags: ['rotating_light', 'cap_raised'] });
  });

  it('gives up on a refused token (no secret in the detail) and retries a 5xx, 429 or a refused connection', async () => {
    const p = await peer();
    const wrong = new NtfyChannel(
      { base_url: p.baseUrl, topic: 'raincheck-yard', auth_token: 'tk_wrongwrongwrong' },
      { fetch, publicUrl: null },
    );
    const refused = await wrong.send(notice());
    expect(refused.status).toBe('failed');
    expect(refused.detail).toMatch(/^HTTP 401: .*unauthorized/);
    expect(refused.detail).not.toContain('tk_wrongwrongwrong');

    const right = new NtfyChannel(
      { base_url: p.baseUrl, topic: 'raincheck-yard', auth_token: TOKEN },
      { fetch, publicUrl: null },
    );
    p.failWith = [503, 429];
    expect(await right.send(notice())).toMatchObject({
      status: 'retry',
      detail: expect.stringMatching(/^HTTP 503/),
    });
    expect(await right.send(notice())).toMatchObject({ status: 'retry', retryAfterMs: 1000 });
    expect((await right.send(notice())).status).toBe('sent');

    const down = new NtfyChannel(
      { base_url: await refusedBaseUrl(), topic: 't', auth_token: TOKEN },
      { fetch, publicUrl: null },
    );
    const offline = await down.send(notice());
    expect(offline.status).toBe('retry');
    expect(offline.detail).toMatch(/ECONNREFUSED/);
  });
});

describe('chat webhook (Slack-style)', () => {
  it('posts {text} with the title in bold, the body and the link, and reads "ok" as delivered', async () => {
    const p = await new ChatWebhookPeer().start();
    closers.push(p);
    const channel = new SlackChannel(
      { webhook_url: p.url },
      { fetch, publicUrl: 'http://raincheck.lan:8099/' },
    );
    const result = await channel.send(notice({ body: 'Cap <90> & more' }));
    expect(result.status).toBe('sent');
    expect(p.posts).toEqual([
      {
        text: ':warning: *Front lawn may now run 90 minutes*\nCap &lt;90&gt; &amp; more\n<http://raincheck.lan:8099/zones/front_lawn|Open in Raincheck>',
        body: { text: expect.any(String) },
      },
    ]);
    expect(p.requests[0]?.headers['content-type']).toMatch(/^application\/json/);
  });

  it('never shows the webhook URL or its token in a failure', async () => {
    const p = await new ChatWebhookPeer().start();
    closers.push(p);
    p.archived = true;
    const channel = new SlackChannel({ webhook_url: p.url }, { fetch, publicUrl: null });
    const gone = await channel.send(notice());
    expect(gone).toEqual({ status: 'failed', detail: 'HTTP 410: channel_is_archived' });

    const down = new SlackChannel(
      { webhook_url: `${await refusedBaseUrl()}/services/T1/B2/secrettoken1234` },
      { fetch, publicUrl: null },
    );
    const offline = await down.send(notice());
    expect(offline.status).toBe('retry');
    expect(offline.detail).not.toContain('secrettoken1234');
    p.archived = false;
    p.failWith = [500];
    expect((await channel.send(notice())).status).toBe('retry');
  });
});

describe('e-mail (SMTP with STARTTLS)', () => {
  const account = { user: 'raincheck@example.net', pass: 'smtp-pass-0123456789' };
  let cert: ReturnType<typeof selfSignedCertificate>;
  beforeAll(() => {
    cert = selfSignedCertificate();
  });

  async function smtp(): Promise<SmtpPeer> {
    const p = await new SmtpPeer(cert, account).start();
    closers.push(p);
    return p;
  }

  function channel(p: SmtpPeer, overrides: Partial<ConstructorParameters<typeof EmailChannel>[0]> = {}) {
    const c = new EmailChannel(
      {
        smtp_host: '127.0.0.1',
        smtp_port: p.port,
        username: account.user,
        password: account.pass,
        from_address: 'Raincheck <raincheck@example.net>',
        to_address: 'owner@example.net',
        starttls: true,
        ...overrides,
      },
      { publicUrl: 'https://rain.example.net/', tls: { ca: cert.cert }, timeoutMs: 5000 },
    );
    closers.push(c);
    return c;
  }

  it('upgrades with STARTTLS, logs in, and delivers the message', async () => {
    const p = await smtp();
    const result = await channel(p).send(notice());
    expect(result.status).toBe('sent');
    expect(p.authAttempts).toEqual([{ user: account.user, secure: true, ok: true }]);
    expect(p.mails).toHaveLength(1);
    const mail = p.mails[0]!;
    expect(mail).toMatchObject({
      from: 'raincheck@example.net',
      to: ['owner@example.net'],
      secure: true,
      user: account.user,
    });
    expect(mail.headers.subject).toBe('[Raincheck] Front lawn may now run 90 minutes');
    expect(mail.headers['x-raincheck-event']).toBe('cap_raised');
    expect(mail.text).toBe(
      'Its per-run cap went from 60 to 90 minutes.\n\nOpen in Raincheck: https://rain.example.net/zones/front_lawn',
    );
  });

  it('does not retry a refused login and never reports the password', async () => {
    const p = await smtp();
    const result = await channel(p, { password: 'wrong-password-xyz' }).send(notice());
    expect(result.status).toBe('failed');
    expect(result.detail).toMatch(/EAUTH/);
    expect(result.detail).not.toContain('wrong-password-xyz');
    expect(p.mails).toEqual([]);
  });

  it('retries a temporary 4xx refusal and a server that is not there', async () => {
    const p = await smtp();
    p.failWith = [451];
    expect((await channel(p).send(notice())).status).toBe('retry');
    expect((await channel(p).send(notice())).status).toBe('sent');
    const port = Number(new URL(await refusedBaseUrl()).port);
    expect((await channel(p, { smtp_port: port }).send(notice())).status).toBe('retry');
  });

  it('refuses to send when the certificate is not trusted', async () => {
    const p = await smtp();
    const untrusted = new EmailChannel(
      {
        smtp_host: '127.0.0.1',
        smtp_port: p.port,
        username: account.user,
        password: account.pass,
        from_address: 'a@b.c',
        to_address: 'd@e.f',
        starttls: true,
      },
      { publicUrl: null, timeoutMs: 5000 },
    );
    closers.push(untrusted);
    const result = await untrusted.send(notice());
    expect(result.status).not.toBe('sent');
    expect(p.mails).toEqual([]);
  });
});

describe('Web Push', () => {
  let keys: VapidKeys;
  beforeAll(() => {
    const load = loadVapidKeys({ vapid_subject: 'mailto:owner@example.net' }, makeDataDir());
    if (!load.keys) throw new Error(load.note);
    keys = load.keys;
  });

  async function setup() {
    const service = await new PushServicePeer().start();
    closers.push(service);
    const subscriptions: PushSubscription[] = [];
    const add = () => {
      const sub = service.subscribe(keys.publicKey);
      subscriptions.push({
        endpoint: sub.endpoint,
        p256dh: sub.keys.p256dh,
        auth: sub.keys.auth,
        created_epoch: 1,
      });
      return sub.endpoint;
    };
    const channel = new WebPushChannel({
      subscriptions: () => [...subscriptions],
      removeSubscription: (endpoint) =>
        subscriptions.splice(
          subscriptions.findIndex((s) => s.endpoint === endpoint),
          1,
        ),
      keys: () => keys,
      fetch: service.fetch,
    });
    return { service, subscriptions, add, channel };
  }

  it('signs a VAPID JWT the push service accepts and encrypts a payload the browser decrypts', async () => {
    const { service, add, channel } = await setup();
    add();
    const result = await channel.send(notice());
    expect(service.refusals).toEqual([]);
    expect(result).toEqual({ status: 'sent', detail: '1 of 1 devices reached' });
    const [push] = service.received;
    expect(push?.payload).toEqual({
      title: 'Front lawn may now run 90 minutes',
      body: 'Its per-run cap went from 60 to 90 minutes.',
      tag: 'cap-raised-front_lawn',
      url: '/zones/front_lawn',
      severity: 'warning',
      event: 'cap_raised',
      epoch: 1_750_000_000,
    });
    expect(push?.claims).toMatchObject({ aud: service.origin, sub: 'mailto:owner@example.net' });
    expect(push?.headers.ttl).toBe('86400');
    expect(push?.headers.topic).toBe('cap-raised-front_lawn');
  });

  it('removes subscriptions the push service reports gone and retries only the devices not reached', async () => {
    const { service, subscriptions, add, channel } = await setup();
    const gone = add();
    const flaky = add();
    const fine = add();
    service.gone.add(gone);
    service.failFor.set(flaky, [503]);
    const first = await channel.send(notice());
    expect(subscriptions.map((s) => s.endpoint)).toEqual([flaky, fine]);
    expect(first).toEqual({
      status: 'retry',
      detail: '1 of 3 devices reached; 1 gone and removed; push service answered 503',
      resume: [flaky],
    });
    const second = await channel.send(notice(), (first as { resume: unknown }).resume);
    expect(second).toEqual({ status: 'sent', detail: '1 of 1 devices reached' });
    expect(service.received.map((r) => r.endpoint)).toEqual([fine, flaky]);
  });

  it('gives up on a device whose subscription belongs to another key (403)', async () => {
    const { service, subscriptions, channel } = await setup();
    const other = loadVapidKeys(undefined, makeDataDir());
    const sub = service.subscribe(other.keys!.publicKey);
    subscriptions.push({
      endpoint: sub.endpoint,
      p256dh: sub.keys.p256dh,
      auth: sub.keys.auth,
      created_epoch: 1,
    });
    const result = await channel.send(notice());
    expect(result).toEqual({ status: 'failed', detail: '0 of 1 devices reached; push service answered 403' });
    expect(service.refusals).toEqual(['VAPID key differs from the subscription key']);
    expect(subscriptions).toHaveLength(1);
  });

  it('answers skipped when no device is subscribed', async () => {
    const { channel } = await setup();
    expect(await channel.send(notice())).toEqual({
      status: 'skipped',
      detail: 'no device is subscribed',
    });
  });
});
