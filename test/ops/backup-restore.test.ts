import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { silentLogger } from '../../server/src/core/logger';
import { openDatabase, closeDatabase, type Database } from '../../server/src/store/database';
import { latestVersion, MIGRATIONS } from '../../server/src/store/migrations';
import { createBackup } from '../../server/src/ops/backup/create-backup';
import { systemClock } from '../../server/src/core/clock';
import { serviceTracker, makeDataDir, type BootedService } from '../helpers/service';
import { readBundle, replaceEntry, writeBundle } from './bundle';

/**
 * GET /backup and POST /backup/restore through the real service: a backup
 * taken while the service writes restores into a fresh instance with the
 * same history, config, accounts and controls; a bundle of the previous
 * database schema migrates at the restart; every bad upload is refused with
 * its code and leaves the data directory exactly as it was.
 */

const { boot } = serviceTracker();
const SECRET = 'tok-9f3e1c2a7b';

const CONFIG = `schema_version = 2
# a comment the restore keeps
[deployment]
display_name = "Backup yard"
[deployment.location]
lat = 40.7
lon = -74.0

[[sources]]
id = "owm"
kind = "openweather"
enabled = false
priority = 10
[sources.config]
api_key = "${SECRET}"

[zones.front_lawn]
display_name = "Front lawn"
species = "tall_fescue"
`;

const T0 = 1_700_000_000;

function db(booted: BootedService): Database {
  const store = booted.service.store;
  if (!store) throw new Error('no store');
  return store.db;
}

function seed(database: Database): void {
  const insertRun = database.prepare(
    `INSERT INTO runs (zone, start_epoch, duration_s, source, status, applied_mm, note)
     VALUES (?, ?, ?, 'manual', 'completed', ?, ?)`,
  );
  const insertReading = database.prepare(
    "INSERT INTO readings (epoch, source_id, field, value) VALUES (?, 'seed', 'temp_f', ?)",
  );
  database.transaction(() => {
    for (let i = 0; i < 3000; i += 1) {
      insertRun.run('front_lawn', T0 + i * 3600, 600, 4.2, `seed ${i}`);
      insertReading.run(T0 + i * 60, 50 + (i % 30));
    }
    database
      .prepare(
        "INSERT INTO accounts (username, password_hash, created_epoch) VALUES ('owner', 'scrypt$x', ?)",
      )
      .run(T0);
    database.prepare("INSERT INTO controls (key, value) VALUES ('pause_until_epoch', '1800000000')").run();
    database.prepare("INSERT INTO controls (key, value) VALUES ('global_override', '\"skip\"')").run();
  })();
}

/** Rows that tell whether two databases hold the same history, accounts and controls. */
function dump(database: Database, stormTo = Infinity) {
  return {
    runs: database.prepare('SELECT * FROM runs WHERE start_epoch < ? ORDER BY id').all(T0 + 3000 * 3600),
    readings: database.prepare("SELECT * FROM readings WHERE source_id = 'seed' ORDER BY epoch").all(),
    storm: database
      .prepare("SELECT epoch, value FROM readings WHERE source_id = 'storm' AND epoch <= ? ORDER BY epoch")
      .all(stormTo) as { epoch: number; value: number }[],
    stormRuns: database
      .prepare("SELECT start_epoch FROM runs WHERE note = 'storm' ORDER BY start_epoch")
      .all() as {
      start_epoch: number;
    }[],
    accounts: database.prepare('SELECT * FROM accounts ORDER BY id').all(),
    controls: database
      .prepare("SELECT * FROM controls WHERE key IN ('pause_until_epoch', 'global_override') ORDER BY key")
      .all(),
  };
}

/** `actual`'s rows cut down to the columns of `reference`'s rows (an older schema's). */
function withColumnsOf(reference: unknown[], actual: unknown[]): unknown[] {
  const columns = Object.keys((reference[0] ?? {}) as object);
  return actual.map((row) =>
    Object.fromEntries(columns.map((column) => [column, (row as Record<string, unknown>)[column]])),
  );
}

