import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  createReadStream,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { createGzip } from 'node:zlib';
import type { Readable } from 'node:stream';
import type { Pack } from 'tar-stream';
import type { Clock } from '../../core/clock';
import { epochSeconds } from '../../core/clock';
import type { Logger } from '../../core/logger';
import { buildRevision, SERVICE_NAME, SERVICE_VERSION } from '../../core/version';
import { PHOTO_DIR, PHOTO_NAME } from '../../photos/store';
import type { Database } from '../../store/database';
import { copyDatabase } from './database-copy';
import {
  BUNDLE_FORMAT,
  BUNDLE_FORMAT_VERSION,
  CONFIG_ENTRY,
  DATABASE_ENTRY,
  INSTALL_ID_ENTRY,
  MANIFEST_ENTRY,
  PHOTO_PREFIX,
  SNAPSHOT_NAME,
  SNAPSHOT_PREFIX,
  type BackupManifest,
  type ManifestFile,
} from './layout';

/**
 * GET /backup: the bundle as a stream (layout.ts). The database copy is taken
 * first (online backup into a temp file in the data directory), then every
 * entry is streamed into the tar and hashed on the way; the manifest, with
 * each file's size and SHA-256, is the last entry. Nothing is held in memory
 * beyond one chunk; the temp copy is removed when the stream ends or fails.
 */

export interface BackupSources {
  dataDir: string;
  configPath: string;
  db: Database | null;
  clock: Clock;
  logger: Logger;
  env: NodeJS.ProcessEnv;
}

/**
 * Level 1: a 10-year database (about 160 MB) compresses to about a fifth of
 * its size either way; level 6 (the default) takes several times longer and
 * broke the 10 s backup budget (bench backup-time).
 */
const GZIP_LEVEL = 1;

interface PlannedFile {
  name: string;
  /** A file to stream, or bytes in hand. */
  from: { path: string } | { bytes: Buffer };
}

export async function createBackup(sources: BackupSources): Promise<Readable> {
  const temp = sources.db
    ? join(sources.dataDir, `raincheck.db.backup.tmp-${randomBytes(6).toString('hex')}`)
    : null;
  let databaseVersion: number | null = null;
  if (sources.db && temp) {
    await copyDatabase(sources.db, temp);
    databaseVersion = userVersion(temp);
  }
  const files = planFiles(sources, temp);
  const config = files.find((f) => f.name === CONFIG_ENTRY);
  const manifestBase = {
    format: BUNDLE_FORMAT,
    format_version: BUNDLE_FORMAT_VERSION,
    service: SERVICE_NAME,
    service_version: SERVICE_VERSION,
    build_revision: buildRevision(sources.env),
    created_epoch: epochSeconds(sources.clock),
    config_schema_version: config && 'bytes' in config.from ? schemaVersionOf(config.from.bytes) : null,
    database_schema_version: databaseVersion,
    install_id: installIdOf(sources.dataDir),
  } satisfies Omit<BackupManifest, 'files'>;

  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const tar = require('tar-stream') as typeof import('tar-stream');
  const pack = tar.pack();
  const gzip = createGzip({ level: GZIP_LEVEL });
  pack.pipe(gzip);
  const cleanup = () => {
    if (temp) removeCopy(temp);
  };
  gzip.once('close', cleanup);
  gzip.once('error', cleanup);
  void writeEntries(pack, files, manifestBase).then(
    () => cleanup(),
    (err: unknown) => {
      cleanup();
      sources.logger.child({ module: 'backup' }).error({ err }, 'the backup stream failed');
      gzip.destroy(err as Error);
    },
  );
  return gzip;
}

async function writeEntries(
  pack: Pack,
  files: PlannedFile[],
  manifestBase: Omit<BackupManifest, 'files'>,
): Promise<void> {
  const listed: ManifestFile[] = [];
  for (const file of files) listed.push(await writeEntry(pack, file));
  const manifest: BackupManifest = { ...manifestBase, files: listed };
  await writeEntry(pack, {
    name: MANIFEST_ENTRY,
    from: { bytes: Buffer.from(JSON.stringify(manifest, null, 2)) },
  });
  pack.finalize();
}

async function writeEntry(pack: Pack, file: PlannedFile): Promise<ManifestFile> {
  const size = 'bytes' in file.from ? file.from.bytes.length : statSync(file.from.path).size;
  const hash = createHash('sha256');
  let done!: (err?: Error | null) => void;
  const finished = new Promise<void>((resolve, reject) => {
    done = (err) => (err ? reject(err) : resolve());
  });
  const entry = pack.entry({ name: file.name, size, mode: 0o600, mtime: new Date(0) }, (err) => done(err));
  const write = (chunk: Buffer) =>
    new Promise<void>((resolve) => {
      hash.update(chunk);
      if (entry.write(chunk)) resolve();
      else entry.once('drain', () => resolve());
    });
  if ('bytes' in file.from) await write(file.from.bytes);
  else for await (const chunk of createReadStream(file.from.path)) await write(chunk as Buffer);
  entry.end(null);
  await finished;
  return { path: file.name, bytes: size, sha256: hash.digest('hex') };
}

/** The allow-list: config, its snapshots, the database copy, photos, install id. */
function planFiles(sources: BackupSources, databaseCopy: string | null): PlannedFile[] {
  const files: PlannedFile[] = [];
  if (existsSync(sources.configPath)) {
    files.push({ name: CONFIG_ENTRY, from: { bytes: readFileSync(sources.configPath) } });
  }
  const snapshots = join(dirname(sources.configPath), 'config-snapshots');
  for (const name of listDir(snapshots)
    .filter((n) => SNAPSHOT_NAME.test(n))
    .sort()) {
    files.push({ name: SNAPSHOT_PREFIX + name, from: { bytes: readFileSync(join(snapshots, name)) } });
  }
  if (databaseCopy) files.push({ name: DATABASE_ENTRY, from: { path: databaseCopy } });
  const photos = join(sources.dataDir, PHOTO_DIR);
  for (const name of listDir(photos)
    .filter((n) => PHOTO_NAME.test(n))
    .sort()) {
    files.push({ name: PHOTO_PREFIX + name, from: { path: join(photos, name) } });
  }
  const installId = join(sources.dataDir, 'install-id');
  if (existsSync(installId)) files.push({ name: INSTALL_ID_ENTRY, from: { bytes: readFileSync(installId) } });
  return files;
}

function listDir(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir) : [];
}

/**
 * The copy's schema version, read from its header (bytes 60-63, big-endian)
 * rather than through a connection: the copy keeps the live database's WAL
 * mode, and a read-only connection to a WAL file leaves `-wal` and `-shm`
 * beside it that it may not delete.
 */
function userVersion(file: string): number {
  const header = Buffer.alloc(100);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, header, 0, header.length, 0);
  } finally {
    closeSync(fd);
  }
  return header.readInt32BE(60);
}

/** The copy and any journal SQLite kept beside it. */
function removeCopy(path: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(path + suffix, { force: true });
}

function schemaVersionOf(bytes: Buffer): number | null {
  const match = /^\s*schema_version\s*=\s*(\d+)/m.exec(bytes.toString('utf8'));
  return match ? Number(match[1]) : null;
}

function installIdOf(dataDir: string): string | null {
  const path = join(dataDir, 'install-id');
  return existsSync(path) ? readFileSync(path, 'utf8').trim() || null : null;
}
