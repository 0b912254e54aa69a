import dgram from 'node:dgram';
import {
  parseBindAddr,
  TempestUdpSource,
  tempestUdpConfigSchema,
  tempestUdpKind,
} from '../../../server/src/weather/sources/tempest/tempest-udp';
import { epochOf, line, makeContext, obsSt, reading, sleep, values, waitFor } from './helpers';

/**
 * Real datagrams over loopback: a dgram client sends to a tempest_udp source
 * bound on 127.0.0.1 with a system-chosen free port.
 */

const sources: TempestUdpSource[] = [];
let client: dgram.Socket;

beforeAll(() => {
  client = dgram.createSocket('udp4');
});

afterAll(async () => {
  await new Promise<void>((resolve) => client.close(() => resolve()));
});

afterEach(async () => {
  await Promise.all(sources.splice(0).map((s) => s.stop()));
});

async function startSource(
  config: Record<string, unknown> = {},
  options: { timezone?: string; nowMs?: number } = {},
) {
  const { ctx, sink } = makeContext({ bind_addr: '127.0.0.1:0', ...config }, options);
  const source = tempestUdpKind.create(ctx) as TempestUdpSource;
  sources.push(source);
  await source.start();
  const address = source.address();
  if (!address) throw new Error('source did not bind');
  const send = (text: string | Buffer) =>
    new Promise<void>((resolve, reject) =>
      client.send(text, address.port, '127.0.0.1', (err) => (err ? reject(err) : resolve())),
    );
  const handled = () => {
    const s = source.stats();
    return s.accepted + s.rejected + s.filtered;
  };
  /** Sends one datagram and waits until the source has handled it. */
  const deliver = async (text: string | Buffer) => {
    const before = handled();
    await send(text);
    await waitFor(() => handled() > before, 'the datagram to be handled');
  };
  return { source, sink, address, send, deliver };
}