/** Writes a run and its reading in one transaction, every millisecond, until stopped. */
function writeStorm(database: Database): () => number {
  let n = 0;
  const write = database.transaction((i: number) => {
    database
      .prepare("INSERT INTO readings (epoch, source_id, field, value) VALUES (?, 'storm', 'temp_f', ?)")
      .run(T0 + i, i);
    database
      .prepare(
        "INSERT INTO runs (zone, start_epoch, duration_s, source, status, note) VALUES ('front_lawn', ?, 1, 'manual', 'completed', 'storm')",
      )
      .run(T0 + 20_000_000 + i);
  });
  const timer = setInterval(() => {
    for (let k = 0; k < 20; k += 1) write((n += 1));
  }, 1);
  return () => {
    clearInterval(timer);
    return n;
  };
}

async function download(booted: BootedService): Promise<Buffer> {
  const res = await request(booted.service.server)
    .get('/api/v1/backup')
    .buffer(true)
    .parse((response, done) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => done(null, Buffer.concat(chunks)));
    })
    .expect(200);
  expect(res.headers['content-type']).toBe('application/gzip');
  expect(res.headers['content-disposition']).toMatch(/^attachment; filename="raincheck-backup-.*\.tar\.gz"$/);
  return res.body as Buffer;
}

function upload(booted: BootedService, bytes: Buffer, name: string, query = '') {
  return request(booted.service.server).post(`/api/v1/backup/restore${query}`).attach('file', bytes, name);
}

/** Everything in a data directory, by relative path and content hash. */
function fingerprint(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (sub: string) => {
    for (const entry of fs.readdirSync(path.join(dir, sub), { withFileTypes: true })) {
      const rel = path.join(sub, entry.name);
      if (entry.isDirectory()) walk(rel);
      // The live database changes under the running service; everything else must not.
      else if (!/^raincheck\.db(-wal|-shm)?$/.test(rel) && !rel.endsWith('forecast-cache.json'))
        out[rel] = fs.readFileSync(path.join(dir, rel)).toString('base64');
    }
  };
  walk('');
  return out;
}

describe('GET /backup', () => {
  it('holds the config, snapshots, database, photos and a manifest, and never the private key directory', async () => {
    const booted = await boot({ configToml: CONFIG });
    await request(booted.service.server)
      .put('/api/v1/config/raw')
      .set('content-type', 'application/toml')
      .send(CONFIG.replace('Backup yard', 'Backup yard 2'))
      .expect(200);
    // The notify domain generated the Web Push keypair at first start; a second secret file stands beside it.
    const vapid = JSON.parse(fs.readFileSync(path.join(booted.dataDir, 'private', 'vapid.json'), 'utf8'));
    expect(typeof vapid.private_key).toBe('string');
    fs.writeFileSync(path.join(booted.dataDir, 'private', 'vapid-private.pem'), 'PRIVATE-KEY-MATERIAL-123');
    fs.mkdirSync(path.join(booted.dataDir, 'photos'), { recursive: true });
    fs.writeFileSync(path.join(booted.dataDir, 'photos', `${'a'.repeat(32)}.png`), Buffer.from([0x89, 0x50]));

    const bundle = await download(booted);
    const entries = await readBundle(bundle);
    const names = entries.map((e) => e.name);

    expect(names.at(-1)).toBe('manifest.json');
    expect(names).toEqual(
      expect.arrayContaining([
        'config/config.toml',
        'database/raincheck.db',
        `photos/${'a'.repeat(32)}.png`,
        'install-id',
      ]),
    );
    expect(names.filter((n) => n.startsWith('config/snapshots/'))).toHaveLength(1);
    expect(names.some((n) => n.includes('private'))).toBe(false);
    expect(gunzipText(bundle)).not.toContain('PRIVATE-KEY-MATERIAL-123');
    expect(gunzipText(bundle)).not.toContain(vapid.private_key);
    const manifest = JSON.parse(entries.at(-1)!.bytes.toString('utf8'));
    expect(manifest).toMatchObject({
      format: 'raincheck-backup',
      format_version: 1,
      service: 'raincheck',
      config_schema_version: 2,
      database_schema_version: latestVersion(),
    });
    expect(manifest.files.map((f: { path: string }) => f.path)).toEqual(names.slice(0, -1));
    // The config in a bundle is the real one (it must restore): the bundle is private.
    expect(entries.find((e) => e.name === 'config/config.toml')!.bytes.toString()).toContain(SECRET);
  });
});

