import request from 'supertest';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'smol-toml';
import {
  configWithSecrets,
  minimalConfig,
  SECRET_API_KEY,
  SECRET_PASSWORD_MD5,
  serviceTracker,
  type BootedService,
} from '../helpers/service';

const services = serviceTracker();
const REDACTED = '***redacted***';

type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function readToml(file: string): Doc {
  return parse(fs.readFileSync(file, 'utf8')) as Doc;
}

function snapshotFiles(booted: BootedService): string[] {
  const dir = path.join(booted.dataDir, 'config-snapshots');
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
}

function put(booted: BootedService, body: unknown, query = ''): request.Test {
  return request(booted.service.server)
    .put(`/api/v1/config${query}`)
    .send(body as object);
}

describe('GET /config before any config', () => {
  it('answers the environment baseline with X-Raincheck-Config-Present false', async () => {
    const { service } = await services.boot({ env: { LAT: '40.7', LON: '-74.0' } });
    const res = await request(service.server).get('/api/v1/config').expect(200);
    expect(res.headers['x-raincheck-config-present']).toBe('false');
    expect(res.body.schema_version).toBe(2);
    expect(res.body.deployment.location).toEqual({ lat: 40.7, lon: -74 });
    expect(res.body.sources).toEqual([expect.objectContaining({ kind: 'open_meteo', enabled: true })]);
    expect(res.body.controllers).toEqual([]);
  });

  it('keeps an unknown location null in the baseline', async () => {
    const { service } = await services.boot();
    const res = await request(service.server).get('/api/config').expect(200);
    expect(res.body.deployment.location).toEqual({ lat: null, lon: null });
  });

  it('GET /config/validate reports an empty report with a note', async () => {
    const { service } = await services.boot();
    const res = await request(service.server).get('/api/v1/config/validate').expect(200);
    expect(res.body).toEqual({ ok: true, errors: [], warnings: [], note: expect.any(String) });
  });

  it('GET /config/raw answers 404 while no file exists', async () => {
    const { service } = await services.boot();
    const res = await request(service.server).get('/api/v1/config/raw').expect(404);
    expect(res.body.code).toBe('config_absent');
  });
});

