import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { CONTENT_SECURITY_POLICY } from '../../server/src/http/security-headers';
import { relativeBase } from '../../server/src/web/app-shell';
import { configToml, cookiePair, OWNER, OWNER_PASSWORD } from '../auth/auth-helpers';
import { serviceTracker } from '../helpers/service';

/**
 * The web app's pages and /pkg/ bundle (routes/pages.ts) over the real
 * service, from a fake build in a temp RAINCHECK_WEB_DIR: the shell at every
 * page path with its `<base href>`, the asset caching and encodings, and the
 * auth gate in front of them (spec 5.4, 5.5).
 */

const { boot } = serviceTracker();

const SHELL = [
  '<!doctype html><html><head><meta charset="utf-8" />',
  '<base href="./" />',
  '<script type="module" crossorigin src="./pkg/index-AbC123.js"></script>',
  '<link rel="stylesheet" crossorigin href="./pkg/index-Def456.css">',
  '</head><body><div id="app"></div></body></html>',
].join('\n');
const SCRIPT = `export const greeting = ${JSON.stringify('hello '.repeat(200))};\n`;
const STYLE = 'body { margin: 0; }\n';
const ICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"></svg>';

interface RawReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** One GET on its own connection, the body as the bytes sent (no decompression). */
function get(port: number, urlPath: string, headers: Record<string, string> = {}): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: urlPath, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

function baseOf(html: string): string | null {
  return /<base href="([^"]*)"/.exec(html)?.[1] ?? null;
}

let webDir = '';
const previous = process.env.RAINCHECK_WEB_DIR;

beforeEach(() => {
  webDir = fs.mkdtempSync(path.join(os.tmpdir(), 'raincheck-web-'));
  fs.mkdirSync(path.join(webDir, 'pkg'));
  fs.writeFileSync(path.join(webDir, 'index.html'), SHELL);
  fs.writeFileSync(path.join(webDir, 'pkg', 'index-AbC123.js'), SCRIPT);
  fs.writeFileSync(path.join(webDir, 'pkg', 'index-AbC123.js.gz'), gzipSync(SCRIPT));
  // No .gz beside the stylesheet: a gzip-accepting client gets it plain.
  fs.writeFileSync(path.join(webDir, 'pkg', 'index-Def456.css'), STYLE);
  fs.writeFileSync(path.join(webDir, 'pkg', 'mark-9z.svg'), ICON);
  // Files a name check must keep out of reach.
  fs.writeFileSync(path.join(webDir, 'pkg', 'notes.txt'), 'private');
  fs.writeFileSync(path.join(webDir, 'secret.js'), 'outside pkg');
  process.env.RAINCHECK_WEB_DIR = webDir;
});

afterEach(() => {
  if (previous === undefined) delete process.env.RAINCHECK_WEB_DIR;
  else process.env.RAINCHECK_WEB_DIR = previous;
  fs.rmSync(webDir, { recursive: true, force: true });
});

describe('relativeBase', () => {
  it.each([
    ['/', './'],
    ['/login', './'],
    ['/?next=/zones/a/b', './'],
    ['/zones', './'],
    ['/zones/', '../'],
    ['/zones/front_lawn', '../'],
    ['/zones/front_lawn?tab=history&from=/a/b/c', '../'],
    ['/zones/front_lawn#photos', '../'],
    ['/zones/a%2Fb', '../'],
    ['/setup/location', '../'],
    ['/settings/account/', '../../'],
  ])('%s -> %s', (page, base) => {
    expect(relativeBase(page)).toBe(base);
  });
});

