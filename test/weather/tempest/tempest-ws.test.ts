import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer, type VerifyClientCallbackAsync } from 'ws';
import {
  backoffDelayMs,
  TEMPEST_WS_DEFAULT_URL,
  tempestWsConfigSchema,
  tempestWsKind,
  TempestWsSource,
  type TempestWsOptions,
} from '../../../server/src/weather/sources/tempest/tempest-ws';
import { epochOf, makeContext, sleep, values, waitFor } from './helpers';

/**
 * A loopback websocket server that speaks the vendor protocol: it greets with
 * connection_opened, acks listen_start / listen_rapid_start, and once both
 * arrived runs the test's script (sends observations, drops the link...).
 */

interface CloudConnection {
  index: number;
  url: string;
  socket: WebSocket;
  received: Record<string, unknown>[];
}

class FakeTempestCloud {
  readonly connections: CloudConnection[] = [];
  script: (conn: CloudConnection) => void = () => undefined;

  private constructor(readonly server: WebSocketServer) {
    server.on('connection', (socket, req) => {
      const conn: CloudConnection = {
        index: this.connections.length,
        url: req.url ?? '',
        socket,
        received: [],
      };
      this.connections.push(conn);
      socket.send(JSON.stringify({ type: 'connection_opened' }));
      socket.on('message', (data) => {
        const message = JSON.parse(String(data)) as Record<string, unknown>;
        conn.received.push(message);
        socket.send(JSON.stringify({ type: 'ack', id: message.id }));
        const types = conn.received.map((m) => m.type);
        if (
          types.includes('listen_start') &&
          types.includes('listen_rapid_start') &&
          (message.type === 'listen_start' || message.type === 'listen_rapid_start')
        ) {
          this.script(conn);
        }
      });
    });
  }

  static async start(port = 0, verifyClient?: VerifyClientCallbackAsync): Promise<FakeTempestCloud> {
    const server = new WebSocketServer({ host: '127.0.0.1', port, verifyClient });
    await new Promise<void>((resolve, reject) => {
      server.once('listening', () => resolve());
      server.once('error', reject);
    });
    return new FakeTempestCloud(server);
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get url(): string {
    return `ws://127.0.0.1:${this.port}/swd/data`;
  }

  async close(): Promise<void> {
    for (const c of this.server.clients) c.terminate();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const DEVICE_ID = 4242;
const TOKEN = 'tok-123-secret';
const E = epochOf('2026-05-01T16:00:00Z');

/** A 22-element websocket obs_st (shape of a real one; rain 0.2 mm this minute, 5.08 mm so far today). */
function wsObsSt(epoch: number, localDayRainMm: number, deviceId = DEVICE_ID): string {
  return JSON.stringify({
    status: { status_code: 0, status_message: 'SUCCESS' },
    device_id: deviceId,
    type: 'obs_st',
    source: 'cache',
    summary: { pressure_trend: 'steady', strike_count_1h: 0 },
    obs: [
      [
        epoch,
        3.71,
        4.31,
        5.2,
        298,
        3,
        1012.3,
        18.5,
        62,
        5000,
        0.5,
        40,
        0.2,
        1,
        0,
        0,
        2.45,
        1,
        localDayRainMm,
        0,
        0,
        0,
      ],
    ],
  });
}

function wsRapidWind(epoch: number, deviceId = DEVICE_ID): string {
  return JSON.stringify({
    device_id: deviceId,
    serial_number: 'ST-00026524',
    type: 'rapid_wind',
    hub_sn: 'HB-00039816',
    ob: [epoch, 4.29, 298],
  });
}

const running: { stop(): Promise<void> }[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.stop()));
});

function startCloud(port = 0, verify?: VerifyClientCallbackAsync) {
  return FakeTempestCloud.start(port, verify).then((cloud) => {
    running.push({ stop: () => cloud.close() });
    return cloud;
  });
}

async function startSource(
  url: string,
  options: TempestWsOptions = {},
  config: Record<string, unknown> = {},
) {
  const { ctx, sink } = makeContext({ token: TOKEN, device_id: DEVICE_ID, url, ...config });
  const source = new TempestWsSource(ctx, { backoffInitialMs: 10, backoffMaxMs: 40, ...options });
  running.push(source);
  await source.start();
  return { source, sink };
}

