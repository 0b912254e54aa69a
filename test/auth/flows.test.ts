import request from 'supertest';
import fs from 'node:fs';
import { parse } from 'smol-toml';
import type { FastifyRequest } from 'fastify';
import { AuthService } from '../../server/src/auth/auth-service';
import { decidePrivilege } from '../../server/src/auth/privileged';
import { inList } from '../../server/src/auth/network';
import {
  buildPolicy,
  HA_INGRESS_PROXY,
  HA_INGRESS_USER_HEADER,
  RequestAuthenticator,
  type AuthPolicy,
} from '../../server/src/auth/request-auth';
import { hashSecret } from '../../server/src/auth/secrets';
import { authSchema } from '../../server/src/config/schema';
import { ManualClock } from '../../server/src/core/clock';
import { silentLogger } from '../../server/src/core/logger';
import { configWithSecrets, SECRET_API_KEY, serviceTracker, type BootedService } from '../helpers/service';
import {
  configToml,
  cookiePair,
  createOwnerAccount,
  OWNER,
  OWNER_PASSWORD,
  send,
  type AuthToml,
} from './auth-helpers';

/** Auth flows over HTTP (spec 4.9, 5, 7, 8): limiter, setup, tokens, Origin, cookies, logout, add-on. */

const services = serviceTracker();
const CHALLENGE = /^Bearer realm="[^"]+"$/;
const GOOD_PASSWORD = 'Sprinkle-the-lawn-77';

async function boot(
  auth?: AuthToml,
  extra: Parameters<typeof services.boot>[0] = {},
): Promise<BootedService> {
  return services.boot({ ...extra, ...(auth ? { configToml: configToml(auth) } : {}) });
}

function login(booted: BootedService, password = OWNER_PASSWORD, username = OWNER): request.Test {
  return request(booted.service.server).post('/api/v1/auth/login').send({ username, password });
}

async function sessionCookie(booted: BootedService): Promise<string> {
  const res = await login(booted).expect(200);
  return cookiePair(res.headers['set-cookie']);
}

function setCookieOf(res: request.Response): string {
  const header = res.headers['set-cookie'] as unknown as string[] | undefined;
  expect(header).toHaveLength(1);
  return (header as string[])[0] as string;
}

/** `Max-Age=604800; Path=/; HttpOnly` -> {'max-age': '604800', path: '/', httponly: ''}. */
function cookieAttributes(setCookie: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const part of setCookie.split(';').slice(1)) {
    const [name, ...value] = part.trim().split('=');
    attributes[(name as string).toLowerCase()] = value.join('=');
  }
  return attributes;
}

function expectUnauthorized(res: request.Response): void {
  expect(res.status).toBe(401);
  expect(res.body.error).toBe('unauthorized');
  expect(res.headers['www-authenticate']).toMatch(CHALLENGE);
}

describe('login and setup limiter (spec 5.10, 8)', () => {
  it('answers the 11th login within a minute with 429 rate_limited, counted per client address', async () => {
    const booted = await boot({ mode: 'required', trusted_proxies: ['127.0.0.1/32'] });
    await createOwnerAccount(booted.service);
    const from = (client: string, path: string, password: string) =>
      request(booted.service.server)
        .post(path)
        .set('X-Forwarded-For', client)
        .send({ username: OWNER, password });
    // Both prefixes share the budget.
    for (let attempt = 1; attempt <= 10; attempt += 1) {
      const path = attempt % 2 ? '/api/v1/auth/login' : '/api/auth/login';
      const res = await from('203.0.113.1', path, 'wrong-password-123');
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('invalid_credentials');
    }
    const limited = await from('203.0.113.1', '/api/v1/auth/login', OWNER_PASSWORD);
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('rate_limited');
    expect(limited.headers['set-cookie']).toBeUndefined();
    // Another client address has its own budget.
    const other = await from('203.0.113.2', '/api/v1/auth/login', OWNER_PASSWORD);
    expect(other.status).toBe(200);
    expect(other.headers['set-cookie']).toBeDefined();
  });

  it('counts setup attempts too, and a limited setup creates nothing', async () => {
    const booted = await boot();
    const agent = request(booted.service.server);
    for (let attempt = 1; attempt <= 10; attempt += 1) {
      const res = await agent.post('/api/v1/auth/setup').send({ username: OWNER, password: 'short' });
      expect(res.status).toBe(400);
    }
    const limited = await agent.post('/api/v1/auth/setup').send({ username: OWNER, password: GOOD_PASSWORD });
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('rate_limited');
    expect(booted.service.store?.accounts.count()).toBe(0);
  });

  it('shares one budget among the clients of a proxy that is not in trusted_proxies (spec 5.7)', async () => {
    const booted = await boot({ mode: 'required' });
    await createOwnerAccount(booted.service);
    for (let attempt = 1; attempt <= 10; attempt += 1) {
      const res = await request(booted.service.server)
        .post('/api/v1/auth/login')
        .set('X-Forwarded-For', `198.51.100.${attempt}`)
        .send({ username: OWNER, password: 'wrong-password-123' });
      expect(res.status).toBe(401);
    }
    const res = await request(booted.service.server)
      .post('/api/v1/auth/login')
      .set('X-Forwarded-For', '198.51.100.99')
      .send({ username: OWNER, password: OWNER_PASSWORD });
    expect(res.status).toBe(429);
  });
});

