import request from 'supertest';
import pino from 'pino';
import { hashSecret } from '../../server/src/auth/secrets';
import { REDACTED_LOG_PATHS } from '../../server/src/core/logger';
import {
  configWithSecrets,
  SECRET_API_KEY,
  SECRET_PASSWORD_MD5,
  serviceTracker,
  type BootedService,
} from '../helpers/service';
import { cookiePair, send } from './auth-helpers';

/**
 * Passwords, session secrets, API tokens and their hashes stay out of every
 * response and every log line (the service's own logger settings, at trace).
 * The only exceptions: the Set-Cookie that hands a session to its owner and
 * the 201 body that shows a new token once.
 */

const services = serviceTracker();

const USERNAME = 'gardener';
const PASSWORD = 'Rain-or-Shine-2024!';
const WRONG_PASSWORD = 'Rain-or-Shine-2025!';
const WEAK_PASSWORD = 'hunter2';
const STRANGER_PASSWORD = 'Stranger-Danger-99';

/** The service's logger (core/logger.ts: same base and redaction) at trace, into memory. */
function capturingLogger(): { logger: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = pino(
    {
      level: 'trace',
      base: { service: 'raincheck' },
      redact: { paths: REDACTED_LOG_PATHS, censor: '***redacted***' },
    },
    { write: (line: string) => void lines.push(line) },
  );
  return { logger, lines };
}

interface Exchange {
  label: string;
  status: number;
  headers: Record<string, unknown>;
  body: string;
}

class Recorder {
  readonly exchanges: Exchange[] = [];
  constructor(private readonly booted: BootedService) {}

  get agent() {
    return request(this.booted.service.server);
  }

  async record(label: string, test: request.Test): Promise<request.Response> {
    const res = await test;
    this.exchanges.push({ label, status: res.status, headers: res.headers, body: res.text ?? '' });
    return res;
  }
}

/** Every secret and every derivative the test knows of, labelled for the failure message. */
function secretsOf(values: Record<string, string>): [string, string][] {
  return Object.entries(values).filter(([, value]) => value.length > 0);
}

function leaksIn(text: string, secrets: [string, string][]): string[] {
  return secrets.filter(([, value]) => text.includes(value)).map(([label]) => label);
}

