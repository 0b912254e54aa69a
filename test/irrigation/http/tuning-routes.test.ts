import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { ManualClock } from '../../../server/src/core/clock';
import { toToml } from '../../../server/src/config/toml';
import type { Store } from '../../../server/src/store/store';
import { makeDataDir, minimalConfig, serviceTracker } from '../../helpers/service';
import { addDays, localEpoch, recordSession, TZ } from '../tuning/recorded-history';

/**
 * The tuning routes over the real service: GET /irrigation/tuning (days
 * clamp, 400 on garbage), the dismiss pair, POST /config/zones/apply
 * (round trip, 409, 422, rollback), their absence without a database, and
 * the OpenAPI document listing them.
 */

const services = serviceTracker();
const TODAY = '2025-07-20';
const NOW_MS = localEpoch(TODAY, 12) * 1000;

const config = minimalConfig({
  deployment: { location: { lat: 40.7, lon: -74.0 }, units: 'imperial', timezone: TZ },
  zones: {
    front: { display_name: 'Front lawn', species: 'bermuda', soil_texture: 'loam', max_run_minutes: 30 },
  },
});

async function boot() {
  const booted = await services.boot({
    configToml: toToml(config as never),
    serviceOptions: { clock: new ManualClock(NOW_MS) },
  });
  const store = booted.service.store as Store;
  [12, 10, 8, 6, 4].forEach((back) =>
    recordSession(store, {
      zone: 'front',
      date: addDays(TODAY, -back),
      planned_s: 1800,
      needed_s: 2580,
      cap_min: 30,
    }),
  );
  return { server: booted.service.server, store };
}

describe('GET /irrigation/tuning', () => {
  it('answers the report with every spec field, days clamped to 7..30', async () => {
    const { server } = await boot();
    const res = await request(server).get('/api/v1/irrigation/tuning');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['generated_epoch', 'scorecard', 'window_days', 'zones']);
    expect(res.body.window_days).toBe(14);
    const [front] = res.body.zones;
    expect(Object.keys(front).sort()).toEqual(
      ['dismissed', 'dismissed_fields', 'display_name', 'lines', 'recommendation', 'slug', 'status'].sort(),
    );
    expect(Object.keys(front.recommendation).sort()).toEqual(
      [
        'companion_fields',
        'confidence',
        'current_value',
        'evidence',
        'field',
        'headline',
        'id',
        'suggested_value',
      ].sort(),
    );
    expect(front.recommendation).toMatchObject({
      field: 'max_run_minutes',
      current_value: 30,
      suggested_value: 45,
    });
    expect(Object.keys(res.body.scorecard).sort()).toEqual(
      [
        'confirmed_days',
        'line',
        'min_scored_days',
        'reactive_days',
        'reactive_line',
        'scored_days',
        'window_days',
      ].sort(),
    );
    expect((await request(server).get('/api/v1/irrigation/tuning?days=3')).body.window_days).toBe(7);
    expect((await request(server).get('/api/irrigation/tuning?days=99')).body.window_days).toBe(30);
    const bad = await request(server).get('/api/v1/irrigation/tuning?days=two');
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('invalid_query');
  });
});

describe('the dismiss pair', () => {
  it('silences and restores the suggestion; bad bodies answer their codes', async () => {
    const { server } = await boot();
    const report = await request(server).get('/api/v1/irrigation/tuning');
    const rec = report.body.zones[0].recommendation;
    const dismissed = await request(server)
      .post('/api/v1/irrigation/tuning/dismiss')
      .send({ zone_slug: 'front', field: rec.field, recommendation_id: rec.id, kind: 'snooze' });
    expect(dismissed.status).toBe(200);
    const muted = (await request(server).get('/api/v1/irrigation/tuning')).body.zones[0];
    expect(muted).toMatchObject({
      recommendation: null,
      dismissed: true,
      dismissed_fields: ['max_run_minutes'],
    });
    const undo = await request(server)
      .post('/api/v1/irrigation/tuning/undismiss')
      .send({ zone_slug: 'front', field: 'max_run_minutes' });
    expect(undo.body).toEqual({ removed: 1 });
    expect((await request(server).get('/api/v1/irrigation/tuning')).body.zones[0].recommendation.id).toBe(
      rec.id,
    );

    const wrongKind = await request(server)
      .post('/api/v1/irrigation/tuning/dismiss')
      .send({ zone_slug: 'front', field: rec.field, recommendation_id: rec.id, kind: 'forever' });
    expect([wrongKind.status, wrongKind.body.code]).toEqual([400, 'invalid_body']);
  });
});

