import dgram from 'node:dgram';
import { EventEmitter } from 'node:events';
import type { AddressInfo } from 'node:net';
import * as dnsPacket from 'dns-packet';
import makeMdns from 'multicast-dns';
import type { ResponsePacket } from 'multicast-dns';
import request from 'supertest';
import { sweepControllers, type MdnsFactory, type MdnsLink } from '../../server/src/wizard/controller-sweep';
import { MdnsRecords } from '../../server/src/wizard/mdns-records';
import { serviceTracker } from '../helpers/service';

/**
 * GET /wizard/discover's controller sweep (spec 4.6: one LAN sweep for
 * stations, gateway broadcasts and controllers): the records an mDNS answer
 * carries, the sweep's window and failures with an injected socket, the route,
 * and the real multicast-dns library on loopback with a second instance
 * answering as the devices.
 */

const services = serviceTracker();

type Records = { answers: dnsPacket.Answer[]; additionals?: dnsPacket.Answer[] };

/** Real wire format: encoded and decoded by the DNS codec multicast-dns uses. */
function wire(records: Records): ResponsePacket {
  const encoded = dnsPacket.encode({
    type: 'response',
    flags: dnsPacket.AUTHORITATIVE_ANSWER,
    answers: records.answers,
    additionals: records.additionals ?? [],
  });
  return dnsPacket.decode(encoded) as ResponsePacket;
}

/** An ESPHome device with web_server on 8080, an OpenSprinkler, a printer: as they would answer. */
const ESPHOME: Records = {
  answers: [
    { name: '_esphomelib._tcp.local', type: 'PTR', ttl: 120, data: 'garden-valves._esphomelib._tcp.local' },
  ],
  additionals: [
    {
      name: 'garden-valves._esphomelib._tcp.local',
      type: 'SRV',
      ttl: 120,
      data: { port: 6053, target: 'garden-valves.local' },
    },
    {
      name: 'garden-valves._esphomelib._tcp.local',
      type: 'TXT',
      ttl: 120,
      data: ['friendly_name=Garden Valves', 'version=2025.1.0', 'mac=aabbccddeeff'],
    },
    { name: 'garden-valves.local', type: 'A', ttl: 120, data: '192.168.1.50' },
  ],
};
const ESPHOME_WEB: Records = {
  answers: [{ name: '_http._tcp.local', type: 'PTR', ttl: 120, data: 'garden-valves._http._tcp.local' }],
  additionals: [
    {
      name: 'garden-valves._http._tcp.local',
      type: 'SRV',
      ttl: 120,
      data: { port: 8080, target: 'garden-valves.local' },
    },
  ],
};
const OPENSPRINKLER: Records = {
  answers: [
    { name: '_http._tcp.local', type: 'PTR', ttl: 120, data: 'OpenSprinkler-3F2A._http._tcp.local' },
    {
      name: 'OPENSPRINKLER-3f2a._http._tcp.local',
      type: 'SRV',
      ttl: 120,
      data: { port: 8080, target: 'os-3f2a.local' },
    },
    { name: 'os-3f2a.local', type: 'A', ttl: 120, data: '192.168.1.40' },
  ],
};
const PRINTER: Records = {
  answers: [{ name: '_http._tcp.local', type: 'PTR', ttl: 120, data: 'Office Printer._http._tcp.local' }],
  additionals: [
    {
      name: 'Office Printer._http._tcp.local',
      type: 'SRV',
      ttl: 120,
      data: { port: 631, target: 'printer.local' },
    },
    { name: 'printer.local', type: 'A', ttl: 120, data: '192.168.1.9' },
  ],
};

const GARDEN_VALVES = {
  kind: 'esphome',
  name: 'Garden Valves',
  host: '192.168.1.50',
  port: 6053,
  source: 'mdns',
  suggested_controller: { kind: 'esphome_native', config: { base_url: 'http://192.168.1.50:8080' } },
};
const OPENSPRINKLER_3F2A = {
  kind: 'opensprinkler',
  name: 'OpenSprinkler-3F2A',
  host: '192.168.1.40',
  port: 8080,
  source: 'mdns',
  suggested_controller: { kind: 'opensprinkler', config: { host: '192.168.1.40', port: 8080 } },
};

function from(address: string): dgram.RemoteInfo {
  return { address, family: 'IPv4', port: 5353, size: 0 };
}