describe('PUT /config and GET /config', () => {
  it('saves a valid config and answers {saved, validation}', async () => {
    const booted = await services.boot();
    const res = await put(booted, configWithSecrets()).expect(200);
    expect(res.body.saved).toEqual({
      revision: expect.any(Number),
      applied_at_epoch: expect.any(Number),
      schema_version: 2,
      previous_snapshot_ts: null,
    });
    expect(Math.abs(res.body.saved.applied_at_epoch - Date.now() / 1000)).toBeLessThan(60);
    expect(res.body.validation).toEqual(expect.objectContaining({ ok: true, errors: [] }));

    const onDisk = readToml(booted.configPath);
    expect(onDisk.controllers[0].config.password_md5).toBe(SECRET_PASSWORD_MD5);
    expect(onDisk.sources[0].config.api_key).toBe(SECRET_API_KEY);

    const get = await request(booted.service.server).get('/api/v1/config').expect(200);
    expect(get.headers['x-raincheck-config-present']).toBe('true');
    expect(get.body.zones.front_lawn.display_name).toBe('Front lawn');

    const second = await put(booted, get.body).expect(200);
    expect(second.body.saved.revision).toBe(res.body.saved.revision + 1);
    expect(second.body.saved.previous_snapshot_ts).toMatch(/^\d{13,}$/);
  });

  it('redacts secrets on GET and keeps them when the GET body is PUT back', async () => {
    const booted = await services.boot();
    await put(booted, configWithSecrets()).expect(200);
    const get = await request(booted.service.server).get('/api/v1/config').expect(200);
    expect(get.body.sources[0].config.api_key).toBe(REDACTED);
    expect(get.body.controllers[0].config.password_md5).toBe(REDACTED);
    expect(JSON.stringify(get.body)).not.toContain(SECRET_API_KEY);
    expect(JSON.stringify(get.body)).not.toContain(SECRET_PASSWORD_MD5);

    await put(booted, get.body).expect(200);
    const onDisk = readToml(booted.configPath);
    expect(onDisk.sources[0].config.api_key).toBe(SECRET_API_KEY);
    expect(onDisk.controllers[0].config.password_md5).toBe(SECRET_PASSWORD_MD5);

    // The same body on the legacy prefix works the same way.
    await request(booted.service.server).put('/api/config').send(get.body).expect(200);
    expect(readToml(booted.configPath).controllers[0].config.password_md5).toBe(SECRET_PASSWORD_MD5);
  });

  it('refuses an invalid config with 422 config_invalid and leaves the file byte-identical', async () => {
    const booted = await services.boot();
    await put(booted, configWithSecrets()).expect(200);
    const before = fs.readFileSync(booted.configPath);
    const snapshotsBefore = snapshotFiles(booted).length;

    const bad = configWithSecrets();
    (bad.deployment as Doc).location.lat = 123;
    const res = await put(booted, bad).expect(422);
    expect(res.body.error).toBe('config_invalid');
    expect(res.body.code).toBe('config_invalid');
    expect(res.body.validation.errors.length).toBeGreaterThan(0);
    expect(res.body.validation.ok).toBe(false);
    expect(res.body.request).toEqual({ id: expect.any(String), method: 'PUT', route: '/api/v1/config' });
    expect(fs.readFileSync(booted.configPath).equals(before)).toBe(true);
    expect(snapshotFiles(booted).length).toBe(snapshotsBefore);

    // Two default controllers break a validation rule of the spec too.
    const twoDefaults = configWithSecrets();
    (twoDefaults.controllers as Doc[]).push({ id: 'dry', default: true, kind: 'dry_run', config: {} });
    const res2 = await put(booted, twoDefaults).expect(422);
    expect(res2.body.code).toBe('config_invalid');
    expect(fs.readFileSync(booted.configPath).equals(before)).toBe(true);
  });

  it('serialises concurrent writes: each gets its own revision and snapshot', async () => {
    const booted = await services.boot();
    const first = await put(booted, configWithSecrets()).expect(200);
    const names = ['A', 'B', 'C', 'D', 'E'];
    const results = await Promise.all(
      names.map((name) => {
        const config = configWithSecrets();
        (config.deployment as Doc).display_name = name;
        return put(booted, config);
      }),
    );
    for (const res of results) expect(res.status).toBe(200);
    const revisions = results.map((res) => res.body.saved.revision as number).sort((a, b) => a - b);
    const base = first.body.saved.revision as number;
    expect(revisions).toEqual(names.map((_, i) => base + i + 1));
    const snapshotTs = results.map((res) => res.body.saved.previous_snapshot_ts as string);
    expect(new Set(snapshotTs).size).toBe(names.length);
    expect(snapshotFiles(booted)).toHaveLength(names.length);

    // The file holds the write that got the last revision.
    const last = results.find((res) => res.body.saved.revision === base + names.length) as request.Response;
    const lastName = names[results.indexOf(last)];
    expect(readToml(booted.configPath).deployment.display_name).toBe(lastName);
    const get = await request(booted.service.server).get('/api/v1/config').expect(200);
    expect(get.body.deployment.display_name).toBe(lastName);
  });

  it('refuses a sentinel that stands for no stored secret', async () => {
    const booted = await services.boot();
    const config = configWithSecrets();
    (config.sources as [Doc])[0].config.api_key = REDACTED;
    const res = await put(booted, config).expect(400);
    expect(res.body.code).toBe('unmatched_redacted_secret');
    expect(res.body.paths).toEqual(['$.sources[0].config.api_key']);
    expect(fs.existsSync(booted.configPath)).toBe(false);
  });

  it('refuses to send a kept secret to a new host (transport_field_mismatch)', async () => {
    const booted = await services.boot();
    await put(booted, configWithSecrets()).expect(200);
    const served = (await request(booted.service.server).get('/api/v1/config').expect(200)).body as Doc;
    const before = fs.readFileSync(booted.configPath, 'utf8');
    const controller = (served.controllers as Doc[]).find((c) => c.kind === 'opensprinkler') as Doc;
    expect(controller.config.password_md5).toBe(REDACTED);
    controller.config.host = '203.0.113.50';
    const res = await put(booted, served).expect(400);
    expect(res.body.code).toBe('transport_field_mismatch');
    expect(fs.readFileSync(booted.configPath, 'utf8')).toBe(before);
    // The same change with the secret re-entered is an ordinary save.
    controller.config.password_md5 = 'a'.repeat(32);
    await put(booted, served).expect(200);
  });

  it('answers 400 for a body that is not a JSON object', async () => {
    const booted = await services.boot();
    const res = await request(booted.service.server)
      .put('/api/v1/config')
      .set('Content-Type', 'application/json')
      .send('[1,2]')
      .expect(400);
    expect(res.body.code).toBe('invalid_body');
    expect(fs.existsSync(booted.configPath)).toBe(false);
  });

  it('refuses a zone key rename unless allow_zone_key_change is given', async () => {
    const booted = await services.boot();
    await put(booted, configWithSecrets('front_lawn')).expect(200);
    const before = fs.readFileSync(booted.configPath);

    const renamed = configWithSecrets('front_yard');
    const refused = await put(booted, renamed).expect(422);
    expect(refused.body.code).toBe('zone_key_renamed');
    expect(refused.body.removed).toEqual(['front_lawn']);
    expect(refused.body.added).toEqual(['front_yard']);
    expect(fs.readFileSync(booted.configPath).equals(before)).toBe(true);

    await put(booted, renamed, '?allow_zone_key_change').expect(200);
    expect(Object.keys(readToml(booted.configPath).zones)).toEqual(['front_yard']);

    await put(booted, configWithSecrets('back_yard'), '?allow_zone_key_change=no').expect(422);
    await put(booted, configWithSecrets('back_yard'), '?allow_zone_key_change=yes').expect(200);
    expect(Object.keys(readToml(booted.configPath).zones)).toEqual(['back_yard']);
  });

  it('refuses a zone key rename through PUT /config/raw as well', async () => {
    const booted = await services.boot();
    await put(booted, configWithSecrets('front_lawn')).expect(200);
    const raw = fs.readFileSync(booted.configPath, 'utf8').replace(/front_lawn/g, 'side_strip');
    const refused = await request(booted.service.server)
      .put('/api/v1/config/raw')
      .set('Content-Type', 'text/plain')
      .send(raw)
      .expect(422);
    expect(refused.body.code).toBe('zone_key_renamed');
    await request(booted.service.server)
      .put('/api/v1/config/raw?allow_zone_key_change=1')
      .set('Content-Type', 'text/plain')
      .send(raw)
      .expect(200);
    expect(Object.keys(readToml(booted.configPath).zones)).toEqual(['side_strip']);
  });
});

