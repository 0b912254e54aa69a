import net from 'node:net';
import { defaultHttpLimits, type HttpLimits } from '../../server/src/http/limits';
import { configToml, send } from '../auth/auth-helpers';
import { serviceTracker, type BootedService } from '../helpers/service';

/**
 * Issue 16, item 5, with real sockets: a slow request body was never timed
 * out and nothing capped connections, so 1,100 slow anonymous bodies used up
 * the descriptors and /health stopped answering. Bodies time out (408),
 * bodies and connections are capped per client and in total (503
 * `server_busy`, or the socket closed at once), /health keeps answering, and
 * a refused request stops reading its body.
 */

// Registered before the service tracker's: the test's sockets close before its services stop.
const sockets: net.Socket[] = [];
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
});
const services = serviceTracker();

const LIMITS: Partial<HttpLimits> = {
  requestTimeoutMs: 1500,
  headersTimeoutMs: 1000,
  timeoutCheckMs: 100,
  maxConnectionsPerClient: 12,
  maxBodies: 4,
  maxBodiesPerClient: 2,
  maxStreams: 2,
};

function boot(auth: 'disabled' | 'required' = 'disabled', limits = LIMITS): Promise<BootedService> {
  return services.boot({ configToml: configToml({ mode: auth }), serviceOptions: { httpLimits: limits } });
}

interface RawExchange {
  socket: net.Socket;
  /** Everything the server sent so far. */
  received: () => string;
  /** Resolves when the server closed the connection. */
  closed: Promise<void>;
}

/** A connection from `from` (any 127.0.0.0/8 address is this host) that sent `head` and nothing more. */
function openRaw(port: number, head: string, from = '127.0.0.1'): Promise<RawExchange> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port, localAddress: from });
    sockets.push(socket);
    let text = '';
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', () => undefined);
    socket.once('connect', () => {
      socket.write(head);
      resolve({ socket, received: () => text, closed });
    });
    socket.once('error', reject);
  });
}

/** A POST of a 1 MB JSON body of which only the first bytes are sent. */
function slowBody(path = '/api/v1/config/preview', extra = ''): string {
  return `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n${extra}\r\n{"candidate":`;
}

function within<T>(promise: Promise<T>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.then(() => true),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
  ]).finally(() => clearTimeout(timer));
}

async function healthAnswers(port: number): Promise<void> {
  const res = await send(port, { path: '/api/v1/health' });
  expect(res.status).toBe(200);
}

describe('limits', () => {
  it('derives its caps from the descriptor limit, keeping room for everything else', () => {
    const small = defaultHttpLimits(1024);
    expect(small.maxConnections).toBe(768);
    expect(small.maxStreams).toBeLessThan(small.maxConnections);
    expect(small.maxBodies).toBeLessThanOrEqual(64);
    expect(small.maxStreams + small.maxBodies).toBeLessThan(small.maxConnections);
    expect(defaultHttpLimits(64).maxConnections).toBe(64);
    expect(defaultHttpLimits(Number.MAX_SAFE_INTEGER).maxConnections).toBe(65_536);
  });
});

describe('slow bodies', () => {
  it('time out with 408 and the connection closed', async () => {
    const booted = await boot();
    const slow = await openRaw(booted.port, slowBody());
    expect(await within(slow.closed, 4000)).toBe(true);
    expect(slow.received()).toMatch(/^HTTP\/1\.1 408/);
  });

  it('are capped per client and in total with 503 server_busy; /health keeps answering', async () => {
    const booted = await boot();
    const held = [await openRaw(booted.port, slowBody()), await openRaw(booted.port, slowBody())];
    const third = await openRaw(booted.port, slowBody());
    expect(await within(third.closed, 1000)).toBe(true);
    expect(third.received()).toMatch(/^HTTP\/1\.1 503/);
    expect(third.received()).toMatch(/connection: close/i);
    expect(third.received()).toContain('"code":"server_busy"');
    expect(third.received()).toMatch(/retry-after: 5/i);

    // Other clients (other loopback addresses) get the rest of the total, then it is full too.
    held.push(await openRaw(booted.port, slowBody(), '127.0.0.2'));
    held.push(await openRaw(booted.port, slowBody(), '127.0.0.3'));
    const overTotal = await openRaw(booted.port, slowBody(), '127.0.0.4');
    expect(await within(overTotal.closed, 1000)).toBe(true);
    expect(overTotal.received()).toMatch(/^HTTP\/1\.1 503/);

    await healthAnswers(booted.port);
    for (const exchange of held) expect(exchange.received()).toBe('');
    // Once the slow ones time out, bodies are taken again.
    await Promise.all(held.map((exchange) => within(exchange.closed, 4000)));
    const ok = await send(booted.port, {
      method: 'POST',
      path: '/api/v1/config/preview',
      body: { candidate: {} },
    });
    expect(ok.status).toBe(200);
  });

  it('a refused request answers at once and stops reading its body (401, 413, 415)', async () => {
    const booted = await boot('required');
    const unauthorized = await openRaw(booted.port, slowBody('/api/v1/irrigation/action'));
    expect(await within(unauthorized.closed, 1000)).toBe(true);
    expect(unauthorized.received()).toMatch(/^HTTP\/1\.1 401/);

    const tooLarge = await openRaw(
      booted.port,
      'POST /api/v1/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 5000000\r\n\r\n{',
    );
    expect(await within(tooLarge.closed, 1000)).toBe(true);
    expect(tooLarge.received()).toMatch(/^HTTP\/1\.1 413/);

    const wrongType = await openRaw(
      booted.port,
      'POST /api/v1/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-unknown\r\nContent-Length: 100000\r\n\r\nxx',
    );
    expect(await within(wrongType.closed, 1000)).toBe(true);
    expect(wrongType.received()).toMatch(/^HTTP\/1\.1 415/);
  });
});

describe('connections and streams', () => {
  it('caps open connections per client; other clients and /health still get in', async () => {
    const booted = await boot();
    const idle = 'GET /api/v1/info HTTP/1.1\r\nHost: 127.0.0.1\r\n';
    const open: RawExchange[] = [];
    for (let i = 0; i < 12; i += 1) open.push(await openRaw(booted.port, idle, '127.0.0.5'));
    const over = await openRaw(booted.port, idle, '127.0.0.5');
    expect(await within(over.closed, 1000)).toBe(true);
    expect(over.received()).toBe('');
    for (const exchange of open) expect(exchange.socket.destroyed).toBe(false);
    await healthAnswers(booted.port);
  });

  it('caps open streams with 503 streams_full; /health still answers', async () => {
    const booted = await boot();
    const stream = 'GET /api/v1/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
    const first = await openRaw(booted.port, stream);
    const second = await openRaw(booted.port, stream, '127.0.0.2');
    const third = await openRaw(booted.port, stream, '127.0.0.3');
    expect(await within(third.closed, 1000)).toBe(false);
    for (let i = 0; i < 50 && !third.received().includes('\r\n\r\n'); i += 1)
      await new Promise((r) => setTimeout(r, 20));
    expect(third.received()).toMatch(/^HTTP\/1\.1 503/);
    expect(third.received()).toContain('"code":"streams_full"');
    expect(first.received()).toMatch(/^HTTP\/1\.1 200/);
    expect(second.received()).toMatch(/^HTTP\/1\.1 200/);
    await healthAnswers(booted.port);
  });
});