describe('owner setup (spec 4.9, 5.1)', () => {
  it('creates the owner once; a second setup answers 409 account_exists', async () => {
    const booted = await boot();
    const agent = request(booted.service.server);
    const first = await agent.post('/api/v1/auth/setup').send({ username: OWNER, password: GOOD_PASSWORD });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ ok: true, username: OWNER, mode: 'required' });
    expect(setCookieOf(first)).toMatch(/^service_session=rcs_/);
    const second = await agent
      .post('/api/v1/auth/setup')
      .send({ username: 'intruder', password: GOOD_PASSWORD });
    expect(second.status).toBe(409);
    expect(second.body.code).toBe('account_exists');
    expect(second.headers['set-cookie']).toBeUndefined();
    expect(booted.service.store?.accounts.count()).toBe(1);
    // The intruder cannot sign in; the owner can.
    expect((await login(booted, GOOD_PASSWORD, 'intruder')).status).toBe(401);
    expect((await login(booted, GOOD_PASSWORD)).status).toBe(200);
  });

  it.each([
    ['too short', 'Ab1-xyz', /at least 10 characters/],
    ['too few different characters', 'aaaaabbbbbaaaaa', /4 different characters/],
    ['contains the username', 'my-OWNER-password-1', /may not contain the username/],
    ['too long', 'x1-Y'.repeat(300), /at most 1024 characters/],
  ])('refuses a weak password (%s) with 400 password_too_weak', async (_label, password, message) => {
    const booted = await boot();
    const res = await request(booted.service.server)
      .post('/api/v1/auth/setup')
      .send({ username: OWNER, password });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('password_too_weak');
    expect(res.body.error).toMatch(message);
    expect(res.headers['set-cookie']).toBeUndefined();
    const status = await request(booted.service.server).get('/api/v1/auth/status').expect(200);
    expect(status.body).toEqual({ mode: 'disabled', setup_complete: false, authenticated: true });
  });

  it('/auth/status and /auth/session agree: sign-in off, anonymous, then a session and a token', async () => {
    const booted = await boot();
    const agent = request(booted.service.server);
    const both = async (headers: Record<string, string> = {}) => {
      const status = await agent.get('/api/v1/auth/status').set(headers).expect(200);
      const session = await agent.get('/api/v1/auth/session').set(headers);
      return { status: status.body as { authenticated: boolean }, session };
    };
    const off = await both();
    expect(off.status.authenticated).toBe(true);
    expect(off.session.status).toBe(200);
    expect(off.session.body).toEqual({ authenticated: true, via: 'auth_disabled' });

    const setup = await agent.post('/api/v1/auth/setup').send({ username: OWNER, password: GOOD_PASSWORD });
    const cookie = cookiePair(setup.headers['set-cookie']);
    const anonymous = await both();
    expect(anonymous.status.authenticated).toBe(false);
    expect(anonymous.session.status).toBe(401);
    const signedIn = await both({ Cookie: cookie });
    expect(signedIn.status.authenticated).toBe(true);
    expect(signedIn.session.body).toMatchObject({ authenticated: true, via: 'session', username: OWNER });
  });

  it("switches a present config's auth.mode to required and keeps the config's secrets", async () => {
    const booted = await boot();
    const agent = request(booted.service.server);
    await agent.put('/api/v1/config').send(configWithSecrets()).expect(200);
    expect((await agent.get('/api/v1/auth/status')).body.mode).toBe('disabled');
    await agent.get('/api/v1/snapshot').expect(200);

    await agent.post('/api/v1/auth/setup').send({ username: OWNER, password: GOOD_PASSWORD }).expect(201);

    const status = await agent.get('/api/v1/auth/status').expect(200);
    expect(status.body).toEqual({ mode: 'required', setup_complete: true, authenticated: false });
    const onDisk = parse(fs.readFileSync(booted.configPath, 'utf8')) as { auth: { mode: string } };
    expect(onDisk.auth.mode).toBe('required');
    const text = fs.readFileSync(booted.configPath, 'utf8');
    expect(text).toContain(SECRET_API_KEY);
    expect(text).not.toContain('***redacted***');
    expectUnauthorized(await agent.get('/api/v1/snapshot'));
  });

  it('requires auth once the owner exists even before any config is written', async () => {
    const booted = await boot();
    const agent = request(booted.service.server);
    await agent.post('/api/v1/auth/setup').send({ username: OWNER, password: GOOD_PASSWORD }).expect(201);
    expect(fs.existsSync(booted.configPath)).toBe(false);
    expect((await agent.get('/api/v1/auth/status')).body).toEqual({
      mode: 'required',
      setup_complete: true,
      authenticated: false,
    });
    expectUnauthorized(await agent.get('/api/v1/snapshot'));
    // The first-run surface closes with the first account.
    expectUnauthorized(await agent.get('/api/v1/wizard/state'));
  });
});

