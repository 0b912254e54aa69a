import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { silentLogger } from '../../server/src/core/logger';
import { SseHub } from '../../server/src/http/sse';

/**
 * The SSE hub over a real node:http server that subscribes every request to one
 * feed, and plain node:http clients that read the raw event stream.
 */

interface SseFrame {
  event?: string;
  data?: string;
  retry?: string;
  comment?: string;
}

class SseClient {
  readonly frames: SseFrame[] = [];
  bytes = 0;
  ended = false;
  closed = false;
  response!: http.IncomingMessage;
  private buffer = '';
  private waiters: (() => void)[] = [];

  constructor(readonly request: http.ClientRequest) {
    request.on('error', () => {
      this.closed = true;
      this.wake();
    });
  }

  static connect(port: number, path = '/events'): Promise<SseClient> {
    return new Promise((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port, path, headers: { Accept: 'text/event-stream' } });
      const client = new SseClient(req);
      req.once('response', (res) => {
        client.response = res;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => client.push(chunk));
        res.on('end', () => {
          client.ended = true;
          client.wake();
        });
        res.on('close', () => {
          client.closed = true;
          client.wake();
        });
        resolve(client);
      });
      req.once('error', reject);
    });
  }

  private push(chunk: string): void {
    this.bytes += Buffer.byteLength(chunk);
    this.buffer += chunk;
    let end = this.buffer.indexOf('\n\n');
    while (end >= 0) {
      this.frames.push(parseFrame(this.buffer.slice(0, end)));
      this.buffer = this.buffer.slice(end + 2);
      end = this.buffer.indexOf('\n\n');
    }
    this.wake();
  }

  private wake(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  /** Resolves once `predicate` holds, checked after every chunk; rejects after `timeoutMs`. */
  until(predicate: () => boolean, timeoutMs = 3000): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('timed out waiting for the SSE stream')), timeoutMs);
      const check = (): void => {
        if (predicate()) {
          clearTimeout(timer);
          resolve();
        } else this.waiters.push(check);
      };
      check();
    });
  }

  snapshots(): unknown[] {
    return this.frames.filter((f) => f.event === 'snapshot').map((f) => JSON.parse(f.data ?? 'null'));
  }

  destroy(): void {
    this.request.destroy();
  }
}

function parseFrame(text: string): SseFrame {
  const frame: SseFrame = {};
  for (const line of text.split('\n')) {
    if (line.startsWith(':')) frame.comment = line.slice(1).trim();
    else {
      const colon = line.indexOf(':');
      const field = line.slice(0, colon);
      const value = line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event' || field === 'data' || field === 'retry') frame[field] = value;
    }
  }
  return frame;
}

interface Harness {
  hub: SseHub;
  port: number;
  server: http.Server;
  clients: SseClient[];
  connect: (path?: string) => Promise<SseClient>;
}

let harness: Harness | null = null;