describe('tempest_ws against a loopback server speaking the protocol', () => {
  it('subscribes, publishes obs_st and rapid_wind, reconnects after a drop', async () => {
    const cloud = await startCloud();
    cloud.script = (conn) => {
      if (conn.index === 0) {
        conn.socket.send(wsObsSt(E, 5.08));
        conn.socket.send(wsRapidWind(E + 3));
      } else {
        // After a reconnect the server replays its cached observation, then a new one.
        conn.socket.send(wsObsSt(E, 5.08));
        conn.socket.send(wsObsSt(E + 60, 5.334));
      }
    };
    const { source, sink } = await startSource(cloud.url);

    await waitFor(() => sink.batches.length >= 2, 'the first obs_st and rapid_wind');
    const first = cloud.connections[0]!;
    expect(first.url).toBe(`/swd/data?token=${TOKEN}`);
    expect(first.received.slice(0, 2)).toEqual([
      { type: 'listen_start', device_id: DEVICE_ID, id: expect.any(String) },
      { type: 'listen_rapid_start', device_id: DEVICE_ID, id: expect.any(String) },
    ]);

    const obs = values(sink.batches[0]!);
    expect(obs.air_temp_f).toBeCloseTo(65.3, 10);
    expect(obs.wind_avg_mph).toBeCloseTo(9.641, 3);
    expect(obs.pressure_inhg).toBeCloseTo(29.893, 3);
    expect(obs.rain_in_last_min).toBeCloseTo(0.2 / 25.4, 10);
    expect(obs).toHaveProperty('lightning_avg_dist_mi', null);
    expect(sink.batches[0]!.readings!.every((r) => r.observedEpoch === E)).toBe(true);
    const rapid = values(sink.batches[1]!);
    expect(rapid.rapid_wind_mph).toBeCloseTo(9.596, 3);
    expect(rapid.rapid_wind_dir).toBe(298);
    expect(sink.batches[1]!.stationSerial).toBe('ST-00026524');

    // rain_in_today straight from index 18 (the station's local-day total).
    expect(source.readingsAt(E + 30)).toContainEqual({
      field: 'rain_in_today',
      value: 0.2,
      observedEpoch: E,
    });
    expect(sink.contacts.length).toBeGreaterThan(0);
    expect(sink.contacts.every((c) => c.ok)).toBe(true);

    // The server drops the link.
    first.socket.terminate();
    await waitFor(() => sink.contacts.some((c) => !c.ok), 'a contact failure');
    await waitFor(() => cloud.connections.length === 2, 'a reconnect');
    await waitFor(() => sink.batches.length >= 4, 'observations on the new connection');
    const second = cloud.connections[1]!;
    expect(second.url).toBe(`/swd/data?token=${TOKEN}`);
    expect(second.received.map((m) => m.type).slice(0, 2)).toEqual(['listen_start', 'listen_rapid_start']);
    const failure = sink.contacts.find((c) => !c.ok)!;
    expect(failure.note).toMatch(/connection closed|socket hang up|closed/i);
    expect(failure.note).not.toContain(TOKEN);
    expect(sink.contacts[sink.contacts.length - 1]!.ok).toBe(true);

    // The replayed cached obs is not a second day total; the new one replaces it.
    const today = source.readingsAt(E + 90).find((r) => r.field === 'rain_in_today')!;
    expect(today.value).toBeCloseTo(0.21, 10);
    expect(today.observedEpoch).toBe(E + 60);
    expect(source.stats()).toMatchObject({ connects: 2, accepted: 4, rejected: 0, filtered: 0 });

    // After stop() the source stays down.
    await source.stop();
    await waitFor(() => second.socket.readyState === WebSocket.CLOSED, 'the connection to close');
    await sleep(100);
    expect(cloud.connections).toHaveLength(2);
  });

  it('keeps redialling with back-off while the server is down, and connects once it is up', async () => {
    const probe = await FakeTempestCloud.start();
    const port = probe.port;
    await probe.close();

    const { source, sink } = await startSource(`ws://127.0.0.1:${port}/swd/data`, {
      backoffInitialMs: 10,
      backoffMaxMs: 40,
    });
    await waitFor(() => sink.contacts.filter((c) => !c.ok).length >= 3, 'several failed attempts');
    expect(sink.contacts.every((c) => !c.ok && typeof c.note === 'string')).toBe(true);
    expect(sink.contacts[0]!.note).toMatch(/ECONNREFUSED/);

    const cloud = await startCloud(port);
    cloud.script = (conn) => conn.socket.send(wsObsSt(E, 0));
    await waitFor(() => sink.batches.length === 1, 'an observation after the server came up');
    expect(values(sink.batches[0]!).rain_in_last_min).toBeCloseTo(0.2 / 25.4, 10);
    expect(source.readingsAt(E)).toContainEqual({ field: 'rain_in_today', value: 0, observedEpoch: E });
    expect(sink.contacts[sink.contacts.length - 1]).toEqual({ ok: true });
  });

  it('ignores other devices, garbage and unknown frames; reports vendor errors and offline events', async () => {
    const cloud = await startCloud();
    cloud.script = (conn) => {
      conn.socket.send('not json');
      conn.socket.send('[1,2]');
      conn.socket.send(JSON.stringify({ type: 'obs_st', device_id: DEVICE_ID, obs: [[E, 1, 2]] }));
      conn.socket.send(wsObsSt(E, 1, 999));
      conn.socket.send(JSON.stringify({ type: 'evt_device_offline', device_id: DEVICE_ID }));
      conn.socket.send(
        JSON.stringify({ type: 'ack', status: { status_code: 401, status_message: 'UNAUTHORIZED' } }),
      );
      conn.socket.send(wsRapidWind(E + 6));
    };
    const { source, sink } = await startSource(cloud.url);
    await waitFor(() => sink.batches.length === 1, 'the one valid message');
    expect(values(sink.batches[0]!).rapid_wind_dir).toBe(298);
    expect(source.stats()).toMatchObject({ accepted: 1, rejected: 3, filtered: 1 });
    expect(sink.contacts).toContainEqual({ ok: false, note: 'the vendor cloud reports the station offline' });
    expect(sink.contacts).toContainEqual({ ok: false, note: 'vendor cloud: UNAUTHORIZED (status 401)' });
  });

  it('a refused token is reported as such, without the token', async () => {
    const cloud = await startCloud(0, (_info, cb) => cb(false, 401, 'Unauthorized'));
    const { sink } = await startSource(cloud.url, { backoffInitialMs: 1000 });
    await waitFor(() => sink.contacts.length >= 1, 'the failure');
    expect(sink.contacts[0]!.ok).toBe(false);
    expect(sink.contacts[0]!.note).toBe('the vendor refused the connection (HTTP 401): check the token');
  });

  it('drops a silent connection and redials', async () => {
    const cloud = await startCloud();
    const { sink } = await startSource(cloud.url, { staleAfterMs: 80 });
    await waitFor(() => cloud.connections.length >= 2, 'a redial after silence');
    expect(sink.contacts).toContainEqual({ ok: false, note: 'no message for 80 ms' });
  });
});

