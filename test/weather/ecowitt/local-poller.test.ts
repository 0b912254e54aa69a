import { performance } from 'node:perf_hooks';
import {
  EcowittLocalSource,
  ecowittLocalConfigSchema,
  ecowittLocalKind,
  gatewayBaseUrl,
  type EcowittLocalOptions,
} from '../../../server/src/weather/sources/ecowitt/local-poller';
import {
  FakeGateway,
  extraOf,
  livedataFixture,
  livedataFixtureText,
  makeContext,
  readingOf,
  refusedHost,
  valueOf,
  type Reply,
} from './helpers';

const VERSION_BODY = JSON.stringify({
  version: 'Version: GW1100A_V2.3.4',
  newVersion: '0',
  platform: 'ecowitt',
});

function fixtureGateway(): FakeGateway {
  return new FakeGateway((path): Reply => {
    if (path === '/get_livedata_info') return { status: 200, body: livedataFixtureText() };
    if (path === '/get_version') return { status: 200, body: VERSION_BODY };
    return { status: 404, body: '{}' };
  });
}

const gateways: FakeGateway[] = [];
const sources: EcowittLocalSource[] = [];

async function startGateway(gateway: FakeGateway): Promise<FakeGateway> {
  gateways.push(gateway);
  return gateway.start();
}

function source(
  host: string,
  overrides: Partial<EcowittLocalOptions> = {},
  config: Record<string, unknown> = {},
): { src: EcowittLocalSource } & ReturnType<typeof makeContext> {
  const made = makeContext({ host, ...config });
  const src = new EcowittLocalSource(made.ctx, {
    host,
    pollIntervalMs: 60_000,
    timeoutMs: 2000,
    rainGauge: 'auto',
    ...overrides,
  });
  sources.push(src);
  return { src, ...made };
}

afterEach(async () => {
  for (const src of sources.splice(0)) await src.stop();
  for (const gateway of gateways.splice(0)) await gateway.close();
});