describe('API tokens (spec 4.9, 5.2, 5.9)', () => {
  async function ownerSession(auth: AuthToml = { mode: 'required' }) {
    const booted = await boot(auth);
    await createOwnerAccount(booted.service);
    return { booted, agent: request(booted.service.server), cookie: await sessionCookie(booted) };
  }

  it('shows a new token once, lists it without the token or its hash, and accepts it at once', async () => {
    const { agent, cookie } = await ownerSession();
    const created = await agent
      .post('/api/v1/auth/tokens')
      .set('Cookie', cookie)
      .send({ name: ' home assistant ' });
    expect(created.status).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    const token = created.body.token as string;
    expect(token).toMatch(/^rct_[A-Za-z0-9_-]{43}$/);
    expect(created.body).toMatchObject({ id: expect.any(Number), name: 'home assistant' });

    const listed = await agent.get('/api/v1/auth/tokens').set('Cookie', cookie).expect(200);
    expect(listed.body.tokens).toEqual([
      {
        id: created.body.id,
        name: 'home assistant',
        created_epoch: expect.any(Number),
        last_used_epoch: null,
      },
    ]);
    expect(listed.text).not.toContain(token);
    expect(listed.text).not.toContain(hashSecret(token));

    await agent.get('/api/v1/snapshot').set('Authorization', `Bearer ${token}`).expect(200);
    const session = await agent
      .get('/api/v1/auth/session')
      .set('Authorization', `Bearer ${token}`)
      .expect(200);
    expect(session.body).toMatchObject({ authenticated: true, via: 'token', token_name: 'home assistant' });
    const after = await agent.get('/api/v1/auth/tokens').set('Cookie', cookie).expect(200);
    expect(after.body.tokens[0].last_used_epoch).toEqual(expect.any(Number));
    expect(after.text).not.toContain(token);

    const noName = await agent.post('/api/v1/auth/tokens').set('Cookie', cookie).send({ name: '  ' });
    expect(noName.status).toBe(400);
    expect(noName.body.code).toBe('token_name_invalid');
  });

  it('refuses a revoked token at once, even after it was cached by earlier requests', async () => {
    const { booted, agent, cookie } = await ownerSession();
    const created = await agent
      .post('/api/v1/auth/tokens')
      .set('Cookie', cookie)
      .send({ name: 'ci' })
      .expect(201);
    const token = created.body.token as string;
    const bearer = `Bearer ${token}`;
    await agent.get('/api/v1/snapshot').set('Authorization', bearer).expect(200);
    await agent.get('/api/v1/snapshot').set('Authorization', bearer).expect(200);
    const stream = await send(booted.port, {
      path: `/api/v1/stream?access_token=${token}`,
      headersOnly: true,
    });
    expect(stream.status).toBe(200);

    const revoked = await agent.delete(`/api/v1/auth/tokens/${created.body.id}`).set('Cookie', cookie);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ ok: true, revoked: created.body.id });

    expectUnauthorized(await agent.get('/api/v1/snapshot').set('Authorization', bearer));
    const refusedStream = await send(booted.port, { path: `/api/v1/stream?access_token=${token}` });
    expect(refusedStream.status).toBe(401);
    expect((await agent.get('/api/v1/auth/tokens').set('Cookie', cookie)).body.tokens).toEqual([]);
    const again = await agent.delete(`/api/v1/auth/tokens/${created.body.id}`).set('Cookie', cookie);
    expect(again.status).toBe(404);
    expect(again.body.code).toBe('token_unknown');
    expect((await agent.delete('/api/v1/auth/tokens/abc').set('Cookie', cookie)).status).toBe(400);
  });

  describe.each(['disabled', 'required'] as const)('without an owner session (auth %s)', (mode) => {
    const cases: [string, (token: string) => Record<string, string>][] = [
      ['no credentials, from loopback', () => ({})],
      ['from a trusted network', () => ({ 'X-Forwarded-For': '192.168.1.20' })],
      ['with a trusted proxy identity', () => ({ 'X-Forwarded-For': '8.8.8.8', 'X-Remote-User': 'alice' })],
      ['with a valid API token', (token) => ({ Authorization: `Bearer ${token}` })],
      ['with a valid API token in ?access_token', () => ({})],
    ];

    it.each(cases)('refuses token administration %s with 401', async (label, headers) => {
      const { booted, agent, cookie } = await ownerSession({
        mode,
        trusted_proxies: ['127.0.0.1/32'],
        trusted_networks: ['192.168.1.0/24'],
        proxy_auth_header: 'X-Remote-User',
      });
      const created = await agent
        .post('/api/v1/auth/tokens')
        .set('Cookie', cookie)
        .send({ name: 'a' })
        .expect(201);
      const token = created.body.token as string;
      const query = label.includes('access_token') ? `?access_token=${token}` : '';
      const sent = headers(token);
      for (const [method, path] of [
        ['GET', '/api/v1/auth/tokens'],
        ['POST', '/api/v1/auth/tokens'],
        ['DELETE', `/api/v1/auth/tokens/${created.body.id}`],
      ] as const) {
        const res = await send(booted.port, {
          method,
          path: `${path}${query}`,
          headers: sent,
          body: { name: 'b' },
        });
        expect(res.status).toBe(401);
        expect(JSON.parse(res.text)).toMatchObject({ error: 'unauthorized', code: 'unauthorized' });
        expect(res.headers['www-authenticate']).toMatch(CHALLENGE);
      }
      // Nothing changed: still exactly the one token, and it still works.
      const listed = await agent.get('/api/v1/auth/tokens').set('Cookie', cookie).expect(200);
      expect(listed.body.tokens.map((t: { id: number }) => t.id)).toEqual([created.body.id]);
      await agent.get('/api/v1/snapshot').set('Authorization', `Bearer ${token}`).expect(200);
    });
  });

  it('refuses token administration with 403 setup_required while no account exists', async () => {
    const configs: (AuthToml | undefined)[] = [
      undefined,
      { mode: 'required', trusted_networks: ['127.0.0.0/8'] },
    ];
    for (const auth of configs) {
      const booted = await boot(auth);
      for (const [method, path] of [
        ['GET', '/api/v1/auth/tokens'],
        ['POST', '/api/v1/auth/tokens'],
        ['DELETE', '/api/v1/auth/tokens/1'],
      ] as const) {
        const res = await send(booted.port, { method, path, body: { name: 'x' } });
        expect(res.status).toBe(403);
        expect(JSON.parse(res.text).code).toBe('setup_required');
      }
      expect(booted.service.store?.tokens.list()).toEqual([]);
    }
  });
});

