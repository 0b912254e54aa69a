import request from 'supertest';
import { answersFor, serviceNames, serviceRecords, SERVICE_TYPE } from '../../server/src/lan/service-records';
import { mdnsAnswer, mdnsQuery, txtPairs } from '../helpers/mdns-query';
import { serviceTracker } from '../helpers/service';
import { freeUdpPort } from '../helpers/udp-port';

/**
 * The service announces itself as `_raincheck._tcp` over mDNS: asked by a
 * real DNS-SD query (UDP, on loopback), it answers with the install uuid,
 * the API version and base path, the port it listens on and its addresses.
 */

const services = serviceTracker();

async function bootAdvertising() {
  const mdnsPort = await freeUdpPort();
  const booted = await services.boot({
    env: {
      DEMO: '1',
      RAINCHECK_MDNS: '1',
      RAINCHECK_MDNS_ADDRESS: '127.0.0.1',
      RAINCHECK_MDNS_PORT: String(mdnsPort),
    },
  });
  return { booted, mdnsPort };
}

describe('the mDNS record', () => {
  it('answers a PTR query for _raincheck._tcp with the uuid, API version, base path and port', async () => {
    const { booted, mdnsPort } = await bootAdvertising();
    const info = await request(booted.service.server).get('/api/v1/info').expect(200);
    const reply = await mdnsAnswer(mdnsPort, [{ name: SERVICE_TYPE, type: 'PTR' }]);
    const records = [...reply.answers, ...reply.additionals];
    const names = serviceNames(info.body.uuid as string);
    expect(records.find((r) => r.type === 'PTR')).toMatchObject({ name: SERVICE_TYPE, data: names.instance });
    expect(records.find((r) => r.type === 'SRV')).toMatchObject({
      name: names.instance,
      data: { port: booted.port, target: names.host },
    });
    expect(txtPairs(records.find((r) => r.type === 'TXT'))).toEqual({
      uuid: info.body.uuid,
      api_version: info.body.api_version,
      base_path: info.body.api_prefix,
      version: info.body.service_version,
    });
    expect(records.find((r) => r.type === 'A')).toMatchObject({ name: names.host, data: '127.0.0.1' });
  });

  it('stays silent for other services, and is gone once the service stops', async () => {
    const { booted, mdnsPort } = await bootAdvertising();
    await mdnsAnswer(mdnsPort, [{ name: SERVICE_TYPE, type: 'PTR' }]);
    expect(await mdnsQuery(mdnsPort, [{ name: '_http._tcp.local', type: 'PTR' }], 800)).toBeNull();
    await booted.service.stop();
    expect(await mdnsQuery(mdnsPort, [{ name: SERVICE_TYPE, type: 'PTR' }], 800)).toBeNull();
  });

  it('advertises nothing when RAINCHECK_MDNS is 0', async () => {
    const mdnsPort = await freeUdpPort();
    await services.boot({
      env: {
        DEMO: '1',
        RAINCHECK_MDNS: '0',
        RAINCHECK_MDNS_ADDRESS: '127.0.0.1',
        RAINCHECK_MDNS_PORT: String(mdnsPort),
      },
    });
    expect(await mdnsQuery(mdnsPort, [{ name: SERVICE_TYPE, type: 'PTR' }], 800)).toBeNull();
  });
});

describe('which records answer which question', () => {
  const facts = {
    uuid: '3f2c9a7e-1b2c-4d5e-8f90-123456789abc',
    port: 62011,
    apiVersion: '2.4.0',
    basePath: '/api/v1',
    serviceVersion: '0.1.0',
    addresses: ['192.168.1.20'],
  };
  const names = serviceNames(facts.uuid);

  it('names the instance and host after the install id', () => {
    expect(names).toEqual({
      instance: 'Raincheck 3f2c9a7e._raincheck._tcp.local',
      host: 'raincheck-3f2c9a7e.local',
    });
  });

  it('answers service enumeration, the instance, and the host address', () => {
    expect(answersFor([{ name: '_services._dns-sd._udp.local', type: 'PTR' }], facts)).toEqual([
      expect.objectContaining({ type: 'PTR', data: SERVICE_TYPE }),
    ]);
    const srv = answersFor([{ name: names.instance, type: 'SRV' }], facts).map((a) => a.type);
    expect(srv).toEqual(['SRV', 'A']);
    expect(answersFor([{ name: names.host, type: 'A' }], facts)).toEqual([
      expect.objectContaining({ type: 'A', data: '192.168.1.20' }),
    ]);
    expect(answersFor([{ name: 'other.local', type: 'A' }], facts)).toEqual([]);
  });

  it('says goodbye with TTL 0', () => {
    for (const record of serviceRecords(facts, 0)) expect((record as { ttl: number }).ttl).toBe(0);
  });
});