describe('config schema, validate and preview', () => {
  it('GET /config/schema is a JSON Schema of the config', async () => {
    const { service } = await services.boot();
    const res = await request(service.server).get('/api/v1/config/schema').expect(200);
    expect(res.body.type).toBe('object');
    expect(res.body.properties).toEqual(
      expect.objectContaining({
        schema_version: expect.any(Object),
        deployment: expect.any(Object),
        zones: expect.any(Object),
        sources: expect.any(Object),
        controllers: expect.any(Object),
        auth: expect.any(Object),
      }),
    );
    expect(res.body.required).toEqual(expect.arrayContaining(['schema_version', 'deployment']));
  });

  it('GET /config/schema is fit for the forms: labelled choices, schema_version read-only, config by kind', async () => {
    const { service } = await services.boot();
    const schema = (await request(service.server).get('/api/v1/config/schema').expect(200)).body as {
      properties: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    };
    const { properties } = schema;
    expect(properties.schema_version).toMatchObject({ readOnly: true });
    const zone = properties.zones.additionalProperties.properties;
    const choices = (node: { anyOf?: { oneOf?: unknown }[] }) => node.anyOf?.find((o) => o.oneOf)?.oneOf;
    expect(choices(zone.species)).toEqual(
      expect.arrayContaining([{ const: 'st_augustine', title: 'St. Augustinegrass' }]),
    );
    expect(choices(zone.sprinkler_type)).toEqual(
      expect.arrayContaining([{ const: 'mp_rotator', title: 'MP Rotator (rotary nozzle)' }]),
    );
    // Each kind describes its own config block.
    const controllers = properties.controllers.items;
    expect(controllers.properties.kind.oneOf).toEqual(
      expect.arrayContaining([{ const: 'opensprinkler', title: 'OpenSprinkler (direct HTTP)' }]),
    );
    const opensprinkler = controllers.allOf.find(
      (c: { if: { properties: { kind: { const: string } } } }) =>
        c.if.properties.kind.const === 'opensprinkler',
    );
    expect(opensprinkler.then.properties.config).toMatchObject({
      type: 'object',
      required: expect.arrayContaining(['host', 'password_md5']),
      properties: { port: { type: 'integer', minimum: 1, maximum: 65535, default: 80 } },
    });
    const sources = properties.sources.items;
    const openMeteo = sources.allOf.find(
      (c: { if: { properties: { kind: { const: string } } } }) => c.if.properties.kind.const === 'open_meteo',
    );
    expect(openMeteo.then.properties.config.properties.past_days).toMatchObject({
      description: 'clamped to 1..7 at runtime; null = 3',
    });
  });

  it('GET /config/validate reports on the config on disk', async () => {
    const booted = await services.boot();
    await put(booted, configWithSecrets()).expect(200);
    const res = await request(booted.service.server).get('/api/v1/config/validate').expect(200);
    expect(res.body.ok).toBe(true);
    expect(res.body.errors).toEqual([]);
    expect(Array.isArray(res.body.warnings)).toBe(true);
  });

  it('POST /config/preview reports {ok, errors, warnings} and writes nothing', async () => {
    const booted = await services.boot();
    const good = await request(booted.service.server)
      .post('/api/v1/config/preview')
      .send({ candidate: configWithSecrets() })
      .expect(200);
    expect(good.body).toEqual({ ok: true, errors: [], warnings: expect.any(Array) });
    expect(fs.existsSync(booted.configPath)).toBe(false);

    await put(booted, configWithSecrets()).expect(200);
    const before = fs.readFileSync(booted.configPath);
    const bad = await request(booted.service.server)
      .post('/api/v1/config/preview')
      .send({ candidate: minimalConfig({ zones: { front: { sessions_per_week: 9 } } }) })
      .expect(200);
    expect(bad.body.ok).toBe(false);
    expect(bad.body.errors.length).toBeGreaterThan(0);
    expect(bad.body.errors.map((e: Doc) => e.code)).toContain('zone_sessions_per_week_range');
    expect(fs.readFileSync(booted.configPath).equals(before)).toBe(true);
    expect(snapshotFiles(booted)).toEqual([]);

    // A sentinel in a preview is matched against the stored secret, as a save would.
    const redacted = (await request(booted.service.server).get('/api/v1/config').expect(200)).body;
    const preview = await request(booted.service.server)
      .post('/api/v1/config/preview')
      .send({ candidate: redacted })
      .expect(200);
    expect(preview.body.ok).toBe(true);

    const missing = await request(booted.service.server)
      .post('/api/v1/config/preview')
      .send({ nope: 1 })
      .expect(400);
    expect(missing.body.code).toBe('invalid_body');
  });
});