describe('tempest_ws back-off and config', () => {
  it('doubles from 1 s to a 60 s cap, with +-25 % jitter', () => {
    const mid = () => 0.5;
    expect([0, 1, 2, 3, 4, 5, 6, 7, 40].map((a) => backoffDelayMs(a, 1000, 60_000, mid))).toEqual([
      1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000,
    ]);
    expect(backoffDelayMs(0, 1000, 60_000, () => 0)).toBe(750);
    expect(backoffDelayMs(0, 1000, 60_000, () => 0.999999)).toBe(1250);
    expect(backoffDelayMs(10, 1000, 60_000, () => 0.999999)).toBe(60000);
    expect(backoffDelayMs(10, 1000, 60_000, () => 0)).toBe(45000);
  });

  it('needs a token and an integer device id; url defaults to the production endpoint', () => {
    expect(tempestWsConfigSchema.safeParse({ token: 'x', device_id: 1 }).success).toBe(true);
    expect(tempestWsConfigSchema.safeParse({ device_id: 1 }).success).toBe(false);
    expect(tempestWsConfigSchema.safeParse({ token: '', device_id: 1 }).success).toBe(false);
    expect(tempestWsConfigSchema.safeParse({ token: 'x', device_id: 1.5 }).success).toBe(false);
    expect(tempestWsConfigSchema.safeParse({ token: 'x', device_id: '12' }).success).toBe(false);
    expect(tempestWsConfigSchema.safeParse({ token: 'x', device_id: 1, url: 'http://x' }).success).toBe(
      false,
    );
    expect(tempestWsConfigSchema.safeParse({ token: 'x', device_id: 1, url: null }).success).toBe(true);
    expect(TEMPEST_WS_DEFAULT_URL).toBe('wss://ws.weatherflow.com/swd/data');
    expect(tempestWsKind.kind).toBe('tempest_ws');
    expect(tempestWsKind.cloud).toBeUndefined();
    const { ctx } = makeContext({ token: 'x', device_id: 7 });
    const source = tempestWsKind.create(ctx) as TempestWsSource;
    expect(source.endpoint).toBe(TEMPEST_WS_DEFAULT_URL);
  });
});
