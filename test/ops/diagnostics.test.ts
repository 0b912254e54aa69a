import { Writable } from 'node:stream';
import request from 'supertest';
import { LogRing } from '../../server/src/core/log-ring';
import { createRootLogger } from '../../server/src/core/logger';
import { secretForms } from '../../server/src/ops/diagnostics/scrub';
import { LoopbackPeer } from '../helpers/loopback-peer';
import { serviceTracker } from '../helpers/service';

/**
 * GET /diagnostics: one JSON for a bug report, with every section the issue
 * lists, and none of the config's or the environment's secret values in any
 * form (plain, URL-encoded, base64), even when a module logged one.
 */

const { boot } = serviceTracker();

const SECRETS = {
  apiKey: 'owm-key-7d1f9a0b3c',
  md5: '5f4dcc3b5aa765d61d8327deb882cf99',
  ntfy: 'tk_ntfy/secret+token=42',
  smtp: 'p@ss w/rd&mail',
  webhook: 'https://hooks.example.test/services/T000/B000/XyZsecretPath',
  haToken: 'ha-long-lived-token-abcdef123456',
};

const CONFIG = `schema_version = 2
[deployment.location]
lat = 40.7
lon = -74.0

[[sources]]
id = "owm"
kind = "openweather"
enabled = false
priority = 10
[sources.config]
api_key = "${SECRETS.apiKey}"

[[controllers]]
id = "os"
kind = "opensprinkler"
default = true
enabled = false
[controllers.config]
host = "127.0.0.1"
password_md5 = "${SECRETS.md5}"

[notifications.ntfy]
base_url = "http://127.0.0.1:9"
topic = "yard"
auth_token = "${SECRETS.ntfy}"

[notifications.email]
smtp_host = "127.0.0.1"
smtp_port = 2525
username = "owner"
password = "${SECRETS.smtp}"
from_address = "rc@example.test"
to_address = "me@example.test"

[notifications.slack]
webhook_url = "${SECRETS.webhook}"
`;

function quiet(): Writable {
  return new Writable({ write: (_chunk, _encoding, done) => done() });
}

function forms(secret: string): Record<string, string> {
  return {
    plain: secret,
    url_encoded: encodeURIComponent(secret),
    base64: Buffer.from(secret).toString('base64'),
    base64url: Buffer.from(secret).toString('base64url'),
  };
}

