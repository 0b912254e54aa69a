import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import {
  BUNDLE_FORMAT,
  CONFIG_ENTRY,
  DATABASE_ENTRY,
  INSTALL_ID_ENTRY,
  MANIFEST_ENTRY,
  PHOTO_PREFIX,
  SNAPSHOT_PREFIX,
  type BackupManifest,
} from '../backup/layout';
import { checkDatabase, type DatabaseFacts } from './check-database';
import { refuse } from './restore-error';
import { unpackBundle, type UnpackedEntry } from './unpack';

/**
 * What an upload is and holds, decided by its bytes: a bundle (gzip), a bare
 * database (the SQLite header) or a bare config (TOML text). A bundle is
 * unpacked and every entry held to the manifest's size and SHA-256; a
 * database (bare or bundled) is checked (check-database.ts). The config is
 * checked by the caller, through the config service's validation.
 */

export type UploadKind = 'bundle' | 'config' | 'database';

export interface Candidate {
  kind: UploadKind;
  manifest: BackupManifest | null;
  configText: string | null;
  databasePath: string | null;
  database: DatabaseFacts | null;
  snapshots: { name: string; path: string }[];
  photos: { name: string; path: string }[];
  installId: string | null;
}

const GZIP = Buffer.from([0x1f, 0x8b]);
const SQLITE = Buffer.from('SQLite format 3\0', 'latin1');
/** A bare config is a small text file; the config routes take at most 1 MB too. */
const CONFIG_MAX_BYTES = 1024 * 1024;

export async function inspectUpload(path: string, workDir: string, maxBytes: number): Promise<Candidate> {
  const head = readHead(path, 16);
  if (head.subarray(0, 2).equals(GZIP)) return inspectBundle(path, workDir, maxBytes);
  const empty: Candidate = {
    kind: 'database',
    manifest: null,
    configText: null,
    databasePath: null,
    database: null,
    snapshots: [],
    photos: [],
    installId: null,
  };
  if (head.equals(SQLITE)) return { ...empty, databasePath: path, database: checkDatabase(path) };
  return { ...empty, kind: 'config', configText: readConfigText(path) };
}

function readHead(path: string, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  const fd = openSync(path, 'r');
  try {
    return buffer.subarray(0, readSync(fd, buffer, 0, length, 0));
  } finally {
    closeSync(fd);
  }
}

function readConfigText(path: string): string {
  const bytes = readFileSync(path);
  const text = bytes.toString('utf8');
  if (bytes.length > CONFIG_MAX_BYTES || text.includes('\0') || text.includes('\uFFFD')) {
    throw refuse(
      'backup_unrecognized',
      'the upload is neither a Raincheck backup bundle (.tar.gz), a database (SQLite) nor a config (TOML text)',
    );
  }
  return text;
}

async function inspectBundle(path: string, workDir: string, maxBytes: number): Promise<Candidate> {
  const entries = await unpackBundle(path, workDir, maxBytes);
  const manifest = readManifest(entries.get(MANIFEST_ENTRY));
  verifyAgainstManifest(entries, manifest);
  const at = (name: string) => entries.get(name)?.path ?? null;
  const databasePath = at(DATABASE_ENTRY);
  const configPath = at(CONFIG_ENTRY);
  const installIdPath = at(INSTALL_ID_ENTRY);
  const under = (prefix: string) =>
    [...entries.values()]
      .filter((e) => e.name.startsWith(prefix))
      .map((e) => ({ name: e.name.slice(prefix.length), path: e.path }));
  return {
    kind: 'bundle',
    manifest,
    configText: configPath ? readFileSync(configPath, 'utf8') : null,
    databasePath,
    database: databasePath ? checkDatabase(databasePath) : null,
    snapshots: under(SNAPSHOT_PREFIX),
    photos: under(PHOTO_PREFIX),
    installId: installIdPath ? readFileSync(installIdPath, 'utf8').trim() || null : null,
  };
}

function readManifest(entry: UnpackedEntry | undefined): BackupManifest {
  if (!entry)
    throw refuse(
      'backup_corrupted',
      'the bundle has no manifest.json: it is not a Raincheck backup, or it was cut short',
    );
  let manifest: unknown;
  try {
    manifest = JSON.parse(readFileSync(entry.path, 'utf8'));
  } catch {
    throw refuse('backup_corrupted', 'the bundle manifest is not JSON');
  }
  const m = manifest as Partial<BackupManifest> | null;
  if (!m || m.format !== BUNDLE_FORMAT || !Array.isArray(m.files)) {
    throw refuse('backup_corrupted', 'the bundle manifest is not a Raincheck backup manifest');
  }
  return m as BackupManifest;
}

function verifyAgainstManifest(entries: Map<string, UnpackedEntry>, manifest: BackupManifest): void {
  const listed = new Set<string>();
  for (const file of manifest.files) {
    listed.add(file.path);
    const entry = entries.get(file.path);
    if (!entry) throw mismatch(file.path, 'is listed in the manifest but missing from the bundle');
    if (entry.bytes !== file.bytes || entry.sha256 !== file.sha256) {
      throw mismatch(file.path, 'does not match the size and SHA-256 its manifest records');
    }
  }
  for (const name of entries.keys()) {
    if (name !== MANIFEST_ENTRY && !listed.has(name))
      throw mismatch(name, 'is in the bundle but not in its manifest');
  }
}

function mismatch(path: string, what: string) {
  return refuse('backup_checksum_mismatch', `${path} ${what}; the bundle was altered or damaged`, { path });
}
