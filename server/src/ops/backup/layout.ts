/**
 * What a backup bundle holds and where (docs/operations.md): a gzip-compressed
 * tar whose last entry is `manifest.json`, naming every other entry with its
 * size and SHA-256. The bundle is an allow-list of the data directory: the
 * config, its snapshots, a consistent copy of the database, the zone photos
 * and the install id. Nothing else is read, so the push private key directory
 * (`private/`), caches and half-written temp files never enter a bundle.
 *
 * The bundle holds the real config, secrets included (it must restore), and
 * the database holds the account's password hash and session and token
 * hashes: it is private. /diagnostics is what a user shares.
 */

export const BUNDLE_FORMAT = 'raincheck-backup';
export const BUNDLE_FORMAT_VERSION = 1;

export const MANIFEST_ENTRY = 'manifest.json';
export const CONFIG_ENTRY = 'config/config.toml';
export const SNAPSHOT_PREFIX = 'config/snapshots/';
export const DATABASE_ENTRY = 'database/raincheck.db';
export const PHOTO_PREFIX = 'photos/';
export const INSTALL_ID_ENTRY = 'install-id';

/** The data directory's folder that holds private keys (issue 19: the VAPID key); never read. */
export const PRIVATE_DIR = 'private';

export const SNAPSHOT_NAME = /^\d{13,}\.toml$/;

export interface ManifestFile {
  path: string;
  bytes: number;
  sha256: string;
}

export interface BackupManifest {
  format: typeof BUNDLE_FORMAT;
  format_version: number;
  service: string;
  service_version: string;
  build_revision: string;
  created_epoch: number;
  /** The config's own `schema_version`; null when the bundle holds no config. */
  config_schema_version: number | null;
  /** `PRAGMA user_version` of the database copy; null when the bundle holds no database. */
  database_schema_version: number | null;
  install_id: string | null;
  files: ManifestFile[];
}

/** Whether an entry name is one a bundle may hold (anything else refuses the bundle). */
export function isBundleEntry(name: string): boolean {
  if ([MANIFEST_ENTRY, CONFIG_ENTRY, DATABASE_ENTRY, INSTALL_ID_ENTRY].includes(name)) return true;
  if (name.startsWith(SNAPSHOT_PREFIX)) return SNAPSHOT_NAME.test(name.slice(SNAPSHOT_PREFIX.length));
  if (name.startsWith(PHOTO_PREFIX))
    return /^[a-f0-9]{32}\.(jpg|png|gif|webp)$/.test(name.slice(PHOTO_PREFIX.length));
  return false;
}
