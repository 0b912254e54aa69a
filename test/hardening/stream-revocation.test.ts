import http from 'node:http';
import { configToml, json, seedOwner, send, type SeededOwner } from '../auth/auth-helpers';
import { serviceTracker, type BootedService } from '../helpers/service';

/**
 * Issue 16, item 3: an SSE stream opened with an API token kept flowing after
 * the token was revoked, and a session's stream after logout. Each stream now
 * ends as soon as the credential that opened it stops being valid, and the
 * reconnect is refused.
 */

const services = serviceTracker();

interface OpenStream {
  status: number;
  /** Resolves when the server ends the stream (or it closes). */
  ended: Promise<void>;
  received: () => string;
  close: () => void;
}

function openStream(port: number, path: string, headers: Record<string, string> = {}): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      const ended = new Promise<void>((done) => {
        res.on('end', done);
        res.on('close', done);
      });
      res.on('data', (chunk: string) => (text += chunk));
      resolve({ status: res.statusCode ?? 0, ended, received: () => text, close: () => req.destroy() });
    });
    req.on('error', reject);
  });
}

async function endsWithin<T>(promise: Promise<T>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const done = await Promise.race([promise.then(() => true as const), timeout]);
  clearTimeout(timer);
  return done;
}

async function bootRequired(
  extra: Record<string, unknown> = {},
): Promise<{ booted: BootedService; owner: SeededOwner }> {
  const booted = await services.boot({ configToml: configToml({ mode: 'required', ...extra }) });
  return { booted, owner: await seedOwner(booted.service) };
}

describe('a stream ends with its credential', () => {
  it.each(['/api/v1/stream', '/api/v1/irrigation/stream', '/api/v1/forecast/stream'])(
    '%s opened with ?access_token ends when the token is revoked',
    async (feed) => {
      const { booted, owner } = await bootRequired();
      const stream = await openStream(booted.port, `${feed}?access_token=${owner.token}`);
      expect(stream.status).toBe(200);
      const id = booted.service.store?.tokens.list()[0]?.id;
      const revoke = await send(booted.port, {
        method: 'DELETE',
        path: `/api/v1/auth/tokens/${id}`,
        headers: { Cookie: `service_session=${owner.session}` },
      });
      expect(revoke.status).toBe(200);
      expect(await endsWithin(stream.ended, 3000)).toBe(true);
      const again = await send(booted.port, { path: `${feed}?access_token=${owner.token}` });
      expect(again.status).toBe(401);
    },
  );

  it('a bearer-token stream ends on revocation; a stream on another token keeps flowing', async () => {
    const { booted, owner } = await bootRequired();
    const second = json(
      await send(booted.port, {
        method: 'POST',
        path: '/api/v1/auth/tokens',
        headers: { Cookie: `service_session=${owner.session}` },
        body: { name: 'dashboard' },
      }),
    ) as { token: string };
    const revoked = await openStream(booted.port, '/api/v1/stream', {
      Authorization: `Bearer ${owner.token}`,
    });
    const kept = await openStream(booted.port, '/api/v1/stream', { Authorization: `Bearer ${second.token}` });
    const first = booted.service.store?.tokens.list()[0]?.id;
    await send(booted.port, {
      method: 'DELETE',
      path: `/api/v1/auth/tokens/${first}`,
      headers: { Cookie: `service_session=${owner.session}` },
    });
    expect(await endsWithin(revoked.ended, 3000)).toBe(true);
    expect(await endsWithin(kept.ended, 300)).toBe(false);
    kept.close();
  });

  it('a session stream ends at logout', async () => {
    const { booted, owner } = await bootRequired();
    const cookie = { Cookie: `service_session=${owner.session}` };
    const stream = await openStream(booted.port, '/api/v1/irrigation/stream', cookie);
    expect(stream.status).toBe(200);
    expect(
      (await send(booted.port, { method: 'POST', path: '/api/v1/auth/logout', headers: cookie })).status,
    ).toBe(200);
    expect(await endsWithin(stream.ended, 3000)).toBe(true);
    expect((await send(booted.port, { path: '/api/v1/irrigation/stream', headers: cookie })).status).toBe(
      401,
    );
  });

  it('a stream that rests on a trusted network, not on the token, is not ended', async () => {
    const { booted, owner } = await bootRequired({ trusted_networks: ['127.0.0.0/8'] });
    const stream = await openStream(booted.port, `/api/v1/stream?access_token=${owner.token}`);
    const id = booted.service.store?.tokens.list()[0]?.id;
    await send(booted.port, {
      method: 'DELETE',
      path: `/api/v1/auth/tokens/${id}`,
      headers: { Cookie: `service_session=${owner.session}` },
    });
    expect(await endsWithin(stream.ended, 500)).toBe(false);
    stream.close();
  });
});