describe('GET /diagnostics', () => {
  it('reports every section and holds no secret value in any form', async () => {
    const ring = new LogRing();
    const logger = createRootLogger('warn', { ring, destination: quiet() });
    const booted = await boot({
      configToml: CONFIG,
      env: { HA_URL: 'http://127.0.0.1:9', HA_TOKEN: SECRETS.haToken },
      serviceOptions: { logger, logRing: ring },
    });
    // A module that logs what it should not: the scrubber is the last line.
    logger.child({ module: 'careless' }).error(
      {
        url: `http://127.0.0.1/data?appid=${encodeURIComponent(SECRETS.apiKey)}`,
        header: `Basic ${Buffer.from(`owner:${SECRETS.smtp}`).toString('base64')}`,
        note: `posting to ${SECRETS.webhook} with ${SECRETS.ntfy}`,
      },
      `request failed for key ${SECRETS.apiKey} and ${Buffer.from(SECRETS.ntfy).toString('base64')}`,
    );

    const res = await request(booted.service.server).get('/api/v1/diagnostics').expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = res.body as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(
      expect.arrayContaining([
        'service',
        'platform',
        'config',
        'health',
        'sources',
        'controllers',
        'mqtt',
        'ha',
        'fetches',
        'database',
        'notification_channels',
        'recent_log_errors',
      ]),
    );
    expect(body.service).toMatchObject({ name: 'raincheck', api_version: expect.any(String) });
    expect(body.database).toMatchObject({ available: true, integrity: 'ok' });
    expect((body.database as { size_bytes: number }).size_bytes).toBeGreaterThan(0);
    expect(body.config).toMatchObject({ present: true, status: 'ok', validation: { ok: true } });
    expect(body.sources).toEqual([expect.objectContaining({ id: 'owm', last_success_epoch: null })]);
    expect(body.controllers).toEqual([expect.objectContaining({ id: 'os', kind: 'opensprinkler' })]);
    // The channels the config names, as the notify domain reports them (nothing sent yet).
    const channels = body.notification_channels as { channel: string; enabled: boolean }[];
    expect(channels.map((c) => [c.channel, c.enabled])).toEqual([
      ['web_push', true],
      ['ntfy', true],
      ['slack', true],
      ['email', true],
    ]);
    const logged = body.recent_log_errors as { module: string; msg: string }[];
    const careless = logged.find((line) => line.module === 'careless');
    expect(careless?.msg).toContain('request failed for key ***redacted***');

    const text = res.text;
    for (const secret of Object.values(SECRETS)) {
      for (const [form, value] of Object.entries(forms(secret))) {
        expect({ secret, form, found: text.includes(value) }).toEqual({ secret, form, found: false });
      }
    }
    // Inside an encoded pair the secret's own base64 run is found at any alignment.
    expect(text).not.toContain(Buffer.from(`owner:${SECRETS.smtp}`).toString('base64'));
  });

  it("names each notification channel's state from the real channel, its failure scrubbed", async () => {
    // An ntfy server that refuses the token and (carelessly) echoes it back in its answer.
    const ntfy = await new LoopbackPeer((req) => ({
      status: 401,
      body: JSON.stringify({ code: 40101, http: 401, error: `unauthorized: ${req.headers.authorization}` }),
    })).start();
    try {
      const booted = await boot({
        configToml: CONFIG.replace('base_url = "http://127.0.0.1:9"', `base_url = "${ntfy.baseUrl}"`),
      });
      const test = await request(booted.service.server)
        .post('/api/v1/notifications/test')
        .send({ channel: 'ntfy' })
        .expect(200);
      expect(JSON.stringify(test.body)).not.toContain(SECRETS.ntfy);
      expect(ntfy.requests).toHaveLength(1);

      const res = await request(booted.service.server).get('/api/v1/diagnostics?download=1').expect(200);
      expect(res.headers['content-disposition']).toBe('attachment; filename="raincheck-diagnostics.json"');
      const channels = res.body.notification_channels as { channel: string; last_error: string | null }[];
      const state = channels.find((c) => c.channel === 'ntfy');
      expect(state).toEqual(
        expect.objectContaining({ channel: 'ntfy', enabled: true, last_delivery_epoch: null }),
      );
      expect(state?.last_error).toContain('HTTP 401');
      expect(typeof (state as { last_failure_epoch?: unknown }).last_failure_epoch).toBe('number');
      expect(res.text).not.toContain(SECRETS.ntfy);
      expect(res.text).not.toContain(encodeURIComponent(SECRETS.ntfy));
    } finally {
      await ntfy.close();
    }
  });

  it('is v1-only and needs credentials when auth is required', async () => {
    const booted = await boot({ configToml: `${CONFIG}\n[auth]\nmode = "required"\n` });
    await request(booted.service.server)
      .get('/api/diagnostics')
      .expect((res) => expect([401, 404]).toContain(res.status));
    await request(booted.service.server).get('/api/v1/diagnostics').expect(401);
  });
});

describe('secretForms', () => {
  it('finds a secret base64-encoded at any offset inside a longer value', () => {
    const secret = 'correct horse battery';
    for (const prefix of ['', 'a', 'ab', 'abc', 'user:']) {
      const encoded = Buffer.from(`${prefix}${secret}!`).toString('base64');
      expect(secretForms(secret).some((form) => encoded.includes(form))).toBe(true);
    }
  });
});
