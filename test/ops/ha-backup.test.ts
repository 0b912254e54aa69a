import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { parse } from 'yaml';
import type { Database } from '../../server/src/store/database';
import { makeDataDir, serviceTracker, type BootedService } from '../helpers/service';

/**
 * Home Assistant's hot backup of the add-on: the Supervisor runs backup_pre,
 * tars /data without what backup_exclude names, runs backup_post. Here the
 * real commands (bin/raincheck-ha-backup, built by `npm test`) run against a
 * live service under a write storm; the copy must be one consistent state,
 * and a data directory restored from what the tar would hold must boot with
 * that history.
 */

const { boot } = serviceTracker();
const ROOT = path.join(__dirname, '..', '..');
const COMMAND = path.join(ROOT, 'bin', 'raincheck-ha-backup');
const CONFIG = `schema_version = 2
[deployment.location]
lat = 40.7
lon = -74.0
`;

interface AddonConfig {
  backup: string;
  backup_pre: string;
  backup_post: string;
  backup_exclude: string[];
}
const addon = parse(fs.readFileSync(path.join(ROOT, 'config.yaml'), 'utf8')) as AddonConfig;

function run(step: 'pre' | 'post', dataDir: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(COMMAND, [step], { env: { ...process.env, RAINCHECK_DATA_DIR: dataDir } });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, out }));
  });
}

function storm(database: Database): () => void {
  let n = 0;
  const write = database.transaction((i: number) => {
    database
      .prepare("INSERT INTO readings (epoch, source_id, field, value) VALUES (?, 'storm', 'temp_f', ?)")
      .run(1_700_000_000 + i, i);
    database
      .prepare(
        "INSERT INTO runs (zone, start_epoch, duration_s, source, status, note) VALUES ('z', ?, 1, 'manual', 'completed', 'storm')",
      )
      .run(1_700_000_000 + i);
  });
  const timer = setInterval(() => {
    for (let k = 0; k < 20; k += 1) write((n += 1));
  }, 1);
  return () => clearInterval(timer);
}

/** What the Supervisor's tar would hold: every file but those backup_exclude names (matched on the file name). */
function copyAsBackup(from: string, to: string): void {
  const excluded = (name: string) =>
    addon.backup_exclude.some((pattern) => path.matchesGlob?.(name, pattern) ?? name === pattern);
  for (const entry of fs.readdirSync(from, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || excluded(entry.name)) continue;
    const rel = path.relative(from, path.join(entry.parentPath, entry.name));
    fs.mkdirSync(path.dirname(path.join(to, rel)), { recursive: true });
    fs.copyFileSync(path.join(from, rel), path.join(to, rel));
  }
}

function counts(file: string): { readings: number; runs: number; integrity: string } {
  const db = new BetterSqlite3(file, { readonly: true });
  try {
    return {
      readings: (
        db.prepare("SELECT COUNT(*) AS n FROM readings WHERE source_id = 'storm'").get() as { n: number }
      ).n,
      runs: (db.prepare("SELECT COUNT(*) AS n FROM runs WHERE note = 'storm'").get() as { n: number }).n,
      integrity: db.pragma('integrity_check', { simple: true }) as string,
    };
  } finally {
    db.close();
  }
}

describe('Home Assistant backups', () => {
  it('config.yaml takes hot backups with the pre and post commands, and excludes the live database', () => {
    // Hot is the Supervisor's default, which the add-on linter wants left unwritten.
    expect(addon.backup ?? 'hot').toBe('hot');
    expect(addon.backup_pre).toBe('/app/bin/raincheck-ha-backup pre');
    expect(addon.backup_post).toBe('/app/bin/raincheck-ha-backup post');
    expect(addon.backup_exclude).toEqual(
      expect.arrayContaining(['raincheck.db', 'raincheck.db-wal', 'raincheck.db-shm']),
    );
    expect(fs.statSync(COMMAND).mode & 0o111).not.toBe(0);
  });

  it('a backup taken while the service writes restores to a consistent database', async () => {
    const live: BootedService = await boot({ configToml: CONFIG });
    const stop = storm(live.service.store!.db);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const pre = await run('pre', live.dataDir);
    await new Promise((resolve) => setTimeout(resolve, 50));
    stop();
    expect(pre).toEqual({ code: 0, out: expect.stringContaining('raincheck-snapshot.sqlite') });

    const copy = path.join(live.dataDir, 'ha-backup', 'raincheck-snapshot.sqlite');
    const copied = counts(copy);
    expect(copied.integrity).toBe('ok');
    expect(copied.readings).toBeGreaterThan(0);
    // Each storm transaction wrote a reading and a run: a consistent copy holds both or neither.
    expect(copied.runs).toBe(copied.readings);
    expect(counts(path.join(live.dataDir, 'raincheck.db')).readings).toBeGreaterThan(copied.readings);

    const restoredDir = makeDataDir();
    copyAsBackup(live.dataDir, restoredDir);
    expect(fs.existsSync(path.join(restoredDir, 'raincheck.db'))).toBe(false);
    expect((await run('post', live.dataDir)).code).toBe(0);
    expect(fs.existsSync(path.join(live.dataDir, 'ha-backup'))).toBe(false);

    const restored = await boot({ dataDir: restoredDir });
    const db = restored.service.store!.db;
    expect(
      (db.prepare("SELECT COUNT(*) AS n FROM readings WHERE source_id = 'storm'").get() as { n: number }).n,
    ).toBe(copied.readings);
    expect(fs.existsSync(path.join(restoredDir, 'ha-backup'))).toBe(false);
  });
});