describe('config snapshots and rollback', () => {
  async function threeSaves(booted: BootedService): Promise<string[]> {
    const names = ['First', 'Second', 'Third'];
    for (const name of names) {
      const config = configWithSecrets();
      (config.deployment as Doc).display_name = name;
      await put(booted, config).expect(200);
    }
    return names;
  }

  it('lists snapshots newest first, identically under /config/snapshots and /backup/snapshots', async () => {
    const booted = await services.boot();
    const empty = await request(booted.service.server).get('/api/v1/config/snapshots').expect(200);
    expect(empty.body).toEqual({ snapshots: [] });

    await threeSaves(booted);
    const list = await request(booted.service.server).get('/api/v1/config/snapshots').expect(200);
    const backup = await request(booted.service.server).get('/api/v1/backup/snapshots').expect(200);
    const legacy = await request(booted.service.server).get('/api/config/snapshots').expect(200);
    expect(backup.body).toEqual(list.body);
    expect(legacy.body).toEqual(list.body);

    const snapshots = list.body.snapshots as Doc[];
    expect(snapshots).toHaveLength(2);
    for (const item of snapshots) {
      expect(Object.keys(item).sort()).toEqual(['applied_at_epoch', 'note', 'schema_version', 'ts']);
      expect(item.ts).toMatch(/^\d{13,}$/);
      expect(typeof item.applied_at_epoch).toBe('number');
      expect(item.schema_version).toBe(2);
      expect(typeof item.note).toBe('string');
    }
    const [newest, older] = snapshots as [Doc, Doc];
    expect(BigInt(newest.ts)).toBeGreaterThan(BigInt(older.ts));
  });

  it("reads one snapshot's text with secrets masked, and 404s an unknown one", async () => {
    const booted = await services.boot();
    await threeSaves(booted);
    const { snapshots } = (await request(booted.service.server).get('/api/v1/config/snapshots')).body as {
      snapshots: Doc[];
    };
    const [second, first] = snapshots as [Doc, Doc];
    const text = await request(booted.service.server)
      .get(`/api/v1/config/snapshots/${second.ts}`)
      .expect(200);
    expect(text.headers['content-type']).toMatch(/^application\/toml/);
    expect(text.text).toMatch(/display_name = "Second"/);
    expect(text.text).not.toContain(SECRET_PASSWORD_MD5);
    expect(text.text).toContain(REDACTED);
    const older = await request(booted.service.server)
      .get(`/api/v1/config/snapshots/${first.ts}`)
      .expect(200);
    expect(older.text).toMatch(/display_name = "First"/);

    const missing = await request(booted.service.server)
      .get('/api/v1/config/snapshots/1234567890123')
      .expect(404);
    expect(missing.body).toMatchObject({ code: 'snapshot_not_found', ts: '1234567890123' });
    await request(booted.service.server).get('/api/v1/config/snapshots/..%2Fconfig').expect(404);
  });

  it('restores a snapshot with POST /config/rollback {ts} and with legacy ?to=', async () => {
    const booted = await services.boot();
    await threeSaves(booted);
    const { snapshots } = (await request(booted.service.server).get('/api/v1/config/snapshots')).body as {
      snapshots: Doc[];
    };
    // Newest snapshot holds "Second", the older one "First".
    const [second, first] = snapshots as [Doc, Doc];

    const res = await request(booted.service.server)
      .post('/api/v1/config/rollback')
      .send({ ts: first.ts })
      .expect(200);
    expect(res.body.saved).toEqual(expect.objectContaining({ schema_version: 2 }));
    expect(readToml(booted.configPath).deployment.display_name).toBe('First');
    let current = (await request(booted.service.server).get('/api/v1/config')).body;
    expect(current.deployment.display_name).toBe('First');
    // The secrets came back with the snapshot.
    expect(readToml(booted.configPath).controllers[0].config.password_md5).toBe(SECRET_PASSWORD_MD5);

    await request(booted.service.server).post(`/api/v1/config/rollback?to=${second.ts}`).expect(200);
    current = (await request(booted.service.server).get('/api/v1/config')).body;
    expect(current.deployment.display_name).toBe('Second');

    // Each rollback snapshotted what it replaced, so it can be undone.
    const after = (await request(booted.service.server).get('/api/v1/config/snapshots')).body.snapshots;
    expect(after).toHaveLength(4);
  });

  it('rolls back out of an invalid config found on disk at boot', async () => {
    const first = await services.boot();
    await threeSaves(first);
    const { snapshots } = (await request(first.service.server).get('/api/v1/config/snapshots')).body as {
      snapshots: Doc[];
    };
    await first.service.stop();
    fs.writeFileSync(first.configPath, 'schema_version = 2\n[deployment.location]\nlat = 500.0\nlon = 0.0\n');

    const booted = await services.boot({ dataDir: first.dataDir });
    const degraded = await request(booted.service.server).get('/api/v1/health').expect(200);
    expect(degraded.body.subsystems.config).toBe('invalid');
    const report = await request(booted.service.server).get('/api/v1/config/validate').expect(200);
    expect(report.body.ok).toBe(false);
    expect(report.body.errors.length).toBeGreaterThan(0);

    await request(booted.service.server)
      .post('/api/v1/config/rollback')
      .send({ ts: (snapshots[0] as Doc).ts })
      .expect(200);
    const healthy = await request(booted.service.server).get('/api/v1/health?strict=1').expect(200);
    expect(healthy.body.subsystems.config).toBe('ok');
    expect(readToml(booted.configPath).deployment.display_name).toBe('Second');
  });

  it('answers 404 for an unknown snapshot and changes nothing', async () => {
    const booted = await services.boot();
    await threeSaves(booted);
    const before = fs.readFileSync(booted.configPath);
    for (const ts of ['1000000000000', '../config', 'latest']) {
      const res = await request(booted.service.server)
        .post('/api/v1/config/rollback')
        .send({ ts })
        .expect(404);
      expect(res.body.code).toBe('snapshot_not_found');
    }
    await request(booted.service.server).post('/api/v1/config/rollback?to=9999999999999').expect(404);
    expect(fs.readFileSync(booted.configPath).equals(before)).toBe(true);
  });
});