describe('ecowitt_local poller against a loopback gateway', () => {
  it('polls on its schedule and publishes the converted fixture each time', async () => {
    const gateway = await startGateway(fixtureGateway());
    const arrivals: number[] = [];
    const handler = gateway.handler;
    gateway.handler = (path) => {
      if (path === '/get_livedata_info') arrivals.push(performance.now());
      return handler(path);
    };
    const { src, sink, clock } = source(gateway.host, { pollIntervalMs: 120 });
    const startEpoch = clock.nowMs() / 1000;

    const startedAt = performance.now();
    await src.start();
    await sink.until(() => sink.batches.length >= 3);
    await src.stop();

    expect(sink.batches.length).toBeGreaterThanOrEqual(3);
    expect(sink.contacts.every((c) => c.ok)).toBe(true);
    expect(sink.contacts.length).toBe(sink.batches.length);
    // The third poll cannot start before two intervals have passed, and follows them closely.
    // Node's timers are millisecond-granular and may fire up to 1 ms early on the monotonic clock.
    expect(arrivals[2]! - startedAt).toBeGreaterThanOrEqual(240 - 2);
    expect(arrivals[2]! - startedAt).toBeLessThan(240 + 3000);
    for (const batch of sink.batches) {
      expect(valueOf(batch, 'air_temp_f')).toBeCloseTo(74.3, 6);
      expect(readingOf(batch, 'air_temp_f')?.observedEpoch).toBe(startEpoch);
      expect(extraOf(batch, 'soil_moisture_pct:3')?.value).toBe(27);
    }
    // /get_version is asked once and fills the device record.
    expect(gateway.paths.filter((p) => p === '/get_version')).toHaveLength(1);
    expect(sink.batches[0]!.devices![0]).toMatchObject({
      kind: 'gateway',
      model: 'GW1100A',
      firmware: 'V2.3.4',
      host: gateway.host,
    });
    // The fixture's last strike is forwarded once, not on every poll.
    expect(sink.batches[0]!.strikes).toHaveLength(1);
    expect(sink.batches[1]!.strikes).toBeUndefined();
  });

  it('is built by the kind from its config and polls at once on start', async () => {
    const gateway = await startGateway(fixtureGateway());
    const { ctx, sink } = makeContext({ host: `http://${gateway.host}/` });
    const src = ecowittLocalKind.create(ctx) as EcowittLocalSource;
    sources.push(src);
    expect(src.kind).toBe('ecowitt_local');
    expect(src.id).toBe('gw1');
    await src.start();
    await sink.until(() => sink.batches.length === 1);
    expect(valueOf(sink.batches[0]!, 'pressure_inhg')).toBeCloseTo(29.3233, 4);
  });

  it('reports contact(false) and publishes nothing on HTTP 500', async () => {
    const gateway = await startGateway(new FakeGateway(() => ({ status: 500, body: 'oops' })));
    const { src, sink } = source(gateway.host);
    expect(await src.pollOnce()).toBe(false);
    expect(sink.batches).toEqual([]);
    expect(sink.contacts).toEqual([{ ok: false, note: 'gateway answered HTTP 500 for /get_livedata_info' }]);
  });

  it('reports contact(false) for a body that is not JSON', async () => {
    const gateway = await startGateway(
      new FakeGateway(() => ({ status: 200, body: '<html>login</html>', contentType: 'text/html' })),
    );
    const { src, sink } = source(gateway.host);
    expect(await src.pollOnce()).toBe(false);
    expect(sink.batches).toEqual([]);
    expect(sink.contacts).toEqual([{ ok: false, note: 'gateway answer for /get_livedata_info is not JSON' }]);
  });

  it('reports contact(false) for JSON that is not livedata, or has no data', async () => {
    const bodies = ['[1,2,3]', '{}', '{"common_list": [{"id": "0x02", "val": "--.-"}]}'];
    let i = 0;
    const gateway = await startGateway(new FakeGateway(() => ({ status: 200, body: bodies[i] ?? '{}' })));
    const { src, sink } = source(gateway.host);
    for (i = 0; i < bodies.length; i += 1) expect(await src.pollOnce()).toBe(false);
    expect(sink.batches).toEqual([]);
    expect(sink.contacts.map((c) => c.ok)).toEqual([false, false, false]);
    expect(sink.contacts[0]!.note).toMatch(/^unparsable \/get_livedata_info/);
    expect(sink.contacts[1]!.note).toBe('gateway answered without any live data');
  });

  it('reports contact(false) when nothing listens', async () => {
    const host = await refusedHost();
    const { src, sink } = source(host);
    expect(await src.pollOnce()).toBe(false);
    expect(sink.batches).toEqual([]);
    expect(sink.contacts).toHaveLength(1);
    expect(sink.contacts[0]!.ok).toBe(false);
    expect(sink.contacts[0]!.note).toBe(`cannot reach ${host}: ECONNREFUSED`);
  });

  it('gives up on a gateway that does not answer within the timeout', async () => {
    const gateway = await startGateway(new FakeGateway(() => 'hang'));
    const { src, sink } = source(gateway.host, { timeoutMs: 150 });
    expect(await src.pollOnce()).toBe(false);
    expect(sink.batches).toEqual([]);
    expect(sink.contacts).toEqual([{ ok: false, note: `no answer from ${gateway.host} within 0.2 s` }]);
  });

  it('recovers: a good poll after failures publishes and reports contact(true)', async () => {
    let status = 503;
    const gateway = await startGateway(
      new FakeGateway((path) =>
        path === '/get_livedata_info' ? { status, body: livedataFixtureText() } : { status: 404, body: '' },
      ),
    );
    const { src, sink } = source(gateway.host);
    expect(await src.pollOnce()).toBe(false);
    status = 200;
    expect(await src.pollOnce()).toBe(true);
    expect(sink.contacts.map((c) => c.ok)).toEqual([false, true]);
    expect(sink.batches).toHaveLength(1);
    expect(sink.batches[0]!.devices![0]!.model).toBeNull(); // /get_version answered 404
  });

  it('abandons a poll in flight on stop without reporting anything', async () => {
    const gateway = await startGateway(new FakeGateway(() => 'hang'));
    const { src, sink } = source(gateway.host, { timeoutMs: 5000 });
    await src.start();
    while (gateway.paths.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await src.stop();
    expect(gateway.paths).toEqual(['/get_livedata_info']);
    expect(sink.contacts).toEqual([]);
    expect(sink.batches).toEqual([]);
  });

  it('turns the lightning day count into per-interval strikes between polls', async () => {
    const body = livedataFixture() as { lightning: { count: string; timestamp: string }[] };
    const gateway = await startGateway(new FakeGateway(() => ({ status: 200, body: JSON.stringify(body) })));
    const { src, sink, clock } = source(gateway.host);
    body.lightning[0]!.count = '4';
    await src.pollOnce();
    clock.advance(60_000);
    body.lightning[0]!.count = '7';
    body.lightning[0]!.timestamp = '07/16/2024 06:59:30'; // CDT, 30 s before this poll
    await src.pollOnce();
    clock.advance(60_000);
    await src.pollOnce();

    const [first, second, third] = sink.batches;
    expect(readingOf(first!, 'lightning_count_last_min')).toBeUndefined(); // no previous count
    expect(valueOf(second!, 'lightning_count_last_min')).toBe(3);
    expect(valueOf(second!, 'lightning_avg_dist_mi')).toBeCloseTo(7.4565, 4);
    expect(second!.strikes).toEqual([
      {
        epoch: Date.UTC(2024, 6, 16, 11, 59, 30) / 1000,
        distanceMi: expect.closeTo(7.4565, 4),
        energy: null,
      },
    ]);
    expect(valueOf(third!, 'lightning_count_last_min')).toBe(0);
    expect(readingOf(third!, 'lightning_avg_dist_mi')?.value).toBeNull();
    expect(third!.strikes).toBeUndefined();
  });

  it("answers today's rain as unknown once the local day has turned without a poll", async () => {
    const gateway = await startGateway(fixtureGateway());
    const { src, clock } = source(gateway.host);
    expect(await src.pollOnce()).toBe(true);
    const polled = clock.nowMs() / 1000; // 07:00 CDT on 2024-07-16
    expect(src.readingsAt(polled + 3600)).toEqual([]);
    const nextMidnight = Date.UTC(2024, 6, 17, 5, 0, 0) / 1000; // 00:00 CDT
    expect(src.readingsAt(nextMidnight - 1)).toEqual([]);
    expect(src.readingsAt(nextMidnight + 120)).toEqual([
      { field: 'rain_in_today', value: null, observedEpoch: polled },
    ]);
  });
});

describe('ecowitt_local config', () => {
  it('fills defaults and bounds the poll interval to 15..3600 s', () => {
    expect(ecowittLocalConfigSchema.parse({ host: '192.168.1.50' })).toEqual({
      host: '192.168.1.50',
      poll_interval_s: 60,
      rain_gauge: 'auto',
    });
    expect(ecowittLocalConfigSchema.safeParse({ host: 'gw.local', poll_interval_s: 15 }).success).toBe(true);
    expect(ecowittLocalConfigSchema.safeParse({ host: 'gw.local', poll_interval_s: 3600 }).success).toBe(
      true,
    );
    expect(ecowittLocalConfigSchema.safeParse({ host: 'gw.local', poll_interval_s: 14 }).success).toBe(false);
    expect(ecowittLocalConfigSchema.safeParse({ host: 'gw.local', poll_interval_s: 3601 }).success).toBe(
      false,
    );
    expect(ecowittLocalConfigSchema.safeParse({ host: 'gw.local', poll_interval_s: 30.5 }).success).toBe(
      false,
    );
    expect(ecowittLocalConfigSchema.safeParse({ host: 'gw.local', rain_gauge: 'bucket' }).success).toBe(
      false,
    );
    expect(ecowittLocalConfigSchema.safeParse({ host: 'gw.local', rain_gauge: 'piezo' }).success).toBe(true);
  });

  it('requires a host and accepts the usual spellings of one', () => {
    expect(ecowittLocalConfigSchema.safeParse({}).success).toBe(false);
    expect(ecowittLocalConfigSchema.safeParse({ host: '' }).success).toBe(false);
    for (const host of [
      '192.168.1.50',
      '192.168.1.50:8080',
      'http://192.168.1.50/',
      'gw2000.lan',
      '[fd00::5]:80',
    ]) {
      expect(ecowittLocalConfigSchema.safeParse({ host }).success).toBe(true);
    }
    for (const host of ['192.168.1.50/get_livedata_info', 'ftp://gw', 'gw lan']) {
      expect(ecowittLocalConfigSchema.safeParse({ host }).success).toBe(false);
    }
    expect(gatewayBaseUrl('192.168.1.50')).toBe('http://192.168.1.50');
    expect(gatewayBaseUrl('http://192.168.1.50/')).toBe('http://192.168.1.50');
  });

  it('names what it provides', () => {
    expect(ecowittLocalKind.kind).toBe('ecowitt_local');
    expect(ecowittLocalKind.provides).toEqual(
      expect.arrayContaining(['air_temp_f', 'pressure_inhg', 'rain_in_today', 'solar_w_m2']),
    );
  });
});
