import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { parse } from 'smol-toml';
import {
  configWithSecrets,
  minimalConfig,
  SECRET_API_KEY,
  SECRET_PASSWORD_MD5,
  serviceTracker,
  type BootedService,
} from '../helpers/service';

/**
 * The wizard's draft, state, seed and apply over the real service, booted
 * without a config (wizard mode) and with one.
 */

const services = serviceTracker();
const REDACTED = '***redacted***';
const API = '/api/v1/wizard';

type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function draftFile(booted: BootedService): string {
  return path.join(booted.dataDir, 'wizard-draft.json');
}

function putDraft(booted: BootedService, draft: unknown): request.Test {
  return request(booted.service.server)
    .put(`${API}/draft`)
    .send(draft as object);
}

describe('wizard draft', () => {
  it('answers null before any draft, then round-trips a stored draft with its secrets redacted', async () => {
    const booted = await services.boot();
    const server = booted.service.server;
    const empty = await request(server).get(`${API}/draft`).expect(200);
    expect(empty.body).toEqual({ draft: null, updated_epoch: null });

    const draft = configWithSecrets();
    const put = await putDraft(booted, draft);
    expect(put.status).toBe(200);
    expect(put.body.updated_epoch).toEqual(expect.any(Number));

    const got = await request(server).get(`${API}/draft`).expect(200);
    expect(got.body.updated_epoch).toBe(put.body.updated_epoch);
    expect(got.body.draft.controllers[0].config.password_md5).toBe(REDACTED);
    expect(got.body.draft.sources[0].config.api_key).toBe(REDACTED);
    expect(got.body.draft.zones.front_lawn.display_name).toBe('Front lawn');
    expect(JSON.stringify(got.body)).not.toContain(SECRET_API_KEY);
    // The file keeps the real values (the draft becomes the config).
    const onDisk = JSON.parse(fs.readFileSync(draftFile(booted), 'utf8')) as Doc;
    expect(onDisk.draft.controllers[0].config.password_md5).toBe(SECRET_PASSWORD_MD5);
  });

  it('keeps a stored draft secret when the redacted draft is sent back, and pins its transport fields', async () => {
    const booted = await services.boot();
    await putDraft(booted, configWithSecrets()).expect(200);
    const got = (await request(booted.service.server).get(`${API}/draft`)).body.draft as Doc;
    got.zones.front_lawn.display_name = 'Front yard';
    await putDraft(booted, got).expect(200);
    const onDisk = JSON.parse(fs.readFileSync(draftFile(booted), 'utf8')) as Doc;
    expect(onDisk.draft.controllers[0].config.password_md5).toBe(SECRET_PASSWORD_MD5);
    expect(onDisk.draft.zones.front_lawn.display_name).toBe('Front yard');

    got.controllers[0].config.host = '203.0.113.9';
    const moved = await putDraft(booted, got);
    expect(moved.status).toBe(400);
    expect(moved.body.code).toBe('transport_field_mismatch');
    expect(moved.body.paths).toEqual(['$.controllers[0].config.host']);
  });

  it('refuses a draft that is not an object with 400', async () => {
    const booted = await services.boot();
    const res = await putDraft(booted, [1, 2]);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_body');
    expect(fs.existsSync(draftFile(booted))).toBe(false);
  });

  it('DELETE discards the draft', async () => {
    const booted = await services.boot();
    await putDraft(booted, { anything: true }).expect(200);
    const del = await request(booted.service.server).delete(`${API}/draft`).expect(200);
    expect(del.body).toEqual({ deleted: true });
    expect(fs.existsSync(draftFile(booted))).toBe(false);
    const got = await request(booted.service.server).get(`${API}/draft`).expect(200);
    expect(got.body.draft).toBeNull();
    const again = await request(booted.service.server).delete(`${API}/draft`).expect(200);
    expect(again.body).toEqual({ deleted: false });
  });

  it('survives a restart of the same install', async () => {
    const first = await services.boot();
    await putDraft(first, minimalConfig()).expect(200);
    await first.service.stop();
    const second = await services.boot({ dataDir: first.dataDir });
    const got = await request(second.service.server).get(`${API}/draft`).expect(200);
    expect(got.body.draft).toEqual(minimalConfig());
  });
});