describe('tempest_udp: real datagrams on loopback', () => {
  it('binds the configured address and port', async () => {
    const { address } = await startSource();
    expect(address.host).toBe('127.0.0.1');
    expect(address.port).toBeGreaterThan(0);
  });

  it('turns every message type into the right batch, with one contact per datagram', async () => {
    const { source, sink, deliver } = await startSource();
    for (let n = 1; n <= 17; n++) await deliver(line(n));
    expect(source.stats()).toEqual({ accepted: 17, rejected: 0, filtered: 0 });
    expect(sink.batches).toHaveLength(17);
    expect(sink.contacts).toHaveLength(17);
    expect(sink.contacts.every((c) => c.ok)).toBe(true);

    const [precip, strike, rapid, obs, air, sky, devStatus, hubStatus] = sink.batches;
    expect(precip).toEqual({ stationSerial: 'SK-00008453', hubSerial: 'HB-00000001' });
    expect(strike!.strikes![0]!.distanceMi).toBeCloseTo(16.777, 3);
    expect(values(rapid!).rapid_wind_mph).toBeCloseTo(5.145, 3);
    expect(values(obs!).air_temp_f).toBeCloseTo(72.27, 2);
    expect(values(obs!).wind_avg_mph).toBeCloseTo(0.49, 2);
    expect(values(obs!).pressure_inhg).toBeCloseTo(30.05, 2);
    expect(reading(obs!, 'air_temp_f')!.observedEpoch).toBe(1588948614);
    expect(values(air!).air_temp_f).toBe(50);
    expect(values(sky!).wind_dir_deg).toBe(187);
    expect(devStatus!.devices![0]!.kind).toBe('station');
    expect(hubStatus!.devices![0]!.kind).toBe('hub');
    // The hub's LAN address is where its datagram came from.
    expect(hubStatus!.devices![0]!.host).toBe('127.0.0.1');
    expect(hubStatus!.hubSerial).toBe('HB-00000001');

    const nulls = sink.batches[15]!;
    expect(nulls.readings).toBeUndefined();
    const lowPower = values(sink.batches[14]!);
    expect(lowPower).not.toHaveProperty('wind_avg_mph');
    expect(lowPower.rh_pct).toBe(94.45);
  });

  it('with hub_serial set, drops datagrams from other hubs', async () => {
    const { source, sink, deliver } = await startSource({ hub_serial: 'HB-00069665' });
    await deliver(line(4)); // hub HB-00013030
    await deliver(line(8)); // hub_status of HB-00000001
    await deliver(line(12)); // obs_st via HB-00069665
    await deliver(line(10)); // hub_status of HB-00069665 itself
    await deliver(line(2)); // strike via HB-00000001
    expect(source.stats()).toEqual({ accepted: 2, rejected: 0, filtered: 3 });
    expect(sink.batches.map((b) => b.hubSerial)).toEqual(['HB-00069665', 'HB-00069665']);
    expect(sink.batches[0]!.stationSerial).toBe('ST-00055227');
    expect(sink.contacts).toEqual([{ ok: true }, { ok: true }]);
  });

  it('matches hub_serial regardless of case and surrounding blanks', async () => {
    const { source, deliver } = await startSource({ hub_serial: ' hb-00069665 ' });
    await deliver(line(12));
    expect(source.stats().accepted).toBe(1);
  });

  it('accepts any hub when hub_serial is null', async () => {
    const { source, deliver } = await startSource({ hub_serial: null });
    await deliver(line(4));
    await deliver(line(12));
    expect(source.stats().accepted).toBe(2);
  });

  it('counts and ignores malformed datagrams, and keeps working', async () => {
    const { source, sink, deliver } = await startSource();
    const garbage = [
      Buffer.from([0xde, 0xad, 0xbe, 0xef, 0x00]),
      Buffer.alloc(0),
      'not json at all',
      '{"type":"obs_zz","obs":[[1,2,3]]}',
      '{"serial_number":"ST-1","type":"hello"}',
      '[1,2,3]',
      '{"type":"obs_st","obs":[[1588948614,0.18,0.22]]}',
      '{"type":"obs_st","obs":[1588948614,0.18,0.22,0.27,144,6,1017.57,22.37,50.26,328,0.03,3,0,0,0,0,2.41,1]}',
      '{"type":"rapid_wind","ob":"fast"}',
      '{"type":"device_status"}',
      line(4).slice(0, 30),
    ];
    for (const g of garbage) await deliver(g);
    expect(source.stats()).toEqual({ accepted: 0, rejected: garbage.length, filtered: 0 });
    expect(sink.batches).toHaveLength(0);
    expect(sink.contacts).toHaveLength(0);

    await deliver(line(4));
    expect(source.stats().accepted).toBe(1);
    expect(values(sink.last).air_temp_f).toBeCloseTo(72.27, 2);
  });

  it('a throwing sink does not stop the source', async () => {
    const { source, sink, deliver } = await startSource();
    let calls = 0;
    sink.publish = () => {
      calls++;
      throw new Error('sink exploded');
    };
    await deliver(line(4));
    await deliver(line(12));
    expect(calls).toBe(2);
    expect(source.stats().accepted).toBe(2);
  });

  it('stop() closes the socket: nothing is heard afterwards', async () => {
    const { source, sink, send, deliver } = await startSource();
    await deliver(line(3));
    await source.stop();
    expect(source.address()).toBeNull();
    await send(line(13));
    await sleep(50);
    expect(sink.batches).toHaveLength(1);
    expect(source.stats().accepted).toBe(1);
  });

  it('two sources can share one port (reuseAddr), as two entries for two hubs would', async () => {
    const a = await startSource();
    const { ctx, sink } = makeContext({ bind_addr: `127.0.0.1:${a.address.port}` });
    const b = new TempestUdpSource(ctx);
    sources.push(b);
    await b.start();
    expect(b.address()?.port).toBe(a.address.port);
    expect(sink.contacts.filter((c) => !c.ok)).toEqual([]);
  });

  it('a bind failure is a contact failure with a note, not a crash', async () => {
    const { ctx, sink } = makeContext({ bind_addr: '203.0.113.7:0' });
    const source = new TempestUdpSource(ctx, { rebindDelayMs: 60_000 });
    sources.push(source);
    await source.start();
    expect(source.address()).toBeNull();
    expect(sink.contacts).toHaveLength(1);
    expect(sink.contacts[0]!.ok).toBe(false);
    expect(sink.contacts[0]!.note).toMatch(/cannot listen on 203\.0\.113\.7:0/);
  });
});