describe('Origin check (spec 5.6)', () => {
  it('refuses a non-GET whose Origin disagrees with Host when auth is required; no Origin passes', async () => {
    const booted = await boot({ mode: 'required' });
    await createOwnerAccount(booted.service);
    const agent = request(booted.service.server);
    const host = `127.0.0.1:${booted.port}`;
    for (const origin of ['http://evil.example', 'null', `http://127.0.0.1:${booted.port + 1}`]) {
      const res = await login(booted).set('Origin', origin);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('origin_mismatch');
      expect(res.headers['set-cookie']).toBeUndefined();
    }
    expect((await login(booted).set('Origin', `http://${host}`)).status).toBe(200);
    const cookie = cookiePair((await login(booted).expect(200)).headers['set-cookie']);

    const before = fs.readFileSync(booted.configPath, 'utf8');
    const write = await agent
      .put('/api/v1/config/raw')
      .set('Cookie', cookie)
      .set('Origin', 'http://evil.example')
      .set('Content-Type', 'text/plain')
      .send('schema_version = 2\n');
    expect(write.status).toBe(403);
    expect(write.body.code).toBe('origin_mismatch');
    expect(fs.readFileSync(booted.configPath, 'utf8')).toBe(before);
    const token = await agent
      .post('/api/v1/auth/tokens')
      .set('Cookie', cookie)
      .set('Origin', 'https://attacker.example')
      .send({ name: 'stolen' });
    expect(token.status).toBe(403);
    expect(booted.service.store?.tokens.list()).toEqual([]);
    // Reads are not checked.
    await agent
      .get('/api/v1/snapshot')
      .set('Cookie', cookie)
      .set('Origin', 'http://evil.example')
      .expect(200);
  });

  it('checks Origin while auth is disabled too (issue 16; test/hardening/origin-host.test.ts)', async () => {
    const booted = await boot({ mode: 'disabled' });
    const res = await request(booted.service.server)
      .post('/api/v1/auth/login')
      .set('Origin', 'http://evil.example')
      .send({});
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('origin_mismatch');
    const same = await request(booted.service.server)
      .post('/api/v1/auth/login')
      .set('Origin', `http://127.0.0.1:${booted.port}`)
      .send({});
    expect(same.body.code).toBe('invalid_body');
  });
});

