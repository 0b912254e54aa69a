import fs from 'node:fs';
import { decideSetupAccess } from '../../server/src/auth/privileged';
import { configToml, json, send, type AuthToml } from '../auth/auth-helpers';
import { serviceTracker } from '../helpers/service';

/**
 * Issue 16, item 2: with auth disabled, POST /auth/setup from an internet
 * address succeeded and flipped the install to `required`, locking the
 * household out. Setup is reachable only the way the privileged surface is
 * (spec 5.8): loopback, private or ULA clients, trusted networks, or the
 * trusted proxy's identity; anyone else gets 403 `setup_forbidden`.
 */

const services = serviceTracker();
const OWNER = { username: 'owner', password: 'Sprinkle-the-lawn-77' };
/** The loopback peer is a trusted proxy: X-Forwarded-For then names the client. */
const PROXIED: Omit<AuthToml, 'mode'> = {
  trusted_proxies: ['127.0.0.1/32'],
  trusted_networks: ['203.0.113.0/24'],
  proxy_auth_header: 'X-Remote-User',
};

describe('decideSetupAccess (spec 5.8 network rules, in both modes)', () => {
  const auth = (mode: 'disabled' | 'required', extra: Partial<AuthToml> = {}) => ({
    mode,
    trusted_networks: [],
    trusted_proxies: [],
    proxy_auth_header: null,
    proxy_auth_allow: [],
    ...extra,
  });
  it.each(['disabled', 'required'] as const)('%s: who may create the owner', (mode) => {
    const decide = (peer: string, headers: Record<string, string> = {}, extra: Partial<AuthToml> = {}) =>
      decideSetupAccess({ peer, headers, auth: auth(mode, extra) });
    expect(decide('127.0.0.1')).toMatchObject({ allowed: true });
    expect(decide('192.168.1.20')).toMatchObject({ allowed: true });
    expect(decide('fd12::5')).toMatchObject({ allowed: true });
    expect(decide('8.8.8.8')).toMatchObject({ allowed: false, status: 403, code: 'setup_forbidden' });
    expect(decide('8.8.8.8', {}, { trusted_networks: ['8.8.8.0/24'] })).toMatchObject({ allowed: true });
    // A private peer relaying through a proxy nobody declared: refused, loopback aside.
    expect(decide('192.168.1.2', { 'x-forwarded-for': '8.8.8.8' })).toMatchObject({
      allowed: false,
      code: 'setup_forbidden',
    });
    expect(decide('127.0.0.1', { 'x-forwarded-for': '8.8.8.8' })).toMatchObject({ allowed: true });
    const proxy = { trusted_proxies: ['10.0.0.2/32'], proxy_auth_header: 'X-Remote-User' };
    expect(decide('10.0.0.2', { 'x-forwarded-for': '8.8.8.8' }, proxy)).toMatchObject({ allowed: false });
    expect(decide('10.0.0.2', { 'x-forwarded-for': '8.8.8.8', 'x-remote-user': 'ha' }, proxy)).toMatchObject({
      allowed: true,
      via: 'proxy_identity',
    });
  });
});

describe.each(['disabled', 'required'] as const)('POST /auth/setup, auth %s, no account yet', (mode) => {
  const setup = (port: number, headers: Record<string, string>) =>
    send(port, { method: 'POST', path: '/api/v1/auth/setup', headers, body: OWNER });

  it('refuses an internet client with 403 setup_forbidden and changes nothing', async () => {
    const booted = await services.boot({ configToml: configToml({ mode, ...PROXIED }) });
    const before = fs.readFileSync(booted.configPath, 'utf8');
    const res = await setup(booted.port, { 'X-Forwarded-For': '8.8.8.8' });
    expect(res.status).toBe(403);
    expect(json(res)?.code).toBe('setup_forbidden');
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(booted.service.store?.accounts.count()).toBe(0);
    expect(fs.readFileSync(booted.configPath, 'utf8')).toBe(before);
    const status = json(await send(booted.port, { path: '/api/v1/auth/status' }));
    expect(status).toMatchObject({ mode, setup_complete: false });
  });

  it('lets a LAN client create the owner', async () => {
    const booted = await services.boot({ configToml: configToml({ mode, ...PROXIED }) });
    const res = await setup(booted.port, { 'X-Forwarded-For': '192.168.1.20' });
    expect(res.status).toBe(201);
    expect(json(res)).toMatchObject({ ok: true, username: 'owner', mode: 'required' });
  });

  it('lets a trusted network or the proxy identity create the owner', async () => {
    const cases: Record<string, string>[] = [
      { 'X-Forwarded-For': '203.0.113.9' },
      { 'X-Forwarded-For': '8.8.8.8', 'X-Remote-User': 'ha-user' },
    ];
    for (const headers of cases) {
      const booted = await services.boot({ configToml: configToml({ mode, ...PROXIED }) });
      expect((await setup(booted.port, headers)).status).toBe(201);
    }
  });
});