function gunzipText(bundle: Buffer): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('node:zlib') as typeof import('node:zlib')).gunzipSync(bundle).toString('latin1');
}

describe('GET /backup leaves nothing behind', () => {
  it('no temp copy of the database, nor its -wal or -shm, stays in the data directory after the download or the shutdown', async () => {
    const booted = await boot({ configToml: CONFIG });
    seed(db(booted));
    const temps = () => fs.readdirSync(booted.dataDir).filter((name) => name.includes('.tmp-'));
    await download(booted);
    await download(booted);
    // The temp copy is removed when the stream closes, a moment after the last byte.
    for (let i = 0; i < 100 && temps().length > 0; i += 1) await new Promise((r) => setTimeout(r, 20));
    expect(temps()).toEqual([]);
    await booted.service.stop();
    expect(temps()).toEqual([]);
  });
});

describe('backup and restore', () => {
  it('a backup taken during a write storm restores into a fresh instance with identical history, config, accounts and controls', async () => {
    const source = await boot({ configToml: CONFIG });
    seed(db(source));
    const stop = writeStorm(db(source));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const bundle = await download(source);
    const written = stop();
    expect(written).toBeGreaterThan(0);
    const before = dump(db(source));

    const target = await boot();
    const res = await upload(target, bundle, 'raincheck-backup.tar.gz').expect(200);
    expect(res.body).toMatchObject({
      dry_run: false,
      kind: 'bundle',
      database: { staged: true, applies: 'next_boot', schema_version: latestVersion() },
      config: { changed: true },
      restart_required: true,
    });
    expect(res.body.config.saved.revision).toBeGreaterThan(0);
    // The restored config applies at once, through the normal write path; the database waits for the restart.
    const snapshot = await request(target.service.server).get('/api/v1/irrigation/snapshot').expect(200);
    expect(snapshot.body.restart_required).toBe(true);
    expect(fs.readFileSync(target.configPath, 'utf8')).toBe(fs.readFileSync(source.configPath, 'utf8'));
    await target.service.stop();

    const restarted = await boot({ dataDir: target.dataDir });
    const after = dump(db(restarted));
    expect(after.runs).toEqual(before.runs);
    expect(after.readings).toEqual(before.readings);
    expect(after.accounts).toEqual(before.accounts);
    expect(after.controls).toEqual(before.controls);
    // The storm's writes are whole transactions: the copy holds a prefix of them, each with its run.
    expect(after.storm.length).toBeGreaterThan(0);
    expect(after.storm).toEqual(before.storm.slice(0, after.storm.length));
    expect(after.stormRuns).toHaveLength(after.storm.length);
    const config = await request(restarted.service.server).get('/api/v1/config').expect(200);
    expect(config.body.deployment.display_name).toBe('Backup yard');
    const info = await request(restarted.service.server).get('/api/v1/info').expect(200);
    const sourceInfo = await request(source.service.server).get('/api/v1/info').expect(200);
    expect(info.body.uuid).toBe(sourceInfo.body.uuid);
    const again = await request(restarted.service.server).get('/api/v1/irrigation/snapshot').expect(200);
    expect(again.body.restart_required).toBe(false);
  });

  it('a bundle from the previous database schema restores through the migrations', async () => {
    const dir = makeDataDir();
    const file = path.join(dir, 'old.db');
    const old = openDatabase(file, silentLogger(), { migrations: MIGRATIONS.slice(0, 1) });
    expect(old.pragma('user_version', { simple: true })).toBe(1);
    seed(old);
    fs.writeFileSync(path.join(dir, 'config.toml'), CONFIG);
    const stream = await createBackup({
      dataDir: dir,
      configPath: path.join(dir, 'config.toml'),
      db: old,
      clock: systemClock,
      logger: silentLogger(),
      env: {},
    });
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    const expected = dump(old);
    closeDatabase(old);
    fs.rmSync(dir, { recursive: true, force: true });

    const target = await boot({ configToml: CONFIG });
    const res = await upload(target, Buffer.concat(chunks), 'old.tar.gz').expect(200);
    expect(res.body.database).toMatchObject({
      schema_version: 1,
      migrates_to: latestVersion(),
      staged: true,
    });
    expect(res.body.config.changed).toBe(false);
    await target.service.stop();

    const restarted = await boot({ dataDir: target.dataDir });
    expect(restarted.service.store?.schemaVersion).toBe(latestVersion());
    // Every row and value the old schema held is there; columns later migrations added read null.
    const restored = dump(db(restarted));
    expect(withColumnsOf(expected.runs, restored.runs)).toEqual(expected.runs);
    expect({ ...restored, runs: expected.runs }).toEqual(expected);
  });

  it('a bare config restores through the config write path, snapshotting the current one', async () => {
    const target = await boot({ configToml: CONFIG });
    const next = CONFIG.replace('Backup yard', 'Restored yard');
    const preview = await upload(target, Buffer.from(next), 'config.toml', '?dry_run=1').expect(200);
    expect(preview.body).toMatchObject({
      dry_run: true,
      kind: 'config',
      config: { changed: true, changes: ['$.deployment.display_name'], saved: null },
      database: null,
      restart_required: false,
    });
    expect(fs.readFileSync(target.configPath, 'utf8')).toBe(CONFIG);

    const res = await upload(target, Buffer.from(next), 'config.toml').expect(200);
    expect(res.body.config.saved.previous_snapshot_ts).toMatch(/^\d{13,}$/);
    expect(fs.readFileSync(target.configPath, 'utf8')).toBe(next);
  });

  it('a changed secret is named by its path in the preview, never by its value', async () => {
    const target = await boot({ configToml: CONFIG });
    const res = await upload(
      target,
      Buffer.from(CONFIG.replace(SECRET, 'tok-new-secret-55')),
      'c.toml',
      '?dry_run=1',
    ).expect(200);
    expect(res.body.config.changes).toEqual(['$.sources.owm.config.api_key']);
    expect(JSON.stringify(res.body)).not.toContain('tok-new-secret-55');
    expect(JSON.stringify(res.body)).not.toContain(SECRET);
  });
});