describe('MdnsRecords', () => {
  it('reads ESPHome and OpenSprinkler answers and leaves other http services out', () => {
    const records = new MdnsRecords();
    for (const sample of [PRINTER, OPENSPRINKLER, ESPHOME_WEB, ESPHOME]) {
      const packet = wire(sample);
      records.add([...packet.answers, ...packet.additionals], '192.168.1.77');
    }
    expect(records.controllers()).toEqual([GARDEN_VALVES, OPENSPRINKLER_3F2A]);
  });

  it('falls back to the answering address and the default ports without SRV or A records', () => {
    const records = new MdnsRecords();
    const bare = wire({
      answers: [
        { name: '_esphomelib._tcp.local', type: 'PTR', data: 'porch._esphomelib._tcp.local' },
        // The same host is an ESPHome device: its web page is not taken for an OpenSprinkler.
        { name: '_http._tcp.local', type: 'PTR', data: 'opensprinkler-esp._http._tcp.local' },
      ],
    });
    records.add(bare.answers, '10.0.0.7');
    expect(records.controllers()).toEqual([
      {
        kind: 'esphome',
        name: 'porch',
        host: '10.0.0.7',
        port: 6053,
        source: 'mdns',
        suggested_controller: { kind: 'esphome_native', config: { base_url: 'http://10.0.0.7' } },
      },
    ]);
  });

  it('knows an OpenSprinkler by its host name when the instance name is generic', () => {
    const records = new MdnsRecords();
    const packet = wire({
      answers: [{ name: '_http._tcp.local', type: 'PTR', data: 'Sprinklers._http._tcp.local' }],
      additionals: [
        {
          name: 'sprinklers._http._tcp.local',
          type: 'SRV',
          data: { port: 80, target: 'OpenSprinkler.local' },
        },
      ],
    });
    records.add([...packet.answers, ...packet.additionals], '192.168.1.41');
    expect(records.controllers()).toEqual([
      expect.objectContaining({ kind: 'opensprinkler', name: 'Sprinklers', host: '192.168.1.41', port: 80 }),
    ]);
  });
});

/** A multicast-dns stand-in: answers each query once after `delayMs`, unless told otherwise. */
class FakeMdns extends EventEmitter implements MdnsLink {
  readonly queries: dnsPacket.Question[][] = [];
  destroyed = false;

  constructor(
    private readonly replies: Records[],
    private readonly options: { delayMs?: number; sendError?: Error; bindError?: Error } = {},
  ) {
    super();
    if (options.bindError) setImmediate(() => this.emit('error', options.bindError));
  }

  query(packet: { questions: dnsPacket.Question[] }, callback?: (err: Error | null) => void): void {
    this.queries.push(packet.questions);
    callback?.(this.options.sendError ?? null);
    setTimeout(() => {
      if (this.destroyed) return;
      for (const reply of this.replies) this.emit('response', wire(reply), from('192.168.1.50'));
      // Chatter the sweep must survive.
      this.emit('response', { answers: [null], additionals: undefined }, from('192.168.1.3'));
    }, this.options.delayMs ?? 5);
  }

  destroy(callback?: () => void): void {
    this.destroyed = true;
    setImmediate(() => callback?.());
  }
}

describe('sweepControllers', () => {
  it('sends one query, collects answers for the window, then closes the socket', async () => {
    const fake = new FakeMdns([ESPHOME, ESPHOME_WEB, OPENSPRINKLER, PRINTER]);
    const started = Date.now();
    const sweep = await sweepControllers(() => fake, 150);
    const elapsed = Date.now() - started;
    expect(sweep).toEqual({ controllers: [GARDEN_VALVES, OPENSPRINKLER_3F2A], note: null });
    expect(fake.queries).toEqual([
      [
        { name: '_esphomelib._tcp.local', type: 'PTR' },
        { name: '_http._tcp.local', type: 'PTR' },
      ],
    ]);
    expect(fake.destroyed).toBe(true);
    expect(elapsed).toBeGreaterThanOrEqual(140);
    expect(elapsed).toBeLessThan(1000);
  });

  it('ends early with an empty list and a note when the socket cannot bind', async () => {
    const fake = new FakeMdns([ESPHOME], { bindError: new Error('bind EADDRINUSE 0.0.0.0:5353') });
    const started = Date.now();
    const sweep = await sweepControllers(() => fake, 5000);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(sweep.controllers).toEqual([]);
    expect(sweep.note).toMatch(/mDNS.*EADDRINUSE/);
    expect(fake.destroyed).toBe(true);
  });

  it('notes a query that could not be sent (no multicast route)', async () => {
    const fake = new FakeMdns([], { sendError: new Error('send ENETUNREACH 224.0.0.251:5353') });
    const sweep = await sweepControllers(() => fake, 50);
    expect(sweep).toEqual({ controllers: [], note: expect.stringMatching(/ENETUNREACH/) });
    expect(fake.destroyed).toBe(true);
  });

  it('notes a socket that cannot be made', async () => {
    const sweep = await sweepControllers(() => {
      throw new Error('udp4 sockets are not available');
    }, 50);
    expect(sweep).toEqual({ controllers: [], note: expect.stringMatching(/not available/) });
  });

  it('finds nothing without a note on a quiet network', async () => {
    const fake = new FakeMdns([PRINTER]);
    expect(await sweepControllers(() => fake, 50)).toEqual({ controllers: [], note: null });
  });
});