describe('app pages', () => {
  it.each([
    ['/', './'],
    ['/login', './'],
    ['/setup', './'],
    ['/setup/location', '../'],
    ['/zones', './'],
    ['/zones/front_lawn', '../'],
    ['/zones/front_lawn?tab=history&back=/zones', '../'],
    ['/zones/', '../'],
    ['/schedules', './'],
    ['/history', './'],
    ['/history?days=30', './'],
    ['/tuning', './'],
    ['/devices', './'],
    ['/settings', './'],
    ['/settings/account', '../'],
  ])('GET %s answers the shell with <base href="%s">', async (page, base) => {
    const { port } = await boot();
    const res = await get(port, page, { accept: 'text/html' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('same-origin');
    const html = res.body.toString('utf8');
    expect(baseOf(html)).toBe(base);
    // Only the base changes: the rest is the built shell.
    expect(html.replace(/<base href="[^"]*" \/>/, '<base href="./" />')).toBe(SHELL);
  });

  it('adds a <base href> to a shell that lacks one', async () => {
    fs.writeFileSync(path.join(webDir, 'index.html'), '<html><head><title>x</title></head></html>');
    const { port } = await boot();
    const res = await get(port, '/zones/front_lawn');
    expect(res.status).toBe(200);
    expect(res.body.toString('utf8')).toBe('<html><head><base href="../" /><title>x</title></head></html>');
  });

  it('serves a rebuilt shell without a restart', async () => {
    const { port } = await boot();
    expect(baseOf((await get(port, '/history')).body.toString('utf8'))).toBe('./');
    const rebuilt = SHELL.replace('index-AbC123.js', 'index-New789.js');
    const file = path.join(webDir, 'index.html');
    fs.writeFileSync(file, rebuilt);
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(file, later, later);
    const res = await get(port, '/history');
    expect(res.body.toString('utf8')).toBe(rebuilt);
  });

  it('answers 503 web_app_not_built when the build directory has no app', async () => {
    fs.rmSync(path.join(webDir, 'index.html'));
    const { port } = await boot();
    for (const page of ['/', '/zones/front_lawn']) {
      const res = await get(port, page);
      expect(res.status).toBe(503);
      const body = JSON.parse(res.body.toString('utf8'));
      expect(body).toMatchObject({ code: 'web_app_not_built', request: { method: 'GET' } });
      expect(body.error).toMatch(/npm run build/);
    }
    expect((await get(port, '/pkg/index-AbC123.js')).status).toBe(404);
  });

  it('leaves paths that are not pages to the 404 handler', async () => {
    const { port } = await boot();
    for (const page of ['/zones/front_lawn/extra', '/nope', '/settings/a/b']) {
      const res = await get(port, page, { accept: 'text/html' });
      expect(res.status).toBe(404);
      expect(JSON.parse(res.body.toString('utf8')).code).toBe('not_found');
    }
  });
});

describe('/pkg/ assets', () => {
  it('serves hashed assets with their type and immutable caching', async () => {
    const { port } = await boot();
    const cases = [
      ['index-AbC123.js', 'application/javascript; charset=utf-8', SCRIPT],
      ['index-Def456.css', 'text/css; charset=utf-8', STYLE],
      ['mark-9z.svg', 'image/svg+xml', ICON],
    ] as const;
    for (const [name, type, content] of cases) {
      const res = await get(port, `/pkg/${name}`, { 'accept-encoding': 'identity' });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe(type);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers.vary).toBe('Accept-Encoding');
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.body.toString('utf8')).toBe(content);
    }
  });

  it('sends the precompressed copy to clients that accept gzip, plain bytes otherwise', async () => {
    const { port } = await boot();
    const packed = await get(port, '/pkg/index-AbC123.js', { 'accept-encoding': 'br, gzip;q=0.8' });
    expect(packed.status).toBe(200);
    expect(packed.headers['content-encoding']).toBe('gzip');
    expect(packed.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(packed.body).toEqual(fs.readFileSync(path.join(webDir, 'pkg', 'index-AbC123.js.gz')));

    for (const accept of [undefined, 'identity', 'br', 'gzip;q=0', 'x-gzip-not;q=1']) {
      const plain = await get(port, '/pkg/index-AbC123.js', accept ? { 'accept-encoding': accept } : {});
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.body.toString('utf8')).toBe(SCRIPT);
    }
    // Without a .gz beside it, gzip-accepting clients get the plain file.
    const css = await get(port, '/pkg/index-Def456.css', { 'accept-encoding': 'gzip' });
    expect(css.status).toBe(200);
    expect(css.headers['content-encoding']).toBeUndefined();
    expect(css.body.toString('utf8')).toBe(STYLE);
  });

  it('refuses traversal and names the bundler never writes with 404', async () => {
    const { port } = await boot();
    for (const name of [
      '..%2Fsecret.js',
      '..%2F..%2Fsecret.js',
      '%2E%2E%2Fsecret.js',
      '..%5Csecret.js',
      '.hidden.js',
      'notes.txt',
      'index-AbC123.js.gz',
      'index.html',
      'index-AbC123.JS',
    ]) {
      const res = await get(port, `/pkg/${name}`, { 'accept-encoding': 'gzip' });
      expect(res.status).toBe(404);
      expect(res.body.toString('utf8')).not.toContain('outside pkg');
      expect(res.body.toString('utf8')).not.toContain('private');
    }
    const dotted = await get(port, '/pkg/../secret.js');
    expect(dotted.status).toBe(404);
  });

  it('answers an unknown asset with the JSON error body and no long-lived caching', async () => {
    const { port } = await boot();
    for (const accept of ['gzip', 'identity']) {
      const res = await get(port, '/pkg/index-Gone99.js', { 'accept-encoding': accept });
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['cache-control'] ?? '').not.toContain('immutable');
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(JSON.parse(res.body.toString('utf8'))).toMatchObject({
        code: 'not_found',
        error: 'no asset index-Gone99.js',
        request: { method: 'GET', route: '/pkg/:file' },
      });
    }
  });
});