describe('GET and PUT /config/raw', () => {
  it('serves the TOML text with secrets masked, and round-trips it', async () => {
    const booted = await services.boot();
    await put(booted, configWithSecrets()).expect(200);
    const raw = await request(booted.service.server).get('/api/v1/config/raw').expect(200);
    expect(raw.headers['content-type']).toMatch(/^application\/toml/);
    expect(raw.text).not.toContain(SECRET_API_KEY);
    expect(raw.text).not.toContain(SECRET_PASSWORD_MD5);
    expect(raw.text).toContain(REDACTED);
    expect(parse(raw.text)).toHaveProperty('schema_version', 2);

    const edited = raw.text.replace(/Front lawn/, 'Front lawn (edited)');
    const res = await request(booted.service.server)
      .put('/api/v1/config/raw')
      .set('Content-Type', 'application/toml')
      .send(edited)
      .expect(200);
    expect(res.body.saved).toEqual(expect.objectContaining({ schema_version: 2 }));
    const onDisk = readToml(booted.configPath);
    expect(onDisk.zones.front_lawn.display_name).toBe('Front lawn (edited)');
    expect(onDisk.sources[0].config.api_key).toBe(SECRET_API_KEY);
    expect(onDisk.controllers[0].config.password_md5).toBe(SECRET_PASSWORD_MD5);

    const json = await request(booted.service.server).get('/api/v1/config').expect(200);
    expect(json.body.zones.front_lawn.display_name).toBe('Front lawn (edited)');
  });

  it('refuses broken TOML with 422 config_invalid and leaves the file alone', async () => {
    const booted = await services.boot();
    await put(booted, configWithSecrets()).expect(200);
    const before = fs.readFileSync(booted.configPath);
    const res = await request(booted.service.server)
      .put('/api/v1/config/raw')
      .set('Content-Type', 'text/plain')
      .send('schema_version = 2\n[deployment.location\nlat = 1\n')
      .expect(422);
    expect(res.body.error).toBe('config_invalid');
    expect(res.body.code).toBe('config_invalid');
    expect(res.body.validation.errors.length).toBeGreaterThan(0);
    expect(fs.readFileSync(booted.configPath).equals(before)).toBe(true);
  });

  it('accepts a raw write as the first config', async () => {
    const booted = await services.boot();
    await request(booted.service.server)
      .put('/api/v1/config/raw')
      .set('Content-Type', 'text/plain')
      .send('schema_version = 2\n\n[deployment.location]\nlat = 51.5\nlon = -0.12\n')
      .expect(200);
    const get = await request(booted.service.server).get('/api/v1/config').expect(200);
    expect(get.headers['x-raincheck-config-present']).toBe('true');
    expect(get.body.deployment.location).toEqual({ lat: 51.5, lon: -0.12 });
  });

  it('keeps the comments of a raw write, whatever content type it is sent with', async () => {
    const booted = await services.boot();
    const text =
      '# my yard\nschema_version = 2\n\n[deployment.location]\nlat = 51.5 # Greenwich-ish\nlon = -0.12\n';
    await request(booted.service.server)
      .put('/api/v1/config/raw')
      .set('Content-Type', 'application/json')
      .send(text)
      .expect(200);
    expect(fs.readFileSync(booted.configPath, 'utf8')).toBe(text);
    const raw = await request(booted.service.server).get('/api/v1/config/raw').expect(200);
    expect(raw.text).toContain('# Greenwich-ish');
  });
});

describe('a config file that is not TOML at boot', () => {
  it('counts as present, reports the parse error, and stays untouched', async () => {
    const broken = 'schema_version = 2\n[deployment\n';
    const booted = await services.boot({ configToml: broken });
    const health = await request(booted.service.server).get('/api/v1/health').expect(200);
    expect(health.body.config_present).toBe(true);
    expect(health.body.subsystems.config).toBe('invalid');
    const report = await request(booted.service.server).get('/api/v1/config/validate').expect(200);
    expect(report.body.ok).toBe(false);
    expect(report.body.errors[0].code).toBe('toml_parse');
    expect(fs.readFileSync(booted.configPath, 'utf8')).toBe(broken);
  });
});
