import dgram from 'node:dgram';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import request from 'supertest';
import { serviceTracker, type BootedService } from '../../helpers/service';
import { WEATHER_SNAPSHOT_KEYS } from '../../helpers/weather-snapshot-keys';

/**
 * The weather routes over the real service: the demo source, a Tempest hub
 * sending real UDP datagrams to a loopback port, SSE, devices, discovery,
 * field ownership and history.
 */

const services = serviceTracker();
const FIXTURE = path.join(__dirname, '..', 'tempest', 'fixtures', 'tempest-udp-samples.jsonl');
const SAMPLES = fs.readFileSync(FIXTURE, 'utf8').trim().split('\n');
const OBS_ST = JSON.parse(SAMPLES[3] as string) as { obs: number[][]; hub_sn: string; serial_number: string };

async function freeUdpPort(): Promise<number> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address() as AddressInfo;
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}

async function send(port: number, payload: string): Promise<void> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve, reject) =>
    socket.send(Buffer.from(payload), port, '127.0.0.1', (err) => (err ? reject(err) : resolve())),
  );
  socket.close();
}

function obsNow(overrides: Record<number, number | null> = {}): string {
  const record = [...(OBS_ST.obs[0] as number[])] as (number | null)[];
  record[0] = Math.floor(Date.now() / 1000);
  for (const [index, value] of Object.entries(overrides)) record[Number(index)] = value;
  return JSON.stringify({ ...OBS_ST, obs: [record] });
}

