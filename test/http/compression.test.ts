import http from 'node:http';
import { gunzipSync } from 'node:zlib';
import { acceptsGzip } from '../../server/src/http/accept-encoding';
import { gzipBytes, jsonBytes } from '../../server/src/http/encoded-json';
import { quietDemoClock, serviceTracker, type BootedService } from '../helpers/service';

/**
 * Compressed JSON and snapshots served from bytes serialised once per change,
 * over the real service (demo) with raw HTTP, so the bytes on the wire are
 * what is checked (no client decompresses for us).
 */

const services = serviceTracker();

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function get(booted: BootedService, path: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port: booted.port, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    });
    req.on('error', reject);
  });
}

const demo = () => services.boot({ env: { DEMO: '1' }, serviceOptions: { clock: quietDemoClock() } });

describe('snapshots from cached bytes', () => {
  it.each(['/api/v1/irrigation/snapshot', '/api/v1/forecast/snapshot'])(
    '%s: gzip when accepted, the same JSON either way, Vary on both',
    async (path) => {
      const booted = await demo();
      const plain = await get(booted, path);
      const packed = await get(booted, path, { 'Accept-Encoding': 'gzip, deflate, br' });
      expect(plain.status).toBe(200);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(plain.headers.vary).toMatch(/Accept-Encoding/i);
      expect(packed.headers['content-encoding']).toBe('gzip');
      expect(packed.headers.vary).toMatch(/Accept-Encoding/i);
      const unpacked = JSON.parse(gunzipSync(packed.body).toString('utf8')) as Record<string, unknown>;
      const parsed = JSON.parse(plain.body.toString('utf8')) as Record<string, unknown>;
      expect(Object.keys(unpacked).sort()).toEqual(Object.keys(parsed).sort());
      expect(packed.body.length).toBeLessThan(plain.body.length / 3);
    },
  );

  it('answers the irrigation snapshot with the very bytes of the published object until it changes', async () => {
    const booted = await demo();
    let published: object | null = null;
    booted.service.bus.on('irrigation.snapshot', (snapshot) => (published = snapshot));
    const act = await fetch(`http://127.0.0.1:${booted.port}/api/v1/irrigation/action`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ kind: 'set_zone_override', zone: 'front_lawn', mode: 'skip' }),
    });
    expect(act.status).toBe(200);
    if (!published) throw new Error('no irrigation snapshot was published');
    const snapshot: object = published;
    const first = await get(booted, '/api/v1/irrigation/snapshot');
    expect(first.body.equals(jsonBytes(snapshot))).toBe(true);
    // Serialised once: asking again gives the same Buffer, not an equal new one.
    expect(jsonBytes(snapshot)).toBe(jsonBytes(snapshot));
    const zipped = await get(booted, '/api/v1/irrigation/snapshot', { 'Accept-Encoding': 'gzip' });
    expect(zipped.body.equals(gzipBytes(snapshot))).toBe(true);
  });

  it('sends a snapshot under 1 KB (the demo weather) as it is: gzip would save too little', async () => {
    const booted = await demo();
    const res = await get(booted, '/api/v1/snapshot', { 'Accept-Encoding': 'gzip' });
    expect(res.body.length).toBeLessThan(1024);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(res.body.toString())).toHaveProperty('last_packet_epoch');
  });

  it('serialises a changed snapshot anew', () => {
    const before = { zones: [1] };
    const after = { zones: [1, 2] };
    expect(jsonBytes(before).toString()).toBe('{"zones":[1]}');
    expect(jsonBytes(after).toString()).toBe('{"zones":[1,2]}');
    expect(gunzipSync(gzipBytes(after)).toString()).toBe('{"zones":[1,2]}');
    expect(gzipBytes(after)).toBe(gzipBytes(after));
  });
});

describe('JSON answers in general', () => {
  it('compresses a large JSON answer, streamed ones included, and leaves small ones alone', async () => {
    const booted = await demo();
    const schema = await get(booted, '/api/v1/config/schema', { 'Accept-Encoding': 'gzip' });
    expect(schema.status).toBe(200);
    expect(schema.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(schema.body).toString())).toHaveProperty('type');

    const history = await get(booted, '/api/v1/irrigation/history?days=0', { 'Accept-Encoding': 'gzip' });
    expect(history.status).toBe(200);
    const body = history.headers['content-encoding'] === 'gzip' ? gunzipSync(history.body) : history.body;
    expect(JSON.parse(body.toString())).toHaveProperty('runs');

    const info = await get(booted, '/api/v1/info', { 'Accept-Encoding': 'gzip' });
    expect(info.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(info.body.toString())).toHaveProperty('api_version');
  });

  it('sends plain bytes to a client that refuses gzip', async () => {
    const booted = await demo();
    const res = await get(booted, '/api/v1/config/schema', { 'Accept-Encoding': 'gzip;q=0, identity' });
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(res.body.toString())).toHaveProperty('type');
    expect(acceptsGzip('gzip;q=0, identity')).toBe(false);
  });
});