describe('session cookie (spec 5.2, 8)', () => {
  it('is HttpOnly, SameSite=Lax, Path=/, Max-Age = session_ttl_days, not Secure over plain HTTP', async () => {
    const booted = await boot({ mode: 'required', session_ttl_days: 7 });
    await createOwnerAccount(booted.service);
    const before = Math.floor(Date.now() / 1000);
    const res = await login(booted).expect(200);
    const cookie = setCookieOf(res);
    expect(cookie).toMatch(/^service_session=rcs_[A-Za-z0-9_-]{43};/);
    expect(cookieAttributes(cookie)).toEqual({
      'max-age': String(7 * 86400),
      path: '/',
      httponly: '',
      samesite: 'Lax',
    });
    expect(res.body.expires_epoch).toBeGreaterThanOrEqual(before + 7 * 86400);
    expect(res.body.expires_epoch).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 7 * 86400);
  });

  it('is Secure when X-Forwarded-Proto https comes from a trusted proxy, not from any other peer', async () => {
    const proxied = await boot({ mode: 'required', trusted_proxies: ['127.0.0.1/32'] });
    await createOwnerAccount(proxied.service);
    const viaProxy = await login(proxied).set('X-Forwarded-Proto', 'https').expect(200);
    expect(cookieAttributes(setCookieOf(viaProxy))).toHaveProperty('secure');
    const plain = await login(proxied).set('X-Forwarded-Proto', 'http').expect(200);
    expect(cookieAttributes(setCookieOf(plain))).not.toHaveProperty('secure');

    const direct = await boot({ mode: 'required' });
    await createOwnerAccount(direct.service);
    const spoofed = await login(direct).set('X-Forwarded-Proto', 'https').expect(200);
    expect(cookieAttributes(setCookieOf(spoofed))).not.toHaveProperty('secure');
  });

  it('is refused once session_ttl_days have passed, even after it was cached', async () => {
    const clock = new ManualClock(Date.now());
    const booted = await boot({ mode: 'required', session_ttl_days: 1 }, { serviceOptions: { clock } });
    await createOwnerAccount(booted.service);
    const cookie = await sessionCookie(booted);
    const agent = request(booted.service.server);
    await agent.get('/api/v1/snapshot').set('Cookie', cookie).expect(200);
    clock.advance(86400_000 - 5_000);
    await agent.get('/api/v1/snapshot').set('Cookie', cookie).expect(200);
    clock.advance(10_000);
    expectUnauthorized(await agent.get('/api/v1/snapshot').set('Cookie', cookie));
    const html = await agent.get('/zones').set('Cookie', cookie).set('Accept', 'text/html');
    expect(html.status).toBe(302);
    expect(html.headers.location).toBe('/login');
  });

  it('logout ends the session: the old cookie is refused afterwards', async () => {
    const booted = await boot({ mode: 'required' });
    await createOwnerAccount(booted.service);
    const agent = request(booted.service.server);
    const cookie = await sessionCookie(booted);
    const session = await agent.get('/api/v1/auth/session').set('Cookie', cookie).expect(200);
    expect(session.body).toMatchObject({ authenticated: true, via: 'session', username: OWNER });

    const out = await agent.post('/api/v1/auth/logout').set('Cookie', cookie).expect(200);
    const cleared = setCookieOf(out);
    expect(cleared).toMatch(/^service_session=;/);
    expect(cookieAttributes(cleared)).toMatchObject({ 'max-age': '0', path: '/', httponly: '' });

    expectUnauthorized(await agent.get('/api/v1/auth/session').set('Cookie', cookie));
    expectUnauthorized(await agent.get('/api/v1/snapshot').set('Cookie', cookie));
    const status = await agent.get('/api/v1/auth/status').set('Cookie', cookie).expect(200);
    expect(status.body.authenticated).toBe(false);
    // A new login is a new session.
    expect(await sessionCookie(booted)).not.toBe(cookie);
  });
});

