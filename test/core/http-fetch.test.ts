import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { httpFetch } from '../../server/src/core/http-fetch';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

let server: Server;
let base: string;
let handler: Handler;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handler(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('httpFetch (fetch over node:http)', () => {
  it('answers status, headers and body as fetch does, and sends the caller headers and body', async () => {
    let seen: { method?: string; type?: string; auth?: string; body?: string } = {};
    handler = (req, res, body) => {
      seen = { method: req.method, type: req.headers['content-type'], auth: req.headers.authorization, body };
      res.writeHead(201, 'Made', { 'content-type': 'application/json', 'x-remaining': '7' });
      res.end('{"a":1}');
    };
    const response = await httpFetch(`${base}/thing?key=1`, {
      method: 'POST',
      headers: { Authorization: 'Bearer t' },
      body: 'hello',
    });
    expect(seen).toEqual({
      method: 'POST',
      type: 'text/plain;charset=UTF-8',
      auth: 'Bearer t',
      body: 'hello',
    });
    expect(response.status).toBe(201);
    expect(response.statusText).toBe('Made');
    expect(response.ok).toBe(true);
    expect(response.url).toBe(`${base}/thing?key=1`);
    expect(response.headers.get('X-Remaining')).toBe('7');
    expect(response.headers.get('x-absent')).toBeNull();
    expect(await response.json()).toEqual({ a: 1 });
    await expect(response.text()).rejects.toThrow(TypeError);
  });

  it('decodes a gzip answer', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-encoding': 'gzip' });
      res.end(gzipSync('x'.repeat(5000)));
    };
    expect(await (await httpFetch(base)).text()).toBe('x'.repeat(5000));
  });

  it('follows redirects (a POST answered 302 becomes a GET), and refuses them with redirect: error', async () => {
    handler = (req, res, body) => {
      if (req.url === '/from') {
        res.writeHead(302, { location: '/to' });
        res.end();
        return;
      }
      res.end(`${req.method} ${req.url} ${body.length}`);
    };
    const followed = await httpFetch(`${base}/from`, { method: 'POST', body: 'payload' });
    expect(await followed.text()).toBe('GET /to 0');
    expect(followed.redirected).toBe(true);
    expect(followed.url).toBe(`${base}/to`);
    await expect(httpFetch(`${base}/from`, { redirect: 'error' })).rejects.toThrow('fetch failed');
    const manual = await httpFetch(`${base}/from`, { redirect: 'manual' });
    expect(manual.status).toBe(302);
  });

  it('rejects with the timeout reason (TimeoutError) when no answer comes in time', async () => {
    handler = () => undefined;
    const err = await httpFetch(base, { signal: AbortSignal.timeout(50) }).catch((e: unknown) => e);
    expect((err as Error).name).toBe('TimeoutError');
  });

  it('maps a refused connection to TypeError "fetch failed" with the socket code as cause', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const err = await httpFetch(`http://127.0.0.1:${port}/`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TypeError);
    expect((err as Error).message).toBe('fetch failed');
    expect((err as { cause?: { code?: string } }).cause?.code).toBe('ECONNREFUSED');
  });

  it('lets a caller cancel an unread body, and has no body for a 204', async () => {
    handler = (req, res) => {
      if (req.url === '/empty') {
        res.writeHead(204);
        res.end();
        return;
      }
      res.writeHead(500);
      res.write('partial');
    };
    const failed = await httpFetch(`${base}/big`);
    expect(failed.ok).toBe(false);
    await expect(failed.body?.cancel()).resolves.toBeUndefined();
    expect((await httpFetch(`${base}/empty`)).body).toBeNull();
  });
});