describe('pages behind auth', () => {
  const html = { accept: 'text/html,application/xhtml+xml' };

  it('redirects anonymous HTML GETs of app pages to /login; /login and /pkg/ stay public', async () => {
    const { port } = await boot({ configToml: configToml({ mode: 'required' }) });
    const setup = await setUpOwner(port);
    expect(setup.status).toBe(201);

    for (const page of ['/', '/zones/x', '/zones/x?tab=1', '/history', '/settings/account', '/setup']) {
      const res = await get(port, page, html);
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe('/login');
    }
    // The page asked for rides beside the redirect (the Location stays exactly /login, spec 5.4).
    const remembered = async (page: string) => (await get(port, page, html)).headers['set-cookie'] ?? [];
    expect(await remembered('/zones/front_lawn')).toEqual([
      'raincheck_return_to=zones%2Ffront_lawn; Max-Age=600; Path=/; SameSite=Lax',
    ]);
    expect(await remembered('/settings/account')).toEqual([
      'raincheck_return_to=settings%2Faccount; Max-Age=600; Path=/; SameSite=Lax',
    ]);
    for (const page of ['/', '/setup', '/site/photos/a.jpg']) expect(await remembered(page)).toEqual([]);
    const login = await get(port, '/login', html);
    expect(login.status).toBe(200);
    expect(baseOf(login.body.toString('utf8'))).toBe('./');
    const asset = await get(port, '/pkg/index-AbC123.js', { 'accept-encoding': 'identity' });
    expect(asset.status).toBe(200);
    expect(asset.body.toString('utf8')).toBe(SCRIPT);

    // The owner's session reaches the pages.
    const owner = await get(port, '/zones/x', { ...html, cookie: cookiePair(setup.headers['set-cookie']) });
    expect(owner.status).toBe(200);
    expect(baseOf(owner.body.toString('utf8'))).toBe('../');
  });

  it('keeps /setup public only until the owner account exists', async () => {
    const { port } = await boot({ configToml: configToml({ mode: 'required' }) });
    for (const page of ['/setup', '/setup/account']) {
      const res = await get(port, page, html);
      expect(res.status).toBe(200);
      expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    }
    expect((await get(port, '/', html)).status).toBe(302);

    expect((await setUpOwner(port)).status).toBe(201);
    for (const page of ['/setup', '/setup/account']) {
      const res = await get(port, page, html);
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe('/login');
    }
  });

  it('answers a non-HTML anonymous GET of a page with 401', async () => {
    const { port } = await boot({ configToml: configToml({ mode: 'required' }) });
    expect((await setUpOwner(port)).status).toBe(201);
    const res = await get(port, '/zones/x', { accept: 'application/json' });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer realm=/);
  });
});

/** POST /api/v1/auth/setup: the owner account, which also requires auth from then on. */
function setUpOwner(port: number): Promise<{ status: number; headers: http.IncomingHttpHeaders }> {
  const payload = JSON.stringify({ username: OWNER, password: OWNER_PASSWORD });
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/api/v1/auth/setup',
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