describe('cross-origin (spec 5.6)', () => {
  it('sends no CORS headers, not even to a preflight', async () => {
    const booted = await boot({ mode: 'required' });
    await createOwnerAccount(booted.service);
    const agent = request(booted.service.server);
    const answers = [
      await agent
        .options('/api/v1/auth/login')
        .set('Origin', 'http://evil.example')
        .set('Access-Control-Request-Method', 'POST'),
      await agent.get('/api/v1/info').set('Origin', 'http://evil.example'),
      await agent.get('/api/v1/auth/status').set('Origin', 'http://evil.example'),
      await login(booted).set('Origin', `http://127.0.0.1:${booted.port}`),
    ];
    for (const res of answers) {
      expect(Object.keys(res.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    }
    expect(answers[3]?.status).toBe(200);
  });
});

describe('Home Assistant add-on (spec 5.8)', () => {
  const defaults = authSchema.parse({});
  const addon = (auth = defaults, configPresent = true): AuthPolicy =>
    buildPolicy(auth, { addon: true, requireWithoutConfig: false, configPresent });

  it('trusts the ingress proxy 172.30.32.2 and its X-Remote-User-Id header', () => {
    const policy = addon();
    expect(HA_INGRESS_PROXY).toBe('172.30.32.2');
    expect(policy.trusted_proxies).toEqual(['172.30.32.2/32']);
    expect(policy.proxy_auth_header).toBe('X-Remote-User-Id');
    expect(HA_INGRESS_USER_HEADER).toBe('X-Remote-User-Id');
    expect(inList(policy.proxies, '172.30.32.2')).toBe(true);
    expect(inList(policy.proxies, '::ffff:172.30.32.2')).toBe(true);
    expect(inList(policy.proxies, '172.30.32.3')).toBe(false);
    expect(inList(policy.proxies, '127.0.0.1')).toBe(false);
  });

  it('keeps configured proxies and an explicit header; adds nothing outside the add-on', () => {
    const configured = authSchema.parse({
      trusted_proxies: ['10.0.0.2/32', '172.30.32.2/32'],
      proxy_auth_header: 'X-Auth-User',
    });
    const policy = addon(configured);
    expect(policy.trusted_proxies).toEqual(['10.0.0.2/32', '172.30.32.2/32']);
    expect(policy.proxy_auth_header).toBe('X-Auth-User');
    const standalone = buildPolicy(defaults, {
      addon: false,
      requireWithoutConfig: false,
      configPresent: true,
    });
    expect(standalone.trusted_proxies).toEqual([]);
    expect(standalone.proxy_auth_header).toBeNull();
    expect(inList(standalone.proxies, '172.30.32.2')).toBe(false);
  });

  it('settles the mode: required once an account exists before any config', () => {
    const noConfig = (requireWithoutConfig: boolean) =>
      buildPolicy(defaults, { addon: true, requireWithoutConfig, configPresent: false }).mode;
    expect(noConfig(false)).toBe('disabled');
    expect(noConfig(true)).toBe('required');
    expect(buildPolicy(defaults, { addon: true, requireWithoutConfig: true, configPresent: true }).mode).toBe(
      'disabled',
    );
  });

  it('authenticates an ingress user only when the raw peer is the ingress proxy', () => {
    const policy = addon(authSchema.parse({ mode: 'required' }));
    const service = new AuthService({
      store: null,
      clock: new ManualClock(0),
      logger: silentLogger(),
      sessionTtlDays: () => 30,
    });
    const authenticator = new RequestAuthenticator(service, () => policy);
    const fake = (peer: string, headers: Record<string, string>) =>
      ({
        method: 'GET',
        url: '/api/v1/snapshot',
        headers,
        raw: { socket: { remoteAddress: peer } },
      }) as unknown as FastifyRequest;
    const user = { 'x-remote-user-id': '8d1c0ffee', 'x-forwarded-for': '192.168.1.30' };

    const ingress = fake('172.30.32.2', user);
    expect(authenticator.isAuthenticated(ingress)).toBe(true);
    expect(authenticator.of(ingress)).toMatchObject({ proxyUser: '8d1c0ffee', client: '192.168.1.30' });
    expect(authenticator.isAuthenticated(fake('::ffff:172.30.32.2', user))).toBe(true);
    expect(authenticator.isAuthenticated(fake('172.30.32.2', { 'x-forwarded-for': '192.168.1.30' }))).toBe(
      false,
    );
    expect(authenticator.isAuthenticated(fake('172.30.32.9', user))).toBe(false);
    expect(
      authenticator.isAuthenticated(fake('127.0.0.1', { ...user, 'x-forwarded-for': '172.30.32.2' })),
    ).toBe(false);
    // The same policy on the privileged surface.
    expect(
      decidePrivilege({ peer: '172.30.32.2', headers: user, auth: policy, authenticated: false }),
    ).toEqual({
      allowed: true,
      via: 'proxy_identity',
    });
    expect(
      decidePrivilege({ peer: '192.168.1.30', headers: user, auth: policy, authenticated: false }),
    ).toMatchObject({
      allowed: false,
      status: 401,
    });
  });

  it('an add-on boot does not believe the ingress header from a loopback peer', async () => {
    // SUPERVISOR_TOKEN makes this the add-on; its HA link fails to reach ws://supervisor, which is fine here.
    const booted = await boot({ mode: 'required' }, { env: { SUPERVISOR_TOKEN: 'test-supervisor-token' } });
    const agent = request(booted.service.server);
    const spoofed = { 'X-Remote-User-Id': '8d1c0ffee', 'X-Forwarded-For': '172.30.32.2' };
    expectUnauthorized(await agent.get('/api/v1/snapshot').set(spoofed));
    expect((await agent.get('/api/v1/auth/status').set(spoofed)).body.authenticated).toBe(false);
    expectUnauthorized(await agent.get('/api/v1/config/raw').set(spoofed));
  }, 30_000);
});

describe('an Authorization header of another scheme', () => {
  it('is passed over, so a session cookie still signs in behind a proxy doing Basic auth', async () => {
    const booted = await boot({ mode: 'required' });
    await createOwnerAccount(booted.service);
    const cookie = await sessionCookie(booted);
    const agent = request(booted.service.server);
    await agent
      .get('/api/v1/snapshot')
      .set('Authorization', 'Basic b3duZXI6eA==')
      .set('Cookie', cookie)
      .expect(200);
    // A Bearer header still decides on its own: a bad one is refused even with a good cookie.
    await agent.get('/api/v1/snapshot').set('Authorization', 'Bearer nope').set('Cookie', cookie).expect(401);
  });
});
