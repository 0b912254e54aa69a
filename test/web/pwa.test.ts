import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import request from 'supertest';
import { SERVICE_VERSION } from '../../server/src/core/version';
import { serviceWorkerSource } from '../../server/src/web/service-worker';
import { configToml, seedOwner } from '../auth/auth-helpers';
import { serviceTracker } from '../helpers/service';

/** GET /manifest.webmanifest, /sw.js and the icons (spec 4.1, public per 5.5). */

const { boot } = serviceTracker();

function pngSize(bytes: Buffer): string {
  expect(bytes.subarray(1, 4).toString('ascii')).toBe('PNG');
  return `${bytes.readUInt32BE(16)}x${bytes.readUInt32BE(20)}`;
}

function binary(res: request.Response, done: (err: Error | null, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => done(null, Buffer.concat(chunks)));
}

describe('PWA files', () => {
  it('serves the manifest and its icons publicly on an auth-required instance', async () => {
    const { port, service } = await boot({ configToml: configToml({ mode: 'required' }) });
    await seedOwner(service);
    const base = `http://127.0.0.1:${port}`;
    const res = await request(base).get('/manifest.webmanifest');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/manifest\+json/);
    const manifest = JSON.parse(res.text) as Record<string, unknown>;
    expect(manifest).toMatchObject({
      name: 'Raincheck',
      short_name: 'Raincheck',
      start_url: '.',
      scope: '.',
      display: 'standalone',
    });
    expect(manifest.theme_color).toMatch(/^#[0-9a-f]{6}$/i);
    expect(manifest.background_color).toMatch(/^#[0-9a-f]{6}$/i);
    const icons = manifest.icons as { src: string; sizes: string; type: string }[];
    expect(icons.map((i) => i.sizes)).toEqual(expect.arrayContaining(['192x192', '512x512']));
    for (const icon of icons) {
      // Relative, single segment: public and valid under an ingress prefix.
      expect(icon.src).toMatch(/^[a-z0-9-]+\.png$/);
      const served = await request(base).get(`/${icon.src}`).buffer(true).parse(binary);
      expect(served.status).toBe(200);
      expect(served.headers['content-type']).toBe(icon.type);
      expect(pngSize(served.body as Buffer)).toBe(icon.sizes);
    }
    // /icon.png is the repository's icon.png.
    const root = await request(base).get('/icon.png').buffer(true).parse(binary);
    expect(root.body).toEqual(fs.readFileSync(path.join(__dirname, '../../icon.png')));
  });

  it('serves /sw.js publicly as JavaScript with a versioned cache', async () => {
    const { port, service } = await boot({ configToml: configToml({ mode: 'required' }) });
    await seedOwner(service);
    const res = await request(`http://127.0.0.1:${port}`).get('/sw.js');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/javascript/);
    expect(res.text).toContain(`const VERSION = ${JSON.stringify(SERVICE_VERSION)}`);
    expect(res.text).toContain('const SNAPSHOT = "api/v1/irrigation/snapshot"');
    // No absolute URL: the worker works under an ingress prefix.
    expect(res.text).not.toMatch(/['"]\/(?:api|site|icon)/);
    expect(() => new vm.Script(res.text)).not.toThrow();
  });
});

/** Runs the worker source against fakes of the worker globals. */
class Harness {
  readonly stores = new Map<string, Map<string, Response>>();
  readonly handlers = new Map<string, (event: unknown) => void>();
  readonly fetched: string[] = [];
  online = true;
  /** Answers by URL path while online. */
  answers: Record<string, () => Response> = {};
  claimed = false;
  /** Notifications shown (title and options), and what a click did with windows. */
  readonly shown: { title: string; options: Record<string, unknown> }[] = [];
  windows: { url: string; focused: boolean; navigate?: (url: string) => Promise<unknown> }[] = [];
  readonly opened: string[] = [];

  constructor(
    source: string,
    readonly scope = 'https://ha.local/api/hassio_ingress/tok/',
  ) {
    const caches = {
      open: async (name: string) => {
        const store = this.stores.get(name) ?? new Map<string, Response>();
        this.stores.set(name, store);
        return {
          put: async (key: string | { url: string }, response: Response) => {
            store.set(typeof key === 'string' ? key : key.url, response);
          },
          match: async (key: string | { url: string }) =>
            store.get(typeof key === 'string' ? key : key.url)?.clone(),
        };
      },
      keys: async () => [...this.stores.keys()],
      delete: async (name: string) => this.stores.delete(name),
    };
    const fetchFake = async (input: string | { url: string }) => {
      const url = typeof input === 'string' ? input : input.url;
      this.fetched.push(url);
      if (!this.online) throw new TypeError('Failed to fetch');
      const answer = this.answers[new URL(url).pathname];
      return answer ? answer() : new Response('missing', { status: 404 });
    };
    const self = {
      registration: {
        scope,
        showNotification: async (title: string, options: Record<string, unknown>) =>
          void this.shown.push({ title, options }),
      },
      addEventListener: (type: string, handler: (event: unknown) => void) => this.handlers.set(type, handler),
      skipWaiting: async () => undefined,
      clients: {
        claim: async () => void (this.claimed = true),
        matchAll: async () =>
          this.windows.map((w) => ({
            url: w.url,
            focus: async () => void (w.focused = true),
            ...(w.navigate ? { navigate: w.navigate } : {}),
          })),
        openWindow: async (url: string) => void this.opened.push(url),
      },
    };
    vm.runInNewContext(source, { self, caches, fetch: fetchFake, Request, Response, Headers, URL, Promise });
  }

  async lifecycle(type: 'install' | 'activate'): Promise<void> {
    let pending: Promise<unknown> = Promise.resolve();
    this.handlers.get(type)?.({ waitUntil: (p: Promise<unknown>) => (pending = p) });
    await pending;
  }

  /** Dispatches a fetch event: the response the worker chose, or null when it left the request alone. */
  async fetch(relative: string, mode = 'cors', method = 'GET'): Promise<Response | null> {
    let responded: Promise<Response> | null = null;
    const request = { url: new URL(relative, this.scope).href, mode, method };
    this.handlers.get('fetch')?.({ request, respondWith: (p: Promise<Response>) => (responded = p) });
    return responded;
  }

  /** Dispatches a push event carrying `payload` (JSON unless a string). */
  async push(payload: unknown): Promise<void> {
    let pending: Promise<unknown> = Promise.resolve();
    const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
    const data = { json: () => JSON.parse(text) as unknown, text: () => text };
    this.handlers.get('push')?.({ data, waitUntil: (p: Promise<unknown>) => (pending = p) });
    await pending;
  }

  /** Dispatches a click on a shown notification. */
  async click(options: Record<string, unknown>): Promise<{ closed: boolean }> {
    let pending: Promise<unknown> = Promise.resolve();
    const notification = { data: options.data, closed: false, close: () => (notification.closed = true) };
    this.handlers.get('notificationclick')?.({
      notification,
      waitUntil: (p: Promise<unknown>) => (pending = p),
    });
    await pending;
    return notification;
  }

  cachedUrls(): string[] {
    return [...this.stores.values()].flatMap((store) => [...store.keys()]);
  }
}

const json = (body: unknown) => () =>
  new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } });

describe('service worker behaviour', () => {
  const PREFIX = '/api/hassio_ingress/tok/';

  it('caches the shell on install, skipping what fails, and old versions go on activate', async () => {
    const sw = new Harness(serviceWorkerSource('9.9.9'));
    sw.stores.set('raincheck-shell-1.0.0', new Map());
    sw.stores.set('someone-else', new Map());
    sw.answers = {
      [PREFIX]: () => new Response('<html>app</html>', { headers: { 'content-type': 'text/html' } }),
      [`${PREFIX}manifest.webmanifest`]: json({ name: 'Raincheck' }),
    };
    await sw.lifecycle('install');
    expect(sw.stores.get('raincheck-shell-9.9.9')?.size).toBe(2);
    expect(sw.cachedUrls()).toEqual([
      `https://ha.local${PREFIX}`,
      `https://ha.local${PREFIX}manifest.webmanifest`,
    ]);
    await sw.lifecycle('activate');
    expect([...sw.stores.keys()].sort()).toEqual(['raincheck-shell-9.9.9', 'someone-else']);
    expect(sw.claimed).toBe(true);
  });

  it('never caches or answers API calls from a cache, except the irrigation snapshot', async () => {
    const sw = new Harness(serviceWorkerSource('9.9.9'));
    sw.answers = {
      [`${PREFIX}api/v1/config`]: json({ secret: true }),
      [`${PREFIX}api/v1/irrigation/snapshot`]: json({ verdict: 'run' }),
      [`${PREFIX}api/v1/irrigation/stream`]: json({}),
    };
    for (const path of [
      'api/v1/config',
      'api/v1/irrigation/stream',
      'api/v1/health',
      'api/irrigation/snapshot',
    ]) {
      expect(await sw.fetch(path)).toBeNull();
    }
    expect(await sw.fetch('api/v1/irrigation/action', 'cors', 'POST')).toBeNull();
    expect(sw.cachedUrls()).toEqual([]);

    const live = await sw.fetch('api/v1/irrigation/snapshot');
    expect(await live?.json()).toEqual({ verdict: 'run' });
    expect(sw.cachedUrls()).toEqual([`https://ha.local${PREFIX}api/v1/irrigation/snapshot`]);

    sw.online = false;
    const offline = await sw.fetch('api/v1/irrigation/snapshot');
    expect(await offline?.json()).toEqual({ verdict: 'run' });
    expect(offline?.headers.get('x-raincheck-offline')).toBe('1');
  });

  it('does not keep an error answer as the snapshot', async () => {
    const sw = new Harness(serviceWorkerSource('9.9.9'));
    sw.answers = { [`${PREFIX}api/v1/irrigation/snapshot`]: () => new Response('{}', { status: 401 }) };
    expect((await sw.fetch('api/v1/irrigation/snapshot'))?.status).toBe(401);
    expect(sw.cachedUrls()).toEqual([]);
    sw.online = false;
    await expect(sw.fetch('api/v1/irrigation/snapshot')).rejects.toThrow('Failed to fetch');
  });

  it('navigates network-first, falling back to the cached shell, then to an offline page', async () => {
    const sw = new Harness(serviceWorkerSource('9.9.9'));
    sw.online = false;
    const bare = await sw.fetch('zones/front', 'navigate');
    expect(bare?.status).toBe(503);
    expect(await bare?.text()).toContain('offline');
    expect(bare?.headers.get('content-security-policy')).toContain("default-src 'self'");

    sw.online = true;
    sw.answers = {
      [PREFIX]: () => new Response('<html>shell</html>', { headers: { 'content-type': 'text/html' } }),
    };
    expect(await (await sw.fetch('', 'navigate'))?.text()).toBe('<html>shell</html>');
    sw.online = false;
    expect(await (await sw.fetch('zones/front', 'navigate'))?.text()).toBe('<html>shell</html>');
  });

  const SHELL_HTML = [
    '<html><head><base href="./" />',
    '<script type="module" crossorigin src="./pkg/index-AbC1.js"></script>',
    '<link rel="stylesheet" crossorigin href="./pkg/index-Def2.css">',
    '<link rel="modulepreload" href="pkg/index-AbC1.js">',
    '<link rel="preload" href="pkg/font-Gone3.woff2">',
    '<script src="https://cdn.example.com/pkg/evil.js"></script>',
    '<link rel="manifest" href="manifest.webmanifest" />',
    '</head><body>pkg/not-a-reference.js</body></html>',
  ].join('');
  const html = (body: string) => () => new Response(body, { headers: { 'content-type': 'text/html' } });
  const text = (body: string, type: string) => () =>
    new Response(body, { headers: { 'content-type': type } });

  it('precaches the bundle files the shell references, skipping what fails', async () => {
    const sw = new Harness(serviceWorkerSource('9.9.9'));
    sw.answers = {
      [PREFIX]: html(SHELL_HTML),
      [`${PREFIX}pkg/index-AbC1.js`]: text('export {};', 'application/javascript'),
      [`${PREFIX}pkg/index-Def2.css`]: text('body{}', 'text/css'),
    };
    await sw.lifecycle('install');
    const origin = 'https://ha.local';
    expect(sw.cachedUrls().sort()).toEqual(
      [
        `${origin}${PREFIX}`,
        `${origin}${PREFIX}pkg/index-AbC1.js`,
        `${origin}${PREFIX}pkg/index-Def2.css`,
      ].sort(),
    );
    // Each referenced file asked for once (the missing font too), nothing off-scope or from the body text.
    const bundleFetches = sw.fetched.filter((url) => url.includes('/pkg/')).sort();
    expect(bundleFetches).toEqual([
      `${origin}${PREFIX}pkg/font-Gone3.woff2`,
      `${origin}${PREFIX}pkg/index-AbC1.js`,
      `${origin}${PREFIX}pkg/index-Def2.css`,
    ]);
  });

  it('answers pkg/ files cache first and keeps only good answers', async () => {
    const sw = new Harness(serviceWorkerSource('9.9.9'));
    let served = 0;
    sw.answers = {
      [`${PREFIX}pkg/zones-X1.js`]: () => new Response(`export const n = ${++served};`),
      [`${PREFIX}pkg/broken-Y2.js`]: () => new Response('gone', { status: 404 }),
    };
    expect(await (await sw.fetch('pkg/zones-X1.js'))?.text()).toBe('export const n = 1;');
    // Online or not, the cached copy answers: hashed files never change.
    expect(await (await sw.fetch('pkg/zones-X1.js'))?.text()).toBe('export const n = 1;');
    sw.online = false;
    expect(await (await sw.fetch('pkg/zones-X1.js'))?.text()).toBe('export const n = 1;');
    expect(sw.fetched).toEqual([`https://ha.local${PREFIX}pkg/zones-X1.js`]);
    expect(sw.stores.get('raincheck-shell-9.9.9')?.has(`https://ha.local${PREFIX}pkg/zones-X1.js`)).toBe(
      true,
    );

    sw.online = true;
    expect((await sw.fetch('pkg/broken-Y2.js'))?.status).toBe(404);
    expect(sw.cachedUrls()).toEqual([`https://ha.local${PREFIX}pkg/zones-X1.js`]);
  });

  it('answers an offline deeper page with the cached shell based at that depth', async () => {
    const sw = new Harness(serviceWorkerSource('9.9.9'));
    sw.answers = {
      [PREFIX]: () =>
        new Response(SHELL_HTML, {
          headers: { 'content-type': 'text/html', 'content-length': String(SHELL_HTML.length) },
        }),
    };
    await sw.lifecycle('install');
    sw.online = false;
    const cases = [
      ['', './'],
      ['zones', './'],
      ['zones/front_lawn', '../'],
      ['zones/front_lawn?tab=history', '../'],
      ['zones/', '../'],
      ['settings/account/extra', '../../'],
    ] as const;
    for (const [page, base] of cases) {
      const res = await sw.fetch(page, 'navigate');
      expect(res?.status).toBe(200);
      expect(res?.headers.get('content-type')).toBe('text/html');
      const body = (await res?.text()) ?? '';
      expect(/<base href="([^"]*)"/.exec(body)?.[1]).toBe(base);
      expect(body.replace(/<base href="[^"]*" \/>/, '<base href="./" />')).toBe(SHELL_HTML);
      if (base !== './') expect(res?.headers.get('content-length')).toBeNull();
    }
    // The cached shell itself keeps the root's base.
    const stored = await sw.stores
      .get('raincheck-shell-9.9.9')
      ?.get(`https://ha.local${PREFIX}`)
      ?.clone()
      .text();
    expect(stored).toBe(SHELL_HTML);
  });

  it('leaves other origins and paths outside its scope alone', async () => {
    const sw = new Harness(serviceWorkerSource('9.9.9'));
    expect(await sw.fetch('https://tiles.example.com/a.png')).toBeNull();
    expect(await sw.fetch('/other-addon/', 'navigate')).toBeNull();
    expect(sw.fetched).toEqual([]);
  });

  describe('Web Push notices', () => {
    const SCOPE = `https://ha.local${PREFIX}`;

    it('shows each notice with its tag, body and deep link under the scope', async () => {
      const sw = new Harness(serviceWorkerSource('9.9.9'));
      await sw.push({
        title: 'Front lawn may now run 90 minutes',
        body: 'Its per-run cap went from 60 to 90 minutes.',
        tag: 'cap-raised-front_lawn',
        url: '/zones/front_lawn',
        severity: 'warning',
      });
      expect(sw.shown).toEqual([
        {
          title: 'Front lawn may now run 90 minutes',
          options: {
            body: 'Its per-run cap went from 60 to 90 minutes.',
            tag: 'cap-raised-front_lawn',
            renotify: true,
            data: { url: `${SCOPE}zones/front_lawn` },
            icon: `${SCOPE}icon-192.png`,
            requireInteraction: false,
          },
        },
      ]);
    });

    it('never sends a click to another origin or above the scope, and survives a payload that is not JSON', async () => {
      const sw = new Harness(serviceWorkerSource('9.9.9'));
      for (const url of ['//evil.example/x', 'https://evil.example/', '/../../admin', 'zones/a', 42]) {
        await sw.push({ title: 't', url });
      }
      await sw.push('plain text');
      expect(sw.shown.map((n) => (n.options.data as { url: string }).url)).toEqual(Array(6).fill(SCOPE));
      expect(sw.shown.at(-1)).toMatchObject({ title: 'Raincheck', options: { body: 'plain text' } });
      expect(sw.shown.at(-1)?.options).not.toHaveProperty('tag');
    });

    it('a click focuses the window on that page, else moves an app window there, else opens one', async () => {
      const target = `${SCOPE}zones/front_lawn`;
      const sw = new Harness(serviceWorkerSource('9.9.9'));
      sw.windows = [
        { url: `${SCOPE}history`, focused: false },
        { url: target, focused: false },
      ];
      expect(await sw.click({ data: { url: target } })).toMatchObject({ closed: true });
      expect(sw.windows.map((w) => w.focused)).toEqual([false, true]);

      const moved: string[] = [];
      const app = { url: `${SCOPE}history`, focused: false };
      sw.windows = [
        {
          ...app,
          navigate: async (url: string) => {
            moved.push(url);
            return { focus: async () => void (app.focused = true) };
          },
        },
      ];
      await sw.click({ data: { url: target } });
      expect(moved).toEqual([target]);
      expect(app.focused).toBe(true);

      sw.windows = [];
      await sw.click({ data: { url: 'https://evil.example/' } });
      await sw.click({ data: { url: target } });
      expect(sw.opened).toEqual([SCOPE, target]);
    });
  });
});
