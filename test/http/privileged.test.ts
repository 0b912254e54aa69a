import request from 'supertest';
import fs from 'node:fs';
import { buildBlockList, resolveClientAddress } from '../../server/src/auth/network';
import { decidePrivilege, type PrivilegeRequest } from '../../server/src/auth/privileged';
import { authSchema } from '../../server/src/config/schema';
import { minimalConfig, serviceTracker } from '../helpers/service';

type AuthInput = Parameters<typeof authSchema.parse>[0];

function decide(
  peer: string,
  options: { auth?: AuthInput; headers?: PrivilegeRequest['headers']; authenticated?: boolean } = {},
) {
  return decidePrivilege({
    peer,
    headers: options.headers ?? {},
    auth: authSchema.parse(options.auth ?? {}),
    authenticated: options.authenticated ?? false,
  });
}

describe('decidePrivilege with auth disabled', () => {
  it.each(['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1'])('trusts loopback %s', (peer) => {
    expect(decide(peer)).toEqual({ allowed: true, via: 'local_network' });
  });

  it.each(['192.168.1.20', '10.4.5.6', '172.20.0.3', '::ffff:192.168.1.20', 'fd00::1', 'fd12:3456::9'])(
    'trusts the private or ULA address %s',
    (peer) => {
      expect(decide(peer)).toEqual({ allowed: true, via: 'local_network' });
    },
  );

  it.each(['8.8.8.8', '172.32.0.1', '2001:4860:4860::8888', '::ffff:8.8.8.8'])(
    'refuses the public address %s with 403',
    (peer) => {
      expect(decide(peer)).toMatchObject({ allowed: false, status: 403, code: 'privileged_public_client' });
    },
  );

  it('refuses a private peer that relays a forwarding header while trusted_proxies is empty', () => {
    for (const headers of [
      { 'x-forwarded-for': '192.168.1.20' },
      { forwarded: 'for=192.168.1.20' },
      { 'x-real-ip': '10.0.0.9' },
    ]) {
      expect(decide('192.168.1.2', { headers })).toMatchObject({ allowed: false, status: 401 });
    }
  });

  it('still allows a loopback peer that sends a forwarding header', () => {
    expect(decide('127.0.0.1', { headers: { 'x-forwarded-for': '8.8.8.8' } })).toEqual({
      allowed: true,
      via: 'local_network',
    });
  });

  it('lets an explicit trusted_networks match pass, even behind an undeclared proxy', () => {
    expect(decide('203.0.113.7', { auth: { trusted_networks: ['203.0.113.0/24'] } })).toEqual({
      allowed: true,
      via: 'trusted_network',
    });
    expect(
      decide('192.168.1.2', {
        auth: { trusted_networks: ['192.168.1.0/24'] },
        headers: { 'x-forwarded-for': '8.8.8.8' },
      }),
    ).toEqual({ allowed: true, via: 'trusted_network' });
  });

  it('judges the forwarded client, not the proxy, when the proxy is trusted', () => {
    const auth = { trusted_proxies: ['10.0.0.2/32'] };
    expect(decide('10.0.0.2', { auth, headers: { 'x-forwarded-for': '8.8.8.8' } })).toMatchObject({
      allowed: false,
      status: 403,
    });
    expect(decide('10.0.0.2', { auth, headers: { 'x-forwarded-for': '192.168.1.30' } })).toEqual({
      allowed: true,
      via: 'local_network',
    });
  });

  it('does not mistake an unparseable forwarded hop for the private proxy', () => {
    const auth = { trusted_proxies: ['10.0.0.2/32'] };
    for (const xff of ['203.0.113.7:4711', 'unknown', '[2001:db8::1]:443']) {
      expect(decide('10.0.0.2', { auth, headers: { 'x-forwarded-for': xff } }).allowed).toBe(false);
    }
  });
});

describe('decidePrivilege with proxy identity', () => {
  const proxyAuth = {
    trusted_proxies: ['10.0.0.2/32'],
    proxy_auth_header: 'X-Remote-User',
  };
  // The client behind the proxy is on the internet: only the identity header can let it in.
  const fromInternet = { 'x-forwarded-for': '8.8.8.8' };

  it('accepts a non-empty identity header from a trusted proxy peer', () => {
    expect(
      decide('10.0.0.2', { auth: proxyAuth, headers: { ...fromInternet, 'x-remote-user': 'alice' } }),
    ).toEqual({ allowed: true, via: 'proxy_identity' });
  });

  it('accepts proxy identity in required mode too', () => {
    expect(
      decide('10.0.0.2', {
        auth: { ...proxyAuth, mode: 'required' },
        headers: { ...fromInternet, 'x-remote-user': 'alice' },
      }),
    ).toEqual({ allowed: true, via: 'proxy_identity' });
  });

  it('ignores the identity header from a peer that is not a trusted proxy', () => {
    const decision = decide('8.8.4.4', { auth: proxyAuth, headers: { 'x-remote-user': 'alice' } });
    expect(decision).toMatchObject({ allowed: false, status: 403 });
    // The peer check uses the raw socket address, not the forwarded one.
    expect(
      decide('8.8.4.4', {
        auth: proxyAuth,
        headers: { 'x-forwarded-for': '10.0.0.2', 'x-remote-user': 'alice' },
      }).allowed,
    ).toBe(false);
  });

  it('ignores an empty or blank identity header', () => {
    for (const value of ['', '   ']) {
      expect(
        decide('10.0.0.2', { auth: proxyAuth, headers: { ...fromInternet, 'x-remote-user': value } }),
      ).toMatchObject({ allowed: false, status: 403 });
    }
  });

  it('refuses an identity outside proxy_auth_allow and matches the list case-insensitively', () => {
    const auth = { ...proxyAuth, proxy_auth_allow: ['Alice', 'bob'] };
    expect(
      decide('10.0.0.2', { auth, headers: { ...fromInternet, 'x-remote-user': 'mallory' } }),
    ).toMatchObject({ allowed: false, status: 403 });
    expect(
      decide('10.0.0.2', {
        auth: { ...auth, mode: 'required' },
        headers: { ...fromInternet, 'x-remote-user': 'mallory' },
      }),
    ).toMatchObject({ allowed: false, status: 401 });
    expect(decide('10.0.0.2', { auth, headers: { ...fromInternet, 'x-remote-user': 'ALICE' } })).toEqual({
      allowed: true,
      via: 'proxy_identity',
    });
    expect(decide('10.0.0.2', { auth, headers: { ...fromInternet, 'x-remote-user': 'Bob' } })).toEqual({
      allowed: true,
      via: 'proxy_identity',
    });
  });
});

