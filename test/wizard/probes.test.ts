import dgram from 'node:dgram';
import { EventEmitter } from 'node:events';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { json, LoopbackPeer, refusedBaseUrl, type PeerHandler } from '../helpers/loopback-peer';
import { serviceTracker, type BootedService } from '../helpers/service';

/**
 * The wizard's other probes over the real service: test_source, test_llm,
 * probe_soil (an Ecowitt gateway on loopback), discover and geocode (a
 * loopback Nominatim through RAINCHECK_GEOCODER_URL).
 */

const services = serviceTracker();
const API = '/api/v1/wizard';

const peers: LoopbackPeer[] = [];
async function startPeer(handler: PeerHandler): Promise<LoopbackPeer> {
  const peer = await new LoopbackPeer(handler).start();
  peers.push(peer);
  return peer;
}
afterEach(async () => {
  for (const peer of peers.splice(0)) await peer.close();
});

function post(booted: BootedService, route: string, body: unknown): request.Test {
  return request(booted.service.server)
    .post(`${API}/${route}`)
    .send(body as object);
}

describe('POST /wizard/test_source', () => {
  it('answers ok for a well-formed entry, deprecated', async () => {
    const booted = await services.boot();
    const res = await post(booted, 'test_source', {
      source: { id: 'station', kind: 'ecowitt_local', priority: 100, config: { host: '192.168.1.5' } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, deprecated: true, id: 'station', kind: 'ecowitt_local' });
    expect(res.headers.deprecation).toBe('true');
  });

  it('answers 400 for a malformed entry or body', async () => {
    const booted = await services.boot();
    const bad = await post(booted, 'test_source', {
      source: { id: 'has space', kind: 'x', priority: 'high' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('invalid_source');
    expect(bad.body.issues.map((i: { path: string }) => i.path)).toEqual(
      expect.arrayContaining(['id', 'priority']),
    );
    const missing = await post(booted, 'test_source', {});
    expect(missing.status).toBe(400);
  });
});

describe('POST /wizard/test_llm', () => {
  it('lists an ollama server models and whether the configured one is there', async () => {
    const ollama = await startPeer((req) =>
      req.path === '/api/tags'
        ? json(200, { models: [{ name: 'llama3:latest' }, { name: 'qwen2:7b' }] })
        : json(404, {}),
    );
    const booted = await services.boot();
    const res = await post(booted, 'test_llm', {
      llm: { provider: 'ollama', base_url: ollama.baseUrl, model: 'llama3' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      ok: true,
      provider: 'ollama',
      models: ['llama3:latest', 'qwen2:7b'],
      model_available: true,
    });
  });

  it('sends the api_key to an openai_compat server and restores a redacted one from the config', async () => {
    const server = await startPeer((req) =>
      req.path === '/v1/models' && req.headers.authorization === 'Bearer sk-local-1'
        ? json(200, { data: [{ id: 'gpt-local' }] })
        : json(401, { error: 'no' }),
    );
    const booted = await services.boot();
    const llm = { provider: 'openai_compat', base_url: server.baseUrl, model: 'gpt-local' };
    await request(booted.service.server)
      .put('/api/v1/config')
      .send({
        schema_version: 2,
        deployment: { location: { lat: 40.7, lon: -74 } },
        llm: { ...llm, api_key: 'sk-local-1' },
      })
      .expect(200);
    const res = await post(booted, 'test_llm', {
      llm: { ...llm, api_key: '***redacted***' },
    });
    expect(res.status).toBe(200);
    expect(res.body.models).toEqual(['gpt-local']);
  });

  it('answers 502 when the server is unreachable and 422 for an incomplete block', async () => {
    const booted = await services.boot();
    const down = await post(booted, 'test_llm', {
      llm: { provider: 'llamacpp', base_url: await refusedBaseUrl() },
    });
    expect(down.status).toBe(502);
    expect(down.body.code).toBe('llm_unreachable');
    const incomplete = await post(booted, 'test_llm', { llm: { provider: 'ollama' } });
    expect(incomplete.status).toBe(422);
    expect(incomplete.body.code).toBe('llm_invalid');
  });
});

describe('POST /wizard/probe_soil', () => {
  it('refuses an empty host and a non-LAN address with 422', async () => {
    const booted = await services.boot();
    const empty = await post(booted, 'probe_soil', { host: '  ' });
    expect(empty.status).toBe(422);
    expect(empty.body.code).toBe('host_required');
    const missing = await post(booted, 'probe_soil', {});
    expect(missing.status).toBe(422);
    const internet = await post(booted, 'probe_soil', { host: '8.8.8.8' });
    expect(internet.status).toBe(422);
    expect(internet.body.code).toBe('host_not_lan');
  });

  it('reads the live soil channels of a gateway on the LAN', async () => {
    const gateway = await startPeer((req) =>
      req.path === '/get_livedata_info'
        ? json(200, {
            common_list: [{ id: '0x02', val: '68.0', unit: 'F' }],
            ch_soil: [
              { channel: '2', name: 'Back bed', battery: '5', humidity: '41%' },
              { channel: '1', name: '', battery: '4', humidity: '23%' },
            ],
          })
        : json(404, {}),
    );
    const booted = await services.boot();
    const res = await post(booted, 'probe_soil', { host: new URL(gateway.baseUrl).host, source_id: 'gw' });
    expect(res.status).toBe(200);
    expect(res.body.address).toBe('127.0.0.1');
    expect(res.body.channels).toEqual([
      {
        channel: '1',
        key: 'soil_moisture_pct:1',
        name: 'Soil moisture CH1',
        moisture_pct: 23,
        battery: 4,
        sensor_id: 'source:gw:soil_moisture_pct:1',
      },
      {
        channel: '2',
        key: 'soil_moisture_pct:2',
        name: 'Back bed',
        moisture_pct: 41,
        battery: 5,
        sensor_id: 'source:gw:soil_moisture_pct:2',
      },
    ]);
  });

  it('answers 502 when the gateway does not answer', async () => {
    const booted = await services.boot();
    const res = await post(booted, 'probe_soil', { host: new URL(await refusedBaseUrl()).host });
    expect(res.status).toBe(502);
    expect(res.body.code).toBe('gateway_unreachable');
  });
});

describe('GET /wizard/geocode', () => {
  const places = Array.from({ length: 7 }, (_, i) => ({
    place_id: i,
    display_name: `Place ${i}, Springfield`,
    lat: `40.${i}`,
    lon: -74 - i / 10,
  }));

  it('answers up to 5 candidates with string coordinates and an identifying User-Agent', async () => {
    const nominatim = await startPeer(() => json(200, places));
    const booted = await services.boot({ env: { RAINCHECK_GEOCODER_URL: `${nominatim.baseUrl}/search` } });
    const res = await request(booted.service.server).get(`${API}/geocode`).query({ q: '12 Main St' });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(5);
    expect(res.body[0]).toEqual({ display_name: 'Place 0, Springfield', lat: '40.0', lon: '-74' });
    expect(res.body[1]).toEqual({ display_name: 'Place 1, Springfield', lat: '40.1', lon: '-74.1' });
    const seen = nominatim.requests[0];
    expect(seen?.path).toBe('/search');
    expect(seen?.query.get('q')).toBe('12 Main St');
    expect(seen?.query.get('format')).toBe('jsonv2');
    expect(seen?.query.get('limit')).toBe('5');
    expect(seen?.headers['user-agent']).toMatch(/^raincheck\/\S+ \(.+\)$/);
  });

  it('answers 400 for an empty q', async () => {
    const booted = await services.boot();
    const res = await request(booted.service.server).get(`${API}/geocode?q=%20`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_query');
  });

  it('answers 502 when the geocoder fails', async () => {
    const nominatim = await startPeer(() => json(503, { error: 'busy' }));
    const booted = await services.boot({ env: { RAINCHECK_GEOCODER_URL: `${nominatim.baseUrl}/search` } });
    const res = await request(booted.service.server).get(`${API}/geocode?q=anywhere`);
    expect(res.status).toBe(502);
    expect(res.body.code).toBe('geocode_failed');
  });
});

describe('GET /wizard/discover', () => {
  it('runs one LAN sweep for the configured listen time', async () => {
    const socket = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    const { port } = socket.address() as AddressInfo;
    await new Promise<void>((resolve) => socket.close(() => resolve()));
    // A quiet mDNS socket: tests never query the LAN (discover.test.ts covers the controllers).
    const mdns = () =>
      Object.assign(new EventEmitter(), { query: () => undefined, destroy: (done: () => void) => done() });
    const booted = await services.boot({ serviceOptions: { discovery: { listenMs: 100, port, mdns } } });
    const res = await request(booted.service.server).get(`${API}/discover`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      listened_ms: 100,
      gateways: [],
      error: null,
      controllers: [],
      controllers_note: null,
    });
  });
});