async function start(options: {
  keepAliveMs?: number;
  maxBufferedBytes?: number;
  maxStreams?: number;
  current?: () => unknown;
  /** The credential check of each new stream (the path names the credential: /events?c=<name>). */
  guard?: (credential: string) => boolean;
}) {
  const hub = new SseHub(silentLogger(), options.maxBufferedBytes, options.maxStreams);
  hub.defineFeed('test', { keepAliveMs: options.keepAliveMs ?? 60_000, current: options.current });
  const server = http.createServer((req, res) => {
    const credential = new URL(req.url ?? '/', 'http://x').searchParams.get('c');
    const guard = options.guard;
    hub.subscribe('test', req, res, guard && credential ? () => guard(credential) : undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const clients: SseClient[] = [];
  const h: Harness = {
    hub,
    port,
    server,
    clients,
    connect: async (path?: string) => {
      const client = await SseClient.connect(port, path);
      clients.push(client);
      // Subscribed once the retry line arrived.
      await client.until(() => client.frames.length > 0);
      return client;
    },
  };
  harness = h;
  return h;
}

afterEach(async () => {
  if (!harness) return;
  const { hub, server, clients } = harness;
  harness = null;
  hub.closeAll();
  for (const client of clients) client.destroy();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

describe('SseHub over HTTP', () => {
  it('sends retry, then the current snapshot, then published events', async () => {
    let current: unknown = { seq: 0, temp_f: 71.2 };
    const { hub, connect } = await start({ current: () => current });
    const client = await connect();
    expect(client.response.statusCode).toBe(200);
    expect(client.response.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(client.response.headers['cache-control']).toContain('no-cache');

    await client.until(() => client.frames.length >= 2);
    expect(client.frames[0]).toEqual({ retry: expect.stringMatching(/^\d+$/) });
    expect(client.frames[1]).toEqual({ event: 'snapshot', data: JSON.stringify(current) });

    hub.publish('test', { seq: 1, temp_f: null });
    hub.publish('test', { seq: 2, rain_in: 0 });
    await client.until(() => client.snapshots().length >= 3);
    expect(client.snapshots()).toEqual([
      { seq: 0, temp_f: 71.2 },
      { seq: 1, temp_f: null },
      { seq: 2, rain_in: 0 },
    ]);

    // A client that connects later gets the snapshot current at that time.
    current = { seq: 2, rain_in: 0 };
    const late = await connect();
    await late.until(() => late.snapshots().length >= 1);
    expect(late.snapshots()).toEqual([{ seq: 2, rain_in: 0 }]);
    expect(hub.clientCount('test')).toBe(2);
  });

  it('sends no snapshot on connect while there is none', async () => {
    const { hub, connect } = await start({ current: () => null });
    const client = await connect();
    await pause(50);
    expect(client.frames).toEqual([{ retry: expect.any(String) }]);
    hub.publish('test', { first: true });
    await client.until(() => client.snapshots().length === 1);
    expect(client.frames.map((f) => f.event ?? Object.keys(f)[0])).toEqual(['retry', 'snapshot']);
  });

  it('sends a keep-alive comment at the interval', async () => {
    const { connect } = await start({ keepAliveMs: 50 });
    const client = await connect();
    const started = Date.now();
    await client.until(() => client.frames.filter((f) => f.comment !== undefined).length >= 2, 2000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(60);
    expect(client.frames.find((f) => f.comment !== undefined)).toEqual({ comment: 'keep-alive' });
  });

  it('forgets a client that disconnects', async () => {
    const { hub, connect } = await start({});
    const a = await connect();
    await connect();
    expect(hub.clientCount('test')).toBe(2);
    a.destroy();
    for (let i = 0; i < 100 && hub.clientCount('test') !== 1; i += 1) await pause(10);
    expect(hub.clientCount('test')).toBe(1);
    hub.publish('test', { after: 'disconnect' });
  });

  it('drops a client that stops reading while a fast client keeps receiving', async () => {
    const maxBufferedBytes = 256 * 1024;
    const { hub, connect } = await start({ maxBufferedBytes });
    const fast = await connect();
    const slow = await connect();
    expect(hub.clientCount('test')).toBe(2);

    slow.response.pause();
    const payload = 'x'.repeat(128 * 1024);
    let published = 0;
    // Kernel socket buffers absorb the first megabytes; bounded so a broken drop fails instead of hanging.
    while (hub.clientCount('test') === 2 && published < 2000) {
      published += 1;
      hub.publish('test', { seq: published, payload });
      // The fast client reads every event before the next is published.
      const want = published;
      await fast.until(() => fast.snapshots().length >= want, 5000);
    }
    expect(hub.clientCount('test')).toBe(1);
    expect(published).toBeGreaterThan(1);
    // The dropped client's connection is closed by the server.
    slow.response.resume();
    await slow.until(() => slow.closed || slow.ended, 5000);

    hub.publish('test', { seq: 'after-drop' });
    await fast.until(() => fast.snapshots().some((s) => (s as { seq: unknown }).seq === 'after-drop'));
    expect(fast.closed).toBe(false);
    expect(hub.clientCount('test')).toBe(1);
  });

  it('closeAll ends every stream and stops the keep-alive', async () => {
    const { hub, connect } = await start({ keepAliveMs: 20 });
    const a = await connect();
    const b = await connect();
    hub.closeAll();
    await a.until(() => a.ended);
    await b.until(() => b.ended);
    expect(hub.clientCount('test')).toBe(0);

    // The keep-alive timer is gone: a stream opened afterwards hears nothing more.
    const late = await connect();
    await pause(100);
    expect(late.frames.filter((f) => f.comment !== undefined)).toEqual([]);
  });

  it('refuses unknown feeds and duplicate definitions', async () => {
    const { hub } = await start({});
    expect(() => hub.defineFeed('test', { keepAliveMs: 1000 })).toThrow(/twice/);
    expect(() => hub.publish('nope', {})).toThrow(/not defined/);
  });

  it('revalidate ends the streams whose credential is gone, and only those', async () => {
    const revoked = new Set<string>();
    const { hub, connect } = await start({ guard: (credential) => !revoked.has(credential) });
    const token = await connect('/events?c=token-1');
    const other = await connect('/events?c=token-2');
    const open = await connect('/events');
    revoked.add('token-1');
    hub.revalidate();
    await token.until(() => token.ended);
    await pause(50);
    expect([other.ended, open.ended]).toEqual([false, false]);
    expect(hub.clientCount('test')).toBe(2);
  });

  it('the keep-alive tick ends a stream whose credential expired meanwhile', async () => {
    let valid = true;
    const { hub, connect } = await start({ keepAliveMs: 30, guard: () => valid });
    const client = await connect('/events?c=session');
    await client.until(() => client.frames.some((f) => f.comment === 'keep-alive'));
    valid = false;
    await client.until(() => client.ended, 2000);
    expect(hub.clientCount('test')).toBe(0);
  });

  it('says when no more streams fit and counts closed ones out', async () => {
    const { hub, connect } = await start({ maxStreams: 2 });
    const a = await connect();
    expect(hub.hasRoom()).toBe(true);
    await connect();
    expect(hub.hasRoom()).toBe(false);
    a.destroy();
    for (let i = 0; i < 100 && !hub.hasRoom(); i += 1) await pause(10);
    expect(hub.hasRoom()).toBe(true);
  });
});