async function until<T>(probe: () => Promise<T | null | undefined>, timeoutMs = 3000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null && value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function tempestConfig(port: number): string {
  return [
    'schema_version = 2',
    '[deployment]',
    'timezone = "America/New_York"',
    '[deployment.location]',
    'lat = 40.7',
    'lon = -74.0',
    '[[sources]]',
    'id = "hub"',
    'priority = 100',
    'kind = "tempest_udp"',
    '[sources.config]',
    `bind_addr = "127.0.0.1:${port}"`,
    '',
  ].join('\n');
}

async function bootTempest(): Promise<{ booted: BootedService; port: number }> {
  const port = await freeUdpPort();
  const booted = await services.boot({ configToml: tempestConfig(port) });
  return { booted, port };
}

const SNAPSHOT_KEYS = WEATHER_SNAPSHOT_KEYS;

describe('GET /snapshot', () => {
  it('serves every snapshot key with nulls before any source reports', async () => {
    const { booted } = await bootTempest();
    const res = await request(booted.service.server).get('/api/v1/snapshot').expect(200);
    expect(Object.keys(res.body).sort()).toEqual([...SNAPSHOT_KEYS].sort());
    expect(res.body.air_temp_f).toBeNull();
    expect(res.body.rain_in_today).toBeNull();
    expect(res.body.has_live_station).toBe(false);
    expect(res.body.lightning_recent).toEqual([]);
    const legacy = await request(booted.service.server).get('/api/snapshot').expect(200);
    expect(legacy.body.air_temp_f).toBeNull();
  });

  it('shows a real Tempest datagram, converted, with its observation times', async () => {
    const { booted, port } = await bootTempest();
    const datagram = obsNow();
    await send(port, datagram);
    const body = await until(async () => {
      const res = await request(booted.service.server).get('/api/v1/snapshot');
      return res.body.air_temp_f === null ? null : res.body;
    });
    expect(body.air_temp_f).toBeCloseTo(72.27, 1);
    expect(body.rh_pct).toBeCloseTo(50.26, 2);
    expect(body.wind_avg_mph).toBeCloseTo(0.49, 1);
    expect(body.pressure_inhg).toBeCloseTo(30.05, 1);
    // A measured zero stays zero: no rain fell in the minute.
    expect(body.rain_in_last_min).toBe(0);
    expect(body.rain_in_today).toBe(0);
    // The datagram's own observation time, not a second reading of the clock.
    expect(body.air_temp_live_epoch).toBe(JSON.parse(datagram).obs[0][0]);
    expect(body.station_serial).toBe(OBS_ST.serial_number);
    expect(body.hub_serial).toBe(OBS_ST.hub_sn);
    expect(body.has_live_station).toBe(true);
    expect(body.dew_point_f).not.toBeNull();

    const health = await request(booted.service.server).get('/api/v1/health').expect(200);
    const hub = health.body.sources.find((s: { id: string }) => s.id === 'hub');
    expect(hub.status).toBe('active');
    expect(health.body.status).toBe('ok');
  });

  it('ignores a malformed datagram and keeps the snapshot unchanged', async () => {
    const { booted, port } = await bootTempest();
    await send(port, obsNow());
    const before = await until(async () => {
      const res = await request(booted.service.server).get('/api/v1/snapshot');
      return res.body.air_temp_f === null ? null : res.body;
    });
    await send(port, '{"type":"obs_st","obs":[["x"]]}');
    await send(port, 'not json at all');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const after = await request(booted.service.server).get('/api/v1/snapshot').expect(200);
    expect(after.body.air_temp_f).toBe(before.air_temp_f);
    expect(after.body.last_packet_epoch).toBe(before.last_packet_epoch);
  });
});

describe('GET /stream', () => {
  it('streams named snapshot events, the current one first', async () => {
    const booted = await services.boot({ env: { DEMO: '1' } });
    const text = await new Promise<string>((resolve, reject) => {
      const req = http.get(`http://127.0.0.1:${booted.port}/api/v1/stream`, (res) => {
        expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
        expect(res.headers['x-service-request-id']).toBeTruthy();
        let buffer = '';
        res.on('data', (chunk: Buffer) => {
          buffer += chunk.toString();
          if (
            buffer.includes('event: snapshot\ndata: ') &&
            buffer.includes('\n\n', buffer.indexOf('data: '))
          ) {
            req.destroy();
            resolve(buffer);
          }
        });
      });
      req.on('error', reject);
    });
    const data = text.slice(text.indexOf('data: ') + 6, text.indexOf('\n\n', text.indexOf('data: ')));
    const snapshot = JSON.parse(data);
    expect(typeof snapshot.air_temp_f).toBe('number');
    expect(snapshot.source_label).toContain('Demo');
  });
});

describe('GET /devices and /config/field_sources', () => {
  it('lists the hub and station a datagram named, and who owns each field', async () => {
    const { booted, port } = await bootTempest();
    await send(port, SAMPLES[9] as string); // real hub_status capture
    await send(port, obsNow());
    await until(async () => {
      const res = await request(booted.service.server).get('/api/v1/snapshot');
      return res.body.air_temp_f === null ? null : true;
    });
    const devices = await request(booted.service.server).get('/api/v1/devices').expect(200);
    const ids = devices.body.devices.map((d: { id: string }) => d.id);
    expect(ids).toEqual([...ids].sort());
    expect(devices.body.devices.some((d: { kind: string }) => d.kind === 'hub')).toBe(true);

    const owners = await request(booted.service.server).get('/api/v1/config/field_sources').expect(200);
    const air = owners.body.user_fields.find((f: { field: string }) => f.field === 'air_temp_f');
    expect(air).toEqual({ field: 'air_temp_f', source_id: 'hub', reason: 'priority' });
    const uv = owners.body.user_fields.find((f: { field: string }) => f.field === 'leaf_wetness_pct');
    expect(uv.source_id).toBeNull();
    expect(owners.body.sources[0]).toMatchObject({ id: 'hub', kind: 'tempest_udp', status: 'active' });
    expect(owners.body.region_label).toBe('United States');
  });
});

describe('GET /devices/discover', () => {
  it('finds a hub broadcasting on the port while it listens', async () => {
    const discoveryPort = await freeUdpPort();
    const booted = await services.boot({
      serviceOptions: { discovery: { listenMs: 400, port: discoveryPort } },
    });
    const pending = request(booted.service.server).get('/api/v1/devices/discover');
    const sending = (async () => {
      await new Promise((resolve) => setTimeout(resolve, 150));
      await send(discoveryPort, SAMPLES[9] as string);
    })();
    const [res] = await Promise.all([pending, sending]);
    expect(res.status).toBe(200);
    expect(res.body.listened_ms).toBe(400);
    expect(res.body.gateways).toEqual([
      expect.objectContaining({ kind: 'tempest_hub', serial: 'HB-00069665', host: '127.0.0.1' }),
    ]);
  });
});

describe('GET /weather/history and /weather/readings', () => {
  it('serves stored merged history and raw readings, oldest first', async () => {
    const { booted, port } = await bootTempest();
    await send(port, obsNow());
    await until(async () => {
      const res = await request(booted.service.server).get('/api/v1/snapshot');
      return res.body.air_temp_f === null ? null : true;
    });
    booted.service.weather.tick();
    const history = await request(booted.service.server).get('/api/v1/weather/history?hours=2').expect(200);
    expect(history.body.rows.length).toBe(1);
    expect(history.body.rows[0].air_temp_f).toBeCloseTo(72.27, 1);
    const readings = await request(booted.service.server).get('/api/v1/weather/readings').expect(200);
    const fields = readings.body.readings.map((r: { field: string }) => r.field);
    expect(fields).toContain('air_temp_f');
    expect(readings.body.readings.every((r: { source_id: string }) => r.source_id === 'hub')).toBe(true);
    await request(booted.service.server).get('/api/v1/weather/history?hours=abc').expect(400);
  });
});

describe('GET /config/source_catalog', () => {
  it('lists the cloud kinds highest honesty first, with a live status', async () => {
    const { booted } = await bootTempest();
    const res = await request(booted.service.server).get('/api/v1/config/source_catalog').expect(200);
    expect(res.body.lat).toBe(40.7);
    const kinds = res.body.cloud_sources.map((s: { kind: string }) => s.kind);
    expect(kinds).toEqual(['nws', 'open_meteo', 'openweather']);
    const ranks = res.body.cloud_sources.map((s: { honesty_rank: number }) => s.honesty_rank);
    expect(ranks).toEqual([...ranks].sort((a: number, b: number) => b - a));
    expect(res.body.cloud_sources[2]).toMatchObject({
      needs_api_key: true,
      configured: false,
      status: 'offline',
    });
  });
});