describe('POST /backup/restore takes its one file under any field name', () => {
  it('a single file part named "bundle" restores; two file parts are refused with 400 invalid_body', async () => {
    const target = await boot({ configToml: CONFIG });
    const next = CONFIG.replace('Backup yard', 'Renamed field yard');
    const res = await request(target.service.server)
      .post('/api/v1/backup/restore?dry_run=1')
      .attach('bundle', Buffer.from(next), 'config.toml');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ kind: 'config', config: { changes: ['$.deployment.display_name'] } });

    const before = fingerprint(target.dataDir);
    const two = await request(target.service.server)
      .post('/api/v1/backup/restore')
      .attach('bundle', Buffer.from(next), 'config.toml')
      .attach('other', Buffer.from(next), 'config2.toml');
    expect({ status: two.status, code: two.body.code }).toEqual({ status: 400, code: 'invalid_body' });
    expect(fingerprint(target.dataDir)).toEqual(before);
  });
});

describe('refused uploads change nothing', () => {
  async function refusedWith(
    booted: BootedService,
    bytes: Buffer,
    status: number,
    code: string,
  ): Promise<void> {
    const before = fingerprint(booted.dataDir);
    const res = await upload(booted, bytes, 'raincheck-backup.tar.gz');
    expect({ status: res.status, code: res.body.code }).toEqual({ status, code });
    expect(fingerprint(booted.dataDir)).toEqual(before);
  }

  let source: BootedService;
  let bundle: Buffer;
  beforeEach(async () => {
    source = await boot({ configToml: CONFIG });
    seed(db(source));
    bundle = await download(source);
  });

  it('a truncated bundle', async () => {
    await refusedWith(source, bundle.subarray(0, Math.floor(bundle.length / 2)), 400, 'backup_truncated');
  });

  it('a corrupted bundle', async () => {
    const corrupted = Buffer.from(bundle);
    for (let i = 200; i < 260; i += 1) corrupted[i] = corrupted[i]! ^ 0x5a;
    await refusedWith(source, corrupted, 400, 'backup_corrupted');
  });

  it('a bundle whose file does not match its manifest checksum', async () => {
    const entries = await readBundle(bundle);
    const altered = replaceEntry(
      entries,
      'config/config.toml',
      Buffer.from(CONFIG.replace('40.7', '41.7')),
      false,
    );
    await refusedWith(source, await writeBundle(altered), 422, 'backup_checksum_mismatch');
  });

  it('an oversized bundle', async () => {
    const small = await boot({
      configToml: CONFIG,
      serviceOptions: { restoreLimits: { maxUploadBytes: 1024, maxUnpackedBytes: 1024 * 1024 } },
    });
    await refusedWith(small, bundle, 413, 'backup_too_large');
  });

  it('a bundle that unpacks past the limit', async () => {
    const small = await boot({
      configToml: CONFIG,
      serviceOptions: { restoreLimits: { maxUploadBytes: 1024 * 1024 * 1024, maxUnpackedBytes: 64 * 1024 } },
    });
    await refusedWith(small, bundle, 413, 'backup_too_large');
  });

  it('a database from a newer schema', async () => {
    const entries = await readBundle(bundle);
    const dir = makeDataDir();
    const file = path.join(dir, 'newer.db');
    fs.writeFileSync(file, entries.find((e) => e.name === 'database/raincheck.db')!.bytes);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const Sqlite = require('better-sqlite3') as typeof import('better-sqlite3');
    const newer = new Sqlite(file);
    newer.pragma(`user_version = ${latestVersion() + 1}`);
    newer.close();
    const altered = replaceEntry(entries, 'database/raincheck.db', fs.readFileSync(file), true);
    fs.rmSync(dir, { recursive: true, force: true });
    await refusedWith(source, await writeBundle(altered), 422, 'backup_schema_too_new');
  });

  it('a database that fails its integrity check', async () => {
    const entries = await readBundle(bundle);
    const database = Buffer.from(entries.find((e) => e.name === 'database/raincheck.db')!.bytes);
    for (let i = 4096 * 3; i < 4096 * 3 + 2000; i += 1) database[i] = 0xff;
    const altered = replaceEntry(entries, 'database/raincheck.db', database, true);
    await refusedWith(source, await writeBundle(altered), 422, 'backup_database_invalid');
  });

  it('a config that does not validate, and something that is no backup at all', async () => {
    await refusedWith(
      source,
      Buffer.from(CONFIG.replace('lat = 40.7', 'lat = 140.7')),
      422,
      'config_invalid',
    );
    await refusedWith(source, Buffer.from([0, 1, 2, 3, 0, 0, 255, 254]), 400, 'backup_unrecognized');
  });

  it('a bundle with an entry no bundle holds', async () => {
    const entries = await readBundle(bundle);
    const altered = [{ name: '../escape.txt', bytes: Buffer.from('x') }, ...entries];
    await refusedWith(source, await writeBundle(altered), 400, 'backup_corrupted');
  });
});