describe('tempest_udp: rain today, summed from obs_st intervals, reset at local midnight', () => {
  const MM_PER_TENTH_INCH = 2.54;

  function rainToday(source: TempestUdpSource, nowEpoch: number) {
    return source.readingsAt(nowEpoch).find((r) => r.field === 'rain_in_today');
  }

  it('has no rain_in_today before any observation, nor after one whose rain is null', async () => {
    const { source, deliver } = await startSource();
    expect(source.readingsAt(epochOf('2026-03-08T12:00:00Z'))).toEqual([]);
    await deliver(line(16));
    expect(rainToday(source, 1640083867 + 60)).toBeUndefined();
  });

  it('accumulates across observations and counts a repeated datagram once', async () => {
    const { source, deliver } = await startSource({}, { timezone: 'America/Chicago' });
    const t0 = epochOf('2026-06-01T15:00:00Z');
    await deliver(obsSt(t0, 0));
    expect(rainToday(source, t0 + 10)).toEqual({ field: 'rain_in_today', value: 0, observedEpoch: t0 });
    await deliver(obsSt(t0 + 60, MM_PER_TENTH_INCH));
    await deliver(obsSt(t0 + 120, MM_PER_TENTH_INCH));
    await deliver(obsSt(t0 + 120, MM_PER_TENTH_INCH)); // the same datagram heard twice
    await deliver(obsSt(t0 + 180, null)); // no evidence: adds nothing
    await deliver(obsSt(t0 + 240, 5.08));
    const today = rainToday(source, t0 + 300)!;
    expect(today.value).toBeCloseTo(0.4, 10);
    expect(today.observedEpoch).toBe(t0 + 240);
  });

  it('America/New_York, 2026-03-08 (spring forward, a 23-hour day)', async () => {
    const { source, deliver } = await startSource({}, { nowMs: Date.UTC(2026, 2, 8, 4) });
    // 2026-03-07 23:50 EST.
    const e1 = epochOf('2026-03-08T04:50:00Z');
    await deliver(obsSt(e1, 1.27));
    expect(rainToday(source, e1 + 60)!.value).toBeCloseTo(0.05, 10);
    // 00:10 EST on the 8th: a new local day.
    const e2 = epochOf('2026-03-08T05:10:00Z');
    expect(rainToday(source, epochOf('2026-03-08T05:00:01Z'))).toEqual({
      field: 'rain_in_today',
      value: 0,
      observedEpoch: e1,
    });
    await deliver(obsSt(e2, MM_PER_TENTH_INCH));
    expect(rainToday(source, e2)!.value).toBeCloseTo(0.1, 10);
    // 03:30 EDT, after the skipped hour.
    await deliver(obsSt(epochOf('2026-03-08T07:30:00Z'), MM_PER_TENTH_INCH));
    // 23:50 EDT on the 8th (a fixed EST offset would still say the 8th too).
    const e4 = epochOf('2026-03-09T03:50:00Z');
    await deliver(obsSt(e4, MM_PER_TENTH_INCH));
    expect(rainToday(source, epochOf('2026-03-09T03:59:59Z'))!.value).toBeCloseTo(0.3, 10);
    // Local midnight of the 9th is 04:00Z (EDT), not 05:00Z: the total resets with no packet.
    expect(rainToday(source, epochOf('2026-03-09T04:00:01Z'))).toEqual({
      field: 'rain_in_today',
      value: 0,
      observedEpoch: e4,
    });
    // 00:10 EDT on the 9th (a fixed EST offset would call it 23:10 on the 8th and keep adding).
    const e5 = epochOf('2026-03-09T04:10:00Z');
    await deliver(obsSt(e5, 2 * MM_PER_TENTH_INCH));
    expect(rainToday(source, e5 + 30)).toEqual({ field: 'rain_in_today', value: 0.2, observedEpoch: e5 });
  });

  it('America/New_York, 2026-11-01 (fall back, a 25-hour day)', async () => {
    const { source, deliver } = await startSource({}, { nowMs: Date.UTC(2026, 10, 1, 3) });
    // 2026-10-31 23:50 EDT.
    await deliver(obsSt(epochOf('2026-11-01T03:50:00Z'), MM_PER_TENTH_INCH));
    // 00:10 EDT on the 1st: new day.
    await deliver(obsSt(epochOf('2026-11-01T04:10:00Z'), MM_PER_TENTH_INCH));
    expect(rainToday(source, epochOf('2026-11-01T04:11:00Z'))!.value).toBeCloseTo(0.1, 10);
    // 01:30 EDT and 01:30 EST: the repeated hour is the same day, both count.
    await deliver(obsSt(epochOf('2026-11-01T05:30:00Z'), MM_PER_TENTH_INCH));
    await deliver(obsSt(epochOf('2026-11-01T06:30:00Z'), MM_PER_TENTH_INCH));
    // 23:30 EST on the 1st (a fixed EDT offset would call it 00:30 on the 2nd and reset).
    const last = epochOf('2026-11-02T04:30:00Z');
    await deliver(obsSt(last, MM_PER_TENTH_INCH));
    expect(rainToday(source, epochOf('2026-11-02T04:59:59Z'))!.value).toBeCloseTo(0.4, 10);
    // Local midnight of the 2nd is 05:00Z (EST).
    expect(rainToday(source, epochOf('2026-11-02T05:00:01Z'))).toEqual({
      field: 'rain_in_today',
      value: 0,
      observedEpoch: last,
    });
    // A measured dry minute after midnight: 0 with its own observation time.
    const dry = epochOf('2026-11-02T05:10:00Z');
    await deliver(obsSt(dry, 0));
    expect(rainToday(source, dry + 5)).toEqual({ field: 'rain_in_today', value: 0, observedEpoch: dry });
  });
});

