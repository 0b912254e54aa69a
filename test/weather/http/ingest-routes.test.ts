import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { serviceTracker } from '../../helpers/service';

/**
 * The push receivers over the real service: an Ecowitt console upload matched
 * by its PASSKEY, and a generic JSON webhook with its per-source secret.
 */

const services = serviceTracker();
const UPLOADS = fs
  .readFileSync(path.join(__dirname, '..', 'ecowitt', 'fixtures', 'ecowitt-upload-sample.txt'), 'utf8')
  .split('\n')
  .filter((line) => line.startsWith('PASSKEY='));
const HP3500 = UPLOADS.find((line) => line.includes('HP3500')) as string;
const PASSKEY = '34271334ED1FADA6D8B988B14267E55D';
const SECRET = 'a-long-webhook-secret-0123';

/** The captured body with its observation time moved to now, so the reading is live. */
function uploadNow(body: string): string {
  const now = new Date().toISOString().slice(0, 19).replace('T', '+').replace(/:/g, '%3A');
  return body.replace(/dateutc=[^&]+/, `dateutc=${now}`);
}

const CONFIG = [
  'schema_version = 2',
  '[deployment]',
  'timezone = "America/Denver"',
  '[deployment.location]',
  'lat = 39.7',
  'lon = -105.0',
  '[[sources]]',
  'id = "console"',
  'priority = 100',
  'kind = "ecowitt_ingest"',
  '[sources.config]',
  `passkey = "${PASSKEY}"`,
  '[[sources]]',
  'id = "shed"',
  'priority = 90',
  'kind = "http_webhook"',
  '[sources.config]',
  `secret = "${SECRET}"`,
  '[[sources.config.fields]]',
  'path = "data.leaf"',
  'field = "leaf_wetness_pct"',
  '[[sources.config.fields]]',
  'path = "data.temp_c"',
  'field = "air_temp_f"',
  'unit = "c"',
  '',
].join('\n');

describe('POST /ingest/gateway', () => {
  it('parses a real console upload at the origin root and under /api/v1, and the snapshot shows it', async () => {
    const booted = await services.boot({ configToml: CONFIG });
    for (const route of ['/ingest/gateway', '/api/v1/ingest/gateway']) {
      const res = await request(booted.service.server)
        .post(route)
        .set('Content-Type', 'application/x-www-form-urlencoded')
        .send(uploadNow(HP3500))
        .expect(200);
      expect(res.body).toEqual({ ok: true, source_id: 'console' });
    }
    const snapshot = await request(booted.service.server).get('/api/v1/snapshot').expect(200);
    expect(snapshot.body.air_temp_f).toBeCloseTo(70.3, 1);
    expect(snapshot.body.rh_pct).toBe(32);
    expect(snapshot.body.rain_in_today).toBe(0);
    expect(snapshot.body.wind_avg_mph).toBeCloseTo(0.4, 2);
  });

  it('answers 404 for an unknown PASSKEY and 400 for a body without one, storing nothing', async () => {
    const booted = await services.boot({ configToml: CONFIG });
    const unknown = await request(booted.service.server)
      .post('/ingest/gateway')
      .send(uploadNow(HP3500).replace(PASSKEY, 'FFFF'))
      .expect(404);
    expect(unknown.body.code).toBe('source_unknown');
    const garbage = await request(booted.service.server)
      .post('/ingest/gateway')
      .send('hello=world')
      .expect(400);
    expect(garbage.body.code).toBe('ingest_unparseable');
    const snapshot = await request(booted.service.server).get('/api/v1/snapshot').expect(200);
    expect(snapshot.body.air_temp_f).toBeNull();
  });
});

describe('GET /ingest/gateway (Wunderground protocol)', () => {
  it('takes the query string as the upload, matched by PASSWORD', async () => {
    const wunderground = fs
      .readFileSync(path.join(__dirname, '..', 'ecowitt', 'fixtures', 'ecowitt-upload-sample.txt'), 'utf8')
      .split('\n')
      .find((line) => line.startsWith('ID=')) as string;
    const config = CONFIG.replace(`passkey = "${PASSKEY}"`, 'passkey = "1909"');
    const booted = await services.boot({ configToml: config });
    const res = await request(booted.service.server).get(`/ingest/gateway?${wunderground}`).expect(200);
    expect(res.body.source_id).toBe('console');
    const snapshot = await request(booted.service.server).get('/api/v1/snapshot').expect(200);
    expect(snapshot.body.air_temp_f).toBeCloseTo(89.42, 2);
    expect(snapshot.body.rh_pct).toBe(54);
    await request(booted.service.server).get('/ingest/gateway?tempf=70').expect(400);
  });
});

describe('POST /ingest/webhook/{id}', () => {
  it('maps a JSON body with the right secret; a measured 0 stays 0', async () => {
    const booted = await services.boot({ configToml: CONFIG });
    const res = await request(booted.service.server)
      .post('/ingest/webhook/shed')
      .set('X-Raincheck-Token', SECRET)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ data: { leaf: 0, temp_c: 20 } }))
      .expect(200);
    expect(res.body.source_id).toBe('shed');
    const snapshot = await request(booted.service.server).get('/api/v1/snapshot').expect(200);
    expect(snapshot.body.leaf_wetness_pct).toBe(0);
    expect(snapshot.body.air_temp_f).toBeCloseTo(68, 5);
  });

  it('refuses a wrong secret (403), an unknown id (404) and a body that does not parse (400)', async () => {
    const booted = await services.boot({ configToml: CONFIG });
    const server = booted.service.server;
    const body = JSON.stringify({ data: { leaf: 12 } });
    expect(
      (await request(server).post('/ingest/webhook/shed?token=wrong').send(body).expect(403)).body.code,
    ).toBe('ingest_forbidden');
    expect((await request(server).post('/ingest/webhook/nope').send(body).expect(404)).body.code).toBe(
      'source_unknown',
    );
    const bad = await request(server)
      .post(`/api/v1/ingest/webhook/shed?token=${SECRET}`)
      .send('{not json')
      .expect(400);
    expect(bad.body.code).toBe('invalid_json');
    const unmapped = await request(server)
      .post(`/ingest/webhook/shed?token=${SECRET}`)
      .send(JSON.stringify({ other: 1 }))
      .expect(400);
    expect(unmapped.body.code).toBe('webhook_unparseable');
    const snapshot = await request(server).get('/api/v1/snapshot').expect(200);
    expect(snapshot.body.leaf_wetness_pct).toBeNull();
  });
});