describe('POST /wizard/apply', () => {
  it('writes the draft as the live config, drops the draft, and writes the soil model', async () => {
    const booted = await services.boot();
    const server = booted.service.server;
    const before = await request(server).get(`${API}/state`).expect(200);
    expect(before.body.config_present).toBe(false);

    await putDraft(booted, configWithSecrets()).expect(200);
    const res = await request(server).post(`${API}/apply`).expect(200);
    expect(res.body.applied).toBe(true);
    expect(res.body.saved.revision).toBe(1);
    expect(res.body.validation.ok).toBe(true);

    const toml = parse(fs.readFileSync(booted.configPath, 'utf8')) as Doc;
    expect(toml.engine.scheduling_model).toBe('soil');
    expect(toml.controllers[0].config.password_md5).toBe(SECRET_PASSWORD_MD5);
    expect(fs.existsSync(draftFile(booted))).toBe(false);

    const state = await request(server).get(`${API}/state`).expect(200);
    expect(state.body).toMatchObject({ config_present: true, draft_present: false });
    expect(state.body.steps).toContainEqual({ id: 'apply', done: true });
    const config = await request(server).get('/api/v1/config').expect(200);
    expect(config.headers['x-raincheck-config-present']).toBe('true');
    expect(config.body.zones.front_lawn.controller_id).toBe('os1');
  });

  it('keeps a scheduling model the draft chose', async () => {
    const booted = await services.boot();
    await putDraft(booted, minimalConfig({ engine: { scheduling_model: 'weekly' } })).expect(200);
    await request(booted.service.server).post(`${API}/apply`).expect(200);
    const toml = parse(fs.readFileSync(booted.configPath, 'utf8')) as Doc;
    expect(toml.engine.scheduling_model).toBe('weekly');
  });

  it('answers 422 config_invalid with the report for an invalid draft and writes nothing', async () => {
    const booted = await services.boot();
    const draft = minimalConfig({ deployment: { location: { lat: 123, lon: -74 } } });
    await putDraft(booted, draft).expect(200);
    const res = await request(booted.service.server).post(`${API}/apply`);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('config_invalid');
    expect(res.body.validation.ok).toBe(false);
    expect(res.body.validation.errors).toContainEqual(
      expect.objectContaining({ path: '$.deployment.location.lat' }),
    );
    expect(fs.existsSync(booted.configPath)).toBe(false);
    const state = await request(booted.service.server).get(`${API}/state`).expect(200);
    expect(state.body).toMatchObject({ config_present: false, draft_present: true });
  });

  it('answers 422 draft_absent without a draft (spec 4.6: 422 on failure)', async () => {
    const booted = await services.boot();
    const res = await request(booted.service.server).post(`${API}/apply`);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('draft_absent');
  });
});

describe('POST /wizard/seed_current and GET /wizard/state', () => {
  it('seeds the draft from the live config, redacted, and apply restores the stored secrets', async () => {
    const booted = await services.boot();
    const server = booted.service.server;
    await request(server).put('/api/v1/config').send(configWithSecrets()).expect(200);
    const seeded = await request(server).post(`${API}/seed_current`).expect(200);
    expect(seeded.body.seeded_from).toBe('config');
    expect(seeded.body.draft.controllers[0].config.password_md5).toBe(REDACTED);
    // Stored redacted too: the draft never copies the live secrets.
    const onDisk = fs.readFileSync(draftFile(booted), 'utf8');
    expect(onDisk).not.toContain(SECRET_PASSWORD_MD5);
    expect(onDisk).not.toContain(SECRET_API_KEY);

    const state = await request(server).get(`${API}/state`).expect(200);
    expect(state.body).toMatchObject({ config_present: true, draft_present: true, setup_complete: false });
    expect(state.body.steps).toEqual([
      { id: 'location', done: true },
      { id: 'sources', done: true },
      { id: 'controllers', done: true },
      { id: 'zones', done: true },
      { id: 'account', done: false },
      { id: 'apply', done: false },
    ]);

    await request(server).post(`${API}/apply`).expect(200);
    const toml = parse(fs.readFileSync(booted.configPath, 'utf8')) as Doc;
    expect(toml.controllers[0].config.password_md5).toBe(SECRET_PASSWORD_MD5);
    expect(toml.sources[0].config.api_key).toBe(SECRET_API_KEY);
  });

  it('seeds the environment baseline before any config exists', async () => {
    const booted = await services.boot({ env: { LAT: '40.7', LON: '-74.0' } });
    const seeded = await request(booted.service.server).post(`${API}/seed_current`).expect(200);
    expect(seeded.body.seeded_from).toBe('baseline');
    expect(seeded.body.draft.deployment.location).toEqual({ lat: 40.7, lon: -74 });
    const state = await request(booted.service.server).get(`${API}/state`).expect(200);
    expect(state.body.steps[0]).toEqual({ id: 'location', done: true });
    expect(state.body.steps[2]).toEqual({ id: 'controllers', done: false });
  });

  it('answers apply of a sentinel no stored config holds with 400 unmatched_redacted_secret', async () => {
    const booted = await services.boot();
    const draft = configWithSecrets() as Doc;
    draft.controllers[0].config.password_md5 = REDACTED;
    await putDraft(booted, draft).expect(200);
    const res = await request(booted.service.server).post(`${API}/apply`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('unmatched_redacted_secret');
    expect(fs.existsSync(booted.configPath)).toBe(false);
  });
});