describe('secrets never leak (spec 5.2)', () => {
  it('keeps passwords, sessions, tokens and their hashes out of responses and logs', async () => {
    const { logger, lines } = capturingLogger();
    const booted = await services.boot({ serviceOptions: { logger } });
    const rec = new Recorder(booted);
    const { agent } = rec;

    await rec.record('config write', agent.put('/api/v1/config').send(configWithSecrets()));
    await rec.record(
      'weak setup',
      agent.post('/api/v1/auth/setup').send({ username: USERNAME, password: WEAK_PASSWORD }),
    );
    const setup = await rec.record(
      'setup',
      agent.post('/api/v1/auth/setup').send({ username: USERNAME, password: PASSWORD }),
    );
    expect(setup.status).toBe(201);
    const setupCookie = cookiePair(setup.headers['set-cookie']);
    const setupSession = setupCookie.split('=')[1] as string;

    await rec.record(
      'second setup',
      agent.post('/api/v1/auth/setup').send({ username: 'x', password: STRANGER_PASSWORD }),
    );
    const wrong = await rec.record(
      'wrong password',
      agent.post('/api/v1/auth/login').send({ username: USERNAME, password: WRONG_PASSWORD }),
    );
    expect(wrong.status).toBe(401);
    await rec.record(
      'unknown user',
      agent.post('/api/v1/auth/login').send({ username: 'stranger', password: STRANGER_PASSWORD }),
    );
    await rec.record('bad body', agent.post('/api/v1/auth/login').send({ username: USERNAME, password: 42 }));
    const loggedIn = await rec.record(
      'login',
      agent.post('/api/v1/auth/login').send({ username: USERNAME, password: PASSWORD }),
    );
    expect(loggedIn.status).toBe(200);
    const cookie = cookiePair(loggedIn.headers['set-cookie']);
    const session = cookie.split('=')[1] as string;

    const created = await rec.record(
      'token create',
      agent.post('/api/v1/auth/tokens').set('Cookie', cookie).send({ name: 'ha' }),
    );
    expect(created.status).toBe(201);
    const token = created.body.token as string;
    const second = await rec.record(
      'token create 2',
      agent.post('/api/v1/auth/tokens').set('Cookie', cookie).send({ name: 'ci' }),
    );
    const token2 = second.body.token as string;

    const bearer = `Bearer ${token}`;
    for (const [label, path] of [
      ['token list', '/api/v1/auth/tokens'],
      ['session', '/api/v1/auth/session'],
      ['status', '/api/v1/auth/status'],
      ['config', '/api/v1/config'],
      ['raw config', '/api/v1/config/raw'],
      ['health', '/api/v1/health'],
      ['info', '/api/v1/info'],
      ['metrics', '/metrics'],
      ['snapshot', '/api/v1/snapshot'],
    ] as const) {
      await rec.record(`${label} (cookie)`, agent.get(path).set('Cookie', cookie));
      await rec.record(`${label} (token)`, agent.get(path).set('Authorization', bearer));
      await rec.record(`${label} (anonymous)`, agent.get(path));
    }
    const config = await agent.get('/api/v1/config').set('Cookie', cookie).expect(200);
    expect(config.body.auth).toEqual({ mode: 'required' });
    const stream = await send(booted.port, {
      path: `/api/v1/stream?access_token=${token}`,
      headersOnly: true,
    });
    expect(stream.status).toBe(200);
    rec.exchanges.push({ label: 'stream', status: stream.status, headers: stream.headers, body: '' });

    await rec.record('wrong bearer', agent.get('/api/v1/snapshot').set('Authorization', `Bearer ${token}x`));
    await rec.record('revoke', agent.delete(`/api/v1/auth/tokens/${second.body.id}`).set('Cookie', cookie));
    await rec.record(
      'revoked bearer',
      agent.get('/api/v1/snapshot').set('Authorization', `Bearer ${token2}`),
    );
    await rec.record('logout', agent.post('/api/v1/auth/logout').set('Cookie', cookie));
    await rec.record('after logout', agent.get('/api/v1/auth/session').set('Cookie', cookie));

    const passwordHash = booted.service.store?.accounts.findByUsername(USERNAME)?.password_hash ?? '';
    expect(passwordHash).toMatch(/^scrypt\$/);
    const [, , , , salt, hash] = passwordHash.split('$');
    const secrets = secretsOf({
      password: PASSWORD,
      'wrong password': WRONG_PASSWORD,
      'weak password': WEAK_PASSWORD,
      'stranger password': STRANGER_PASSWORD,
      'setup session': setupSession,
      'setup session hash': hashSecret(setupSession),
      'login session': session,
      'login session hash': hashSecret(session),
      token,
      'token hash': hashSecret(token),
      'second token': token2,
      'second token hash': hashSecret(token2),
      'password hash': passwordHash,
      'password hash salt': salt ?? '',
      'password hash key': hash ?? '',
      'config api key': SECRET_API_KEY,
      'config password': SECRET_PASSWORD_MD5,
    });
    // The captured logger works: request lines and the auth module's lines are there.
    expect(lines.some((line) => line.includes('"request refused"'))).toBe(true);
    expect(lines.some((line) => line.includes('owner account created'))).toBe(true);
    expect(lines.some((line) => line.includes('API token created'))).toBe(true);

    const leaks: string[] = [];
    for (const exchange of rec.exchanges) {
      const headers = { ...exchange.headers };
      let body = exchange.body;
      // The two places a secret is meant to go, each checked to carry only its own secret.
      if (exchange.label === 'setup' || exchange.label === 'login') {
        const own = exchange.label === 'setup' ? setupSession : session;
        expect(String(headers['set-cookie'])).toContain(own);
        headers['set-cookie'] = String(headers['set-cookie']).replace(own, '');
      }
      if (exchange.label.startsWith('token create')) {
        const own = exchange.label === 'token create' ? token : token2;
        expect(body).toContain(own);
        body = body.replace(own, '');
      }
      const found = leaksIn(`${JSON.stringify(headers)}\n${body}`, secrets);
      if (found.length > 0) leaks.push(`${exchange.label} (${exchange.status}): ${found.join(', ')}`);
    }
    lines.forEach((line, index) => {
      const found = leaksIn(line, secrets);
      if (found.length > 0) leaks.push(`log line ${index}: ${found.join(', ')}: ${line}`);
    });
    expect(leaks).toEqual([]);
    expect(rec.exchanges.length).toBeGreaterThan(30);
  });

  // The request log masks the access_token query value (request-context.ts), wherever it is sent.
  it('keeps an ?access_token out of the request log', async () => {
    const { logger, lines } = capturingLogger();
    const booted = await services.boot({ serviceOptions: { logger } });
    const agent = request(booted.service.server);
    const setup = await agent
      .post('/api/v1/auth/setup')
      .send({ username: USERNAME, password: PASSWORD })
      .expect(201);
    const cookie = cookiePair(setup.headers['set-cookie']);
    const token = (
      await agent.post('/api/v1/auth/tokens').set('Cookie', cookie).send({ name: 'sse' }).expect(201)
    ).body.token as string;
    await agent.get(`/api/v1/snapshot?access_token=${token}`).expect(401);
    expect(lines.filter((line) => line.includes(token))).toEqual([]);
    expect(lines.some((line) => line.includes('access_token=***'))).toBe(true);
  });
});