describe('POST /config/zones/apply', () => {
  it('writes the value, answers the spec body, refuses stale and out-of-band, and rolls back', async () => {
    const { server } = await boot();
    const rec = (await request(server).get('/api/v1/irrigation/tuning')).body.zones[0].recommendation;
    const body = {
      zone_slug: 'front',
      recommendation_id: rec.id,
      field: 'max_run_minutes',
      value: 45,
      window_days: 14,
    };

    const outOfBand = await request(server)
      .post('/api/v1/config/zones/apply')
      .send({ ...body, value: 361 });
    expect([outOfBand.status, outOfBand.body.code]).toEqual([422, 'value_out_of_band']);

    const applied = await request(server).post('/api/v1/config/zones/apply').send(body);
    expect(applied.status).toBe(200);
    expect(Object.keys(applied.body).sort()).toEqual(
      [
        'applied',
        'field',
        'new_value',
        'old_value',
        'restart_reasons',
        'restart_required',
        'saved',
        'validation',
        'zone',
      ].sort(),
    );
    expect(applied.body).toMatchObject({
      applied: true,
      zone: 'front',
      old_value: 30,
      new_value: 45,
      restart_required: false,
    });
    const live = await request(server).get('/api/v1/config');
    expect(live.body.zones.front.max_run_minutes).toBe(45);

    const stale = await request(server).post('/api/v1/config/zones/apply').send(body);
    expect([stale.status, stale.body.code]).toEqual([409, 'stale_recommendation']);

    const rollback = await request(server)
      .post('/api/v1/config/rollback')
      .send({ ts: applied.body.saved.previous_snapshot_ts });
    expect(rollback.status).toBe(200);
    expect((await request(server).get('/api/v1/config')).body.zones.front.max_run_minutes).toBe(30);
  });
});

describe('without a database', () => {
  it('does not mount the tuning routes, and apply finds nothing that derives', async () => {
    const dataDir = makeDataDir();
    fs.mkdirSync(path.join(dataDir, 'raincheck.db'));
    const { service } = await services.boot({ dataDir, configToml: toToml(config as never) });
    expect(service.store).toBeNull();
    await request(service.server).get('/api/v1/irrigation/tuning').expect(404);
    await request(service.server).post('/api/v1/irrigation/tuning/dismiss').send({}).expect(404);
    const apply = await request(service.server)
      .post('/api/v1/config/zones/apply')
      .send({ zone_slug: 'front', recommendation_id: 'x', field: 'max_run_minutes', value: 45 });
    expect([apply.status, apply.body.code]).toEqual([409, 'stale_recommendation']);
  });
});

describe('the OpenAPI document', () => {
  it('lists every new route, the writes privileged, with their request bodies', async () => {
    const { server } = await boot();
    const doc = (await request(server).get('/docs/openapi.json')).body;
    expect(doc.paths['/api/v1/irrigation/tuning'].get.parameters).toEqual([
      expect.objectContaining({
        name: 'days',
        schema: expect.objectContaining({ minimum: 7, maximum: 30, default: 14 }),
      }),
    ]);
    for (const path of [
      '/api/v1/irrigation/tuning/dismiss',
      '/api/v1/irrigation/tuning/undismiss',
      '/api/v1/config/zones/apply',
    ]) {
      expect(doc.paths[path].post['x-privileged']).toBe(true);
      expect(doc.paths[path].post.requestBody).toBeDefined();
    }
  });
});