async function freeUdpPort(): Promise<number> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address() as AddressInfo;
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}

describe('GET /wizard/discover', () => {
  it('reports the controllers beside the gateway broadcasts, within the listen time', async () => {
    const fakes: FakeMdns[] = [];
    const mdns: MdnsFactory = () => {
      const fake = new FakeMdns([ESPHOME, ESPHOME_WEB, OPENSPRINKLER]);
      fakes.push(fake);
      return fake;
    };
    const port = await freeUdpPort();
    const booted = await services.boot({ serviceOptions: { discovery: { listenMs: 200, port, mdns } } });
    const started = Date.now();
    const res = await request(booted.service.server).get('/api/v1/wizard/discover');
    const elapsed = Date.now() - started;
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      listened_ms: 200,
      gateways: [],
      error: null,
      controllers: [GARDEN_VALVES, OPENSPRINKLER_3F2A],
      controllers_note: null,
    });
    expect(elapsed).toBeLessThan(1500);
    expect(fakes).toHaveLength(1);
    expect(fakes[0]?.destroyed).toBe(true);
  });

  it('answers 200 with an empty list and a note when mDNS fails', async () => {
    const port = await freeUdpPort();
    const mdns: MdnsFactory = () => new FakeMdns([], { bindError: new Error('bind EACCES') });
    const booted = await services.boot({ serviceOptions: { discovery: { listenMs: 100, port, mdns } } });
    const res = await request(booted.service.server).get('/api/wizard/discover');
    expect(res.status).toBe(200);
    expect(res.body.controllers).toEqual([]);
    expect(res.body.controllers_note).toMatch(/EACCES/);
    expect(res.body.gateways).toEqual([]);
  });
});

describe('the real multicast-dns on loopback', () => {
  it('finds a device answering on the loopback multicast group', async () => {
    const port = await freeUdpPort();
    // Loopback only: nothing reaches the LAN. Bound to any address so the group's datagrams arrive.
    const options = { port, interface: '127.0.0.1', bind: '0.0.0.0', multicast: true, loopback: true };
    const device = makeMdns(options);
    const questions: string[] = [];
    device.on('query', (query) => {
      questions.push(...query.questions.map((q) => `${q.type} ${q.name}`));
      if (!query.questions.some((q) => q.name === '_esphomelib._tcp.local')) return;
      device.respond({
        answers: [...ESPHOME.answers, ...OPENSPRINKLER.answers],
        additionals: ESPHOME.additionals,
      });
    });
    await new Promise<void>((resolve) => device.once('ready', () => resolve()));
    try {
      const opened: MdnsLink[] = [];
      const sweep = await sweepControllers(() => {
        const link = makeMdns(options);
        opened.push(link);
        return link;
      }, 400);
      expect(questions).toEqual(['PTR _esphomelib._tcp.local', 'PTR _http._tcp.local']);
      expect(sweep.note).toBeNull();
      expect(sweep.controllers).toEqual([
        {
          ...GARDEN_VALVES,
          suggested_controller: { kind: 'esphome_native', config: { base_url: 'http://192.168.1.50' } },
        },
        OPENSPRINKLER_3F2A,
      ]);
      expect(opened).toHaveLength(1);
    } finally {
      await new Promise<void>((resolve) => device.destroy(() => resolve()));
    }
  });
});