describe('tempest_udp: strikes in the last hour', () => {
  it('takes the larger of interval counts and strike events, and decays to 0', async () => {
    const { source, deliver } = await startSource();
    const t = epochOf('2026-07-04T20:00:00Z');
    expect(source.readingsAt(t).find((r) => r.field === 'lightning_strikes_last_hour')).toBeUndefined();
    await deliver(obsSt(t, 0, { strikes: 3, distKm: 10 }));
    await deliver(
      JSON.stringify({
        serial_number: 'ST-00000512',
        type: 'evt_strike',
        hub_sn: 'HB-1',
        evt: [t + 10, 8, 500],
      }),
    );
    const strikes = (now: number) =>
      source.readingsAt(now).find((r) => r.field === 'lightning_strikes_last_hour');
    expect(strikes(t + 20)).toEqual({
      field: 'lightning_strikes_last_hour',
      value: 3,
      observedEpoch: t + 10,
    });
    expect(strikes(t + 3700)!.value).toBe(0);
  });
});

describe('tempest_udp config', () => {
  it('defaults bind_addr to 0.0.0.0:50222 and hub_serial to any hub', () => {
    expect(tempestUdpConfigSchema.parse({})).toEqual({ bind_addr: '0.0.0.0:50222' });
    expect(tempestUdpKind.configSchema.safeParse({ bind_addr: 'nonsense' }).success).toBe(false);
    expect(tempestUdpKind.configSchema.safeParse({ bind_addr: '0.0.0.0:70000' }).success).toBe(false);
    expect(tempestUdpKind.configSchema.safeParse({ hub_serial: null }).success).toBe(true);
    expect(tempestUdpKind.kind).toBe('tempest_udp');
    expect(tempestUdpKind.cloud).toBeUndefined();
    expect(tempestUdpKind.provides).toEqual(
      expect.arrayContaining(['air_temp_f', 'rain_in_today', 'battery_v']),
    );
    expect(tempestUdpKind.provides).not.toContain('battery_pct');
  });

  it.each([
    ['0.0.0.0:50222', { host: '0.0.0.0', port: 50222 }],
    ['127.0.0.1:0', { host: '127.0.0.1', port: 0 }],
    [':50222', { host: '0.0.0.0', port: 50222 }],
    ['50222', { host: '0.0.0.0', port: 50222 }],
    ['[::]:50222', { host: '::', port: 50222 }],
    ['[fe80::1]:1', { host: 'fe80::1', port: 1 }],
    ['hub.local:50222', { host: 'hub.local', port: 50222 }],
  ])('parseBindAddr(%s)', (text, expected) => {
    expect(parseBindAddr(text)).toEqual(expected);
  });

  it.each(['', '0.0.0.0', '0.0.0.0:', '0.0.0.0:port', '1.2.3.4:65536', '::1:50222', '[nothost]:1', 'a b:1'])(
    'parseBindAddr(%j) is null',
    (text) => {
      expect(parseBindAddr(text)).toBeNull();
    },
  );
});