describe('decidePrivilege with auth required', () => {
  it('answers 401 without credentials, even from loopback', () => {
    for (const peer of ['127.0.0.1', '192.168.1.20', '8.8.8.8']) {
      expect(decide(peer, { auth: { mode: 'required' } })).toMatchObject({
        allowed: false,
        status: 401,
        code: 'unauthorized',
      });
    }
  });

  it('lets a valid credential or a trusted network through', () => {
    expect(decide('8.8.8.8', { auth: { mode: 'required' }, authenticated: true })).toEqual({
      allowed: true,
      via: 'credential',
    });
    expect(
      decide('192.168.1.20', { auth: { mode: 'required', trusted_networks: ['192.168.1.0/24'] } }),
    ).toEqual({ allowed: true, via: 'trusted_network' });
  });
});

describe('resolveClientAddress', () => {
  const proxies = buildBlockList(['10.0.0.0/8', '172.16.0.5']);

  it('uses the peer when it is not a trusted proxy', () => {
    expect(resolveClientAddress('192.168.1.9', '8.8.8.8', proxies)).toBe('192.168.1.9');
    expect(resolveClientAddress('::ffff:192.168.1.9', undefined, proxies)).toBe('192.168.1.9');
  });

  it('walks X-Forwarded-For from the right, skipping trusted proxies', () => {
    expect(resolveClientAddress('10.0.0.2', '8.8.8.8', proxies)).toBe('8.8.8.8');
    expect(resolveClientAddress('10.0.0.2', '8.8.8.8, 172.16.0.5, 10.1.1.1', proxies)).toBe('8.8.8.8');
    // A spoofed left-most entry is not believed: the first untrusted hop from the right wins.
    expect(resolveClientAddress('10.0.0.2', '127.0.0.1, 203.0.113.4, 10.9.9.9', proxies)).toBe('203.0.113.4');
    expect(resolveClientAddress('::ffff:10.0.0.2', '::ffff:203.0.113.4', proxies)).toBe('203.0.113.4');
  });

  it('falls back to the left-most hop when every hop is a trusted proxy', () => {
    expect(resolveClientAddress('10.0.0.2', '10.0.0.7, 10.0.0.8', proxies)).toBe('10.0.0.7');
  });

  it('treats an unparseable right-most untrusted hop as the client, never as the proxy', () => {
    expect(resolveClientAddress('10.0.0.2', '203.0.113.7:4711', proxies)).toBe('203.0.113.7:4711');
    expect(resolveClientAddress('10.0.0.2', '8.8.8.8, unknown, 10.0.0.3', proxies)).toBe('unknown');
  });

  it('keeps the peer when the header is absent or empty', () => {
    expect(resolveClientAddress('10.0.0.2', undefined, proxies)).toBe('10.0.0.2');
    expect(resolveClientAddress('10.0.0.2', '', proxies)).toBe('10.0.0.2');
  });
});

const services = serviceTracker();
const REQUIRED_AUTH_TOML =
  'schema_version = 2\n[deployment.location]\nlat = 40.7\nlon = -74.0\n[auth]\nmode = "required"\n';

describe('privileged routes over HTTP', () => {
  it('lets a loopback client write the config while auth is disabled', async () => {
    const { service, configPath } = await services.boot();
    await request(service.server).put('/api/v1/config').send(minimalConfig()).expect(200);
    expect(fs.existsSync(configPath)).toBe(true);
    await request(service.server).get('/api/v1/config/raw').expect(200);
  });

  it('keeps a loopback peer trusted when it sends a forwarding header', async () => {
    const { service } = await services.boot();
    await request(service.server)
      .put('/api/v1/config')
      .set('X-Forwarded-For', '8.8.8.8')
      .send(minimalConfig())
      .expect(200);
  });

  it('answers 401 {error: unauthorized} with a Bearer challenge when auth is required', async () => {
    const { service, configPath } = await services.boot({ configToml: REQUIRED_AUTH_TOML });
    const before = fs.readFileSync(configPath);
    for (const [method, url] of [
      ['put', '/api/v1/config'],
      ['put', '/api/config'],
      ['get', '/api/v1/config/raw'],
      ['put', '/api/v1/config/raw'],
      ['post', '/api/v1/config/rollback'],
    ] as const) {
      const res = await request(service.server)[method](url).send(minimalConfig()).expect(401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="?[^"\s]+"?$/);
      expect(res.body.error).toBe('unauthorized');
      expect(res.body.code).toBe('unauthorized');
      expect(res.body.request.method).toBe(method.toUpperCase());
    }
    expect(fs.readFileSync(configPath).equals(before)).toBe(true);
  });
});
