import { normalizeRequestTarget } from '../../server/src/http/request-target';
import { configToml, json, seedOwner, send } from '../auth/auth-helpers';
import { serviceTracker } from '../helpers/service';

/**
 * Issue 16, items 7 and 10: the auth gate and the router read one path (a raw
 * `#` in the request target is cut before both), and the login redirect only
 * takes a path prefix from a trusted proxy's X-Ingress-Path.
 */

const services = serviceTracker();
const HTML = { Accept: 'text/html,application/xhtml+xml' };

describe('one request path for the gate and the router (item 7)', () => {
  it('cuts a fragment from the request target and nothing else', () => {
    expect(normalizeRequestTarget('/api/v1/config/raw#/stream?access_token=T')).toBe('/api/v1/config/raw');
    expect(normalizeRequestTarget('/settings#.js')).toBe('/settings');
    expect(normalizeRequestTarget('/api/v1/stream?access_token=T')).toBe('/api/v1/stream?access_token=T');
    expect(normalizeRequestTarget('/')).toBe('/');
  });

  it('a query token after a fragment is not a stream credential for the raw config', async () => {
    const booted = await services.boot({ configToml: configToml({ mode: 'required' }) });
    const owner = await seedOwner(booted.service);
    const res = await send(booted.port, {
      path: `/api/v1/config/raw#/stream?access_token=${owner.token}`,
    });
    expect(res.status).toBe(401);
    expect(json(res)?.code).toBe('unauthorized');
    // The token itself is good where the spec honours it.
    const stream = await send(booted.port, {
      path: `/api/v1/stream?access_token=${owner.token}`,
      headersOnly: true,
    });
    expect(stream.status).toBe(200);
  });

  it('a page with a fragment that looks like a static file still asks for a login', async () => {
    const booted = await services.boot({ configToml: configToml({ mode: 'required' }) });
    await seedOwner(booted.service);
    for (const path of ['/settings#.js', '/zones#x.css', '/history#/pkg/app.js']) {
      const res = await send(booted.port, { path, headers: HTML });
      expect([path, res.status, res.headers.location]).toEqual([path, 302, '/login']);
    }
  });
});

describe('login redirect under an ingress prefix (item 10)', () => {
  const proxied = configToml({ mode: 'required', trusted_proxies: ['127.0.0.1/32'] });

  it.each([
    ['/api/hassio_ingress/Abc_123-x.y', '/api/hassio_ingress/Abc_123-x.y/login'],
    ['/api/hassio_ingress/abc/', '/api/hassio_ingress/abc/login'],
    ['//evil.example', '/login'],
    ['//evil.example/', '/login'],
    ['/\\evil.example', '/login'],
    ['/a//evil.example', '/login'],
    ['/../evil', '/login'],
    ['/./x', '/login'],
    ['https://evil.example', '/login'],
    ['/x?y', '/login'],
    ['', '/login'],
  ])('X-Ingress-Path %p redirects to %p', async (prefix, location) => {
    const booted = await services.boot({ configToml: proxied });
    await seedOwner(booted.service);
    const res = await send(booted.port, { path: '/zones', headers: { ...HTML, 'X-Ingress-Path': prefix } });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(location);
  });

  it('ignores X-Ingress-Path from a peer that is not a trusted proxy', async () => {
    const booted = await services.boot({ configToml: configToml({ mode: 'required' }) });
    await seedOwner(booted.service);
    const res = await send(booted.port, {
      path: '/zones',
      headers: { ...HTML, 'X-Ingress-Path': '/api/hassio_ingress/abc' },
    });
    expect(res.headers.location).toBe('/login');
  });
});
