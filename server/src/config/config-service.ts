import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { dirname, join } from 'node:path';
import type { EventBus } from '../core/bus';
import { epochSeconds, type Clock } from '../core/clock';
import type { Logger } from '../core/logger';
import {
  removeStaleTempFiles,
  removeStaleTempFilesIn,
  writeFileAtomic,
  type StepHook,
} from '../core/atomic-write';
import { buildId } from '../core/build-id';
import { environmentBaseline } from './baseline';
import type { AppliedConfig, KindConfigs } from './config-types';
import type { RaincheckConfig } from './schema';
import { demoSeed } from './demo-config';
import type { RuntimeEnv } from './env';
import { changedPaths } from './diff';
import { copyPlain, isPlainObject, type JsonObject } from './json-walk';
import type { MigrationOutcome } from './migrate';
import { Mutex } from '../core/mutex';
import { isPureReference } from './interpolate';
import { collectSecretValues, isSecretKey, redactSecrets, REDACTED, restoreSecrets } from './secrets';
import { SnapshotStore, type SnapshotInfo } from './snapshots';
import { ConfigParseError, parseToml, toToml, withoutNulls } from './toml';
import type { ValidationResult } from './validate';
import {
  checkSchemaVersion,
  emptyReport,
  type ValidationEntry,
  type ValidationReport,
} from './validation-report';
import { VALIDATED_CACHE_FILE, ValidatedConfigCache } from './validated-cache';

/**
 * Owns the config file: boot load and migration, validation, snapshots,
 * atomic writes, rollback, and the one `config.changed` event every subsystem
 * hot-reloads from. All writes pass through one lock.
 */

export type ConfigRejectionCode =
  | 'config_invalid'
  | 'zone_key_renamed'
  | 'snapshot_not_found'
  | 'unmatched_redacted_secret'
  | 'transport_field_mismatch';

export class ConfigRejected extends Error {
  constructor(
    readonly code: ConfigRejectionCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export interface SaveOptions {
  note: string;
  allowZoneKeyChange?: boolean;
}

export interface SavedVersion {
  revision: number;
  applied_at_epoch: number;
  schema_version: number;
  /** The snapshot that holds the config this save replaced; null when there was none. */
  previous_snapshot_ts: string | null;
}

export interface SaveResult {
  saved: SavedVersion;
  validation: ValidationReport;
}

interface Valid {
  doc: JsonObject;
  config: RaincheckConfig;
  report: ValidationReport;
  /** Absent when the config was applied without validating (the demo seed). */
  kindConfigs?: KindConfigs;
}

interface Checked {
  doc: JsonObject | null;
  config: RaincheckConfig | null;
  report: ValidationReport;
  kindConfigs?: KindConfigs;
}

export type ConfigStatus = 'ok' | 'absent' | 'invalid' | 'unsupported';

export interface ConfigServiceDeps {
  env: RuntimeEnv;
  bus: EventBus;
  clock: Clock;
  logger: Logger;
  /** Test hook into the atomic writer's steps. */
  beforeWriteStep?: StepHook;
  /**
   * Keys the validated-config cache (config/validated-cache.ts); null caches
   * nothing. Default: the compiled build's id (core/build-id.ts), null when
   * running from sources. Tests inject one.
   */
  buildId?: string | null;
  /**
   * Warnings only the running hardware can give (a zone bound to an
   * OpenSprinkler master station, learned from the device): added to the
   * report of every save, preview and GET /config/validate. Never errors.
   */
  liveWarnings?: (config: RaincheckConfig) => ValidationEntry[];
}

export class ConfigService {
  private applied: AppliedConfig | null = null;
  /** The stored document even when it does not validate, so it can still be served and fixed. */
  private storedDocument: JsonObject | null = null;
  private bootReport: ValidationReport = emptyReport('no config file yet');
  private status: ConfigStatus = 'absent';
  private readonly lock = new Mutex();
  private readonly snapshots: SnapshotStore;
  private readonly log: Logger;
  private cacheStore: ValidatedConfigCache | null = null;

  constructor(private readonly deps: ConfigServiceDeps) {
    this.snapshots = new SnapshotStore(join(dirname(deps.env.configPath), 'config-snapshots'));
    this.log = deps.logger.child({ module: 'config' });
  }

  /** Built on first use: the build id is only computed when a config file is read or written. */
  private get cache(): ValidatedConfigCache {
    return (this.cacheStore ??= new ValidatedConfigCache(
      join(dirname(this.deps.env.configPath), VALIDATED_CACHE_FILE),
      this.deps.buildId === undefined ? buildId() : this.deps.buildId,
    ));
  }

  get current(): AppliedConfig | null {
    return this.applied;
  }

  /** A config file exists, whether or not it loaded. */
  get present(): boolean {
    return this.status !== 'absent';
  }

  get health(): { status: ConfigStatus; report: ValidationReport } {
    return { status: this.status, report: this.bootReport };
  }

  /** Boot: clean up interrupted writes, load, migrate older documents, seed the demo config. */
  async load(): Promise<void> {
    mkdirSync(dirname(this.deps.env.configPath), { recursive: true });
    const stale =
      removeStaleTempFiles(this.deps.env.configPath) +
      removeStaleTempFiles(join(dirname(this.deps.env.configPath), VALIDATED_CACHE_FILE)) +
      removeStaleTempFilesIn(this.snapshots.directory);
    if (stale > 0) this.log.warn({ stale }, 'removed temp files of an interrupted config write');

    // The demo's own config is applied as validating it would (config/demo-config.ts), unvalidated:
    // the demo then boots without building the config schema. A file that differs by a byte validates.
    const demo = this.deps.env.demo ? demoSeed(this.deps.env.lat, this.deps.env.lon) : null;
    if (!existsSync(this.deps.env.configPath)) {
      if (demo) {
        const seed = { doc: demo.document, config: demo.config, report: emptyReport() };
        await this.lock.run(() => this.commit(seed, 'demo config'));
      } else this.log.info('no config file: serving the environment baseline until the wizard writes one');
      return;
    }
    const bytes = readFileSync(this.deps.env.configPath);
    const text = bytes.toString('utf8');
    if (demo && text === toToml(demo.document)) {
      this.adopt({ doc: parseToml(text), config: demo.config, report: emptyReport() }, this.fileTimeEpoch());
      return;
    }
    let doc: JsonObject;
    try {
      doc = parseToml(text);
    } catch (err) {
      this.refuseAtBoot('invalid', tomlReport(err as ConfigParseError), null);
      return;
    }
    const versionError = checkSchemaVersion(doc.schema_version);
    if (versionError?.code === 'schema_version_unsupported') {
      this.refuseAtBoot('unsupported', { ok: false, errors: [versionError], warnings: [] }, doc);
      return;
    }
    const migration = versionError ? null : migrateDocument(doc);
    const migrated = migration?.doc ?? doc;
    const current = migration !== null && migration.from === migration.to;
    // The file validated before, byte for byte, by this build: apply what that gave, without zod.
    const cached = current ? this.cache.read(bytes, doc) : null;
    if (cached) {
      this.adopt({ doc: migrated, ...cached }, this.fileTimeEpoch());
      this.log.debug('applied the cached validation of the unchanged config file');
      return;
    }
    const result = validateDocument(migrated, this.deps.env.vars);
    const config = result.config;
    const kindConfigs = result.kindConfigs ?? undefined;
    if (!config) {
      this.refuseAtBoot('invalid', result.report, migrated);
      return;
    }
    if (migration && migration.from !== migration.to) {
      await this.lock.run(() =>
        this.commit(
          { doc: migrated, config, report: result.report, kindConfigs },
          `before migration from schema_version ${migration.from}`,
          text,
        ),
      );
      this.log.info({ from: migration.from, to: migration.to }, 'migrated the config file');
      return;
    }
    const valid: Valid = { doc: migrated, config, report: result.report, kindConfigs };
    this.adopt(valid, this.fileTimeEpoch());
    this.remember(bytes, valid);
  }

  /** GET /config: the stored document with secrets redacted, or the baseline before any exists. */
  publicDocument(): JsonObject {
    return this.storedDocument ? (redactSecrets(this.storedDocument) as JsonObject) : this.baseline();
  }

  baseline(): JsonObject {
    return environmentBaseline(this.deps.env);
  }

  /**
   * GET /config/raw: the file as written, comments kept, with secret values
   * masked; if a secret hides where line masking cannot reach it, the text is
   * rebuilt from the redacted document instead.
   */
  rawText(): string | null {
    if (!existsSync(this.deps.env.configPath)) return null;
    return maskedText(readFileSync(this.deps.env.configPath, 'utf8'), this.storedDocument);
  }

  /** GET /config/snapshots/{ts}: one snapshot's text, masked like the raw config; null when there is none. */
  snapshotText(ts: string): string | null {
    const text = this.snapshots.read(ts);
    return text === null ? null : maskedText(text, tryParseToml(text));
  }

  /** Validates a candidate as a save would (sentinels restored), writing nothing. */
  preview(candidate: unknown): ValidationReport {
    return this.check(candidate).report;
  }

  /** GET /config/validate: the report for what is on disk. */
  validateStored(): ValidationReport {
    if (this.status === 'absent') return emptyReport('no config file exists yet');
    if (this.status !== 'ok' || !this.storedDocument) return this.bootReport;
    const { report, config } = validateDocument(this.storedDocument, this.deps.env.vars);
    return this.withLiveWarnings(report, config);
  }

  /** Resolves once every write queued so far has finished (graceful shutdown). */
  drain(): Promise<void> {
    return this.lock.run(() => undefined);
  }

  listSnapshots(): SnapshotInfo[] {
    return this.snapshots.list();
  }

  /** Where a candidate document (a restore) differs from the stored one: paths only, never values. */
  changesFrom(candidate: JsonObject): string[] {
    const migrated = withoutNulls(migrateDocument(candidate).doc) as JsonObject;
    return changedPaths(this.storedDocument, migrated);
  }

  /** The stored document with its secrets, for /diagnostics' scrubber only (never served). */
  storedDocumentForScrubbing(): JsonObject | null {
    return this.storedDocument;
  }

  /** The config file's text as written, or null (the restore preview compares it). */
  storedText(): string | null {
    return existsSync(this.deps.env.configPath) ? readFileSync(this.deps.env.configPath, 'utf8') : null;
  }

  /** Adds snapshot files a restore brought that are not here yet (same ts); returns how many. */
  importSnapshots(files: { name: string; text: string }[]): Promise<number> {
    return this.lock.run(() => this.snapshots.importMissing(files));
  }

  save(candidate: unknown, options: SaveOptions): Promise<SaveResult> {
    return this.lock.run(() => this.saveLocked(candidate, options));
  }

  /**
   * `verbatim` is the TOML text the caller sent: it is written as sent (comments
   * kept) when nothing had to change in it (no sentinel restored, no migration).
   */
  private saveLocked(candidate: unknown, options: SaveOptions, verbatim?: string): SaveResult {
    const { doc, config, report, kindConfigs } = this.check(candidate);
    refuseSecretMisuse(report);
    if (!doc || !config) {
      throw new ConfigRejected('config_invalid', 'the config did not validate', { validation: report });
    }
    this.refuseZoneKeyRename(doc, options.allowZoneKeyChange === true);
    const unchanged = verbatim !== undefined && JSON.stringify(doc) === JSON.stringify(candidate);
    return this.commit(
      { doc, config, report, kindConfigs },
      options.note,
      undefined,
      unchanged ? verbatim : undefined,
    );
  }

  /**
   * A save whose candidate is built from the stored document inside the write
   * lock, so nothing written meanwhile is lost or decided on stale data (the
   * tuning apply re-derives its recommendation in `build`). `build` gets a copy
   * it may change; whatever it throws rejects the save with nothing written.
   */
  update(build: (stored: JsonObject) => JsonObject, options: SaveOptions): Promise<SaveResult> {
    return this.lock.run(() => {
      if (!this.storedDocument || this.status !== 'ok') {
        throw new ConfigRejected('config_invalid', 'there is no loaded config to change', {
          validation: this.bootReport,
        });
      }
      return this.saveLocked(build(structuredClone(this.storedDocument)), options);
    });
  }

  saveRaw(text: string, options: SaveOptions): Promise<SaveResult> {
    let doc: JsonObject;
    try {
      doc = parseToml(text);
    } catch (err) {
      const report = tomlReport(err as ConfigParseError);
      return Promise.reject(
        new ConfigRejected('config_invalid', 'the TOML did not parse', { validation: report }),
      );
    }
    return this.lock.run(() => this.saveLocked(doc, options, text));
  }

  /** Restores a snapshot; the current config is snapshotted first, so a rollback can itself be undone. */
  rollback(ts: string): Promise<SaveResult> {
    const text = this.snapshots.read(ts);
    if (text === null) {
      return Promise.reject(new ConfigRejected('snapshot_not_found', `no config snapshot "${ts}"`, { ts }));
    }
    return this.saveRaw(text, { note: `before rollback to ${ts}`, allowZoneKeyChange: true });
  }

  /** Restores sentinels, migrates, validates. */
  private check(candidate: unknown): Checked {
    if (!isPlainObject(candidate)) {
      return { doc: null, config: null, report: validateDocument(candidate, this.deps.env.vars).report };
    }
    const versionError = checkSchemaVersion(candidate.schema_version);
    if (versionError)
      return { doc: null, config: null, report: { ok: false, errors: [versionError], warnings: [] } };
    const { value, unmatched, mismatched } = restoreSecrets(candidate, this.storedDocument);
    // Nulls are stored as absent: apply exactly what a reload of the file will see.
    const doc = withoutNulls(migrateDocument(value as JsonObject).doc) as JsonObject;
    const { report, config, kindConfigs } = validateDocument(doc, this.deps.env.vars);
    for (const sentinel of unmatched) {
      report.errors.push({
        code: 'unmatched_redacted_secret',
        path: sentinel.path,
        message: `${REDACTED} stands for a stored secret, but none is stored here; enter the value`,
      });
    }
    for (const field of mismatched) {
      report.errors.push({
        code: 'transport_field_mismatch',
        path: field.path,
        message: 'this field decides where a stored secret is sent; re-enter the secret to change it',
      });
    }
    report.ok = report.errors.length === 0;
    this.withLiveWarnings(report, config);
    return report.ok && kindConfigs
      ? { doc, config, report, kindConfigs }
      : { doc, config: report.ok ? config : null, report };
  }

  private withLiveWarnings(report: ValidationReport, config: RaincheckConfig | null): ValidationReport {
    if (config && this.deps.liveWarnings) report.warnings.push(...this.deps.liveWarnings(config));
    return report;
  }

  private refuseZoneKeyRename(next: JsonObject, allowed: boolean): void {
    if (allowed || !this.storedDocument) return;
    const before = zoneKeys(this.storedDocument);
    const after = zoneKeys(next);
    const removed = before.filter((key) => !after.includes(key));
    const added = after.filter((key) => !before.includes(key));
    if (removed.length === 0 || added.length === 0) return;
    throw new ConfigRejected(
      'zone_key_renamed',
      `this save removes zone ${removed.join(', ')} and adds ${added.join(', ')}; a zone key keys its history, ` +
        'overrides and HA entities, so renaming it loses them. Change the display name instead, or repeat ' +
        'the save with allow_zone_key_change=1',
      { removed, added },
    );
  }

  /** Snapshot the current file, write the new one atomically, apply it, announce it. */
  private commit(valid: Valid, note: string, previousText?: string, newText?: string): SaveResult {
    const { doc } = valid;
    const nowMs = this.deps.clock.nowMs();
    const path = this.deps.env.configPath;
    const oldText = previousText ?? (existsSync(path) ? readFileSync(path, 'utf8') : null);
    const previousSnapshot =
      oldText === null
        ? null
        : this.snapshots.add(
            oldText,
            {
              applied_at_epoch: this.applied?.appliedAtEpoch ?? this.fileTimeEpoch(),
              schema_version: schemaVersionOf(oldText),
              note,
            },
            nowMs,
          );
    const text = newText ?? toToml(doc);
    writeFileAtomic(path, text, this.deps.beforeWriteStep);
    const applied = this.adopt(valid, epochSeconds(this.deps.clock));
    this.remember(Buffer.from(text, 'utf8'), valid, text);
    this.log.info({ revision: applied.revision, note }, 'config saved');
    return {
      saved: {
        revision: applied.revision,
        applied_at_epoch: applied.appliedAtEpoch,
        schema_version: doc.schema_version as number,
        previous_snapshot_ts: previousSnapshot,
      },
      validation: valid.report,
    };
  }

  /**
   * Caches a validation of the file just read or written (`bytes`), so the next boot
   * skips validating it. `text` (a write) is parsed back first: only a file that reads
   * back as the validated document is cached. A failure costs the next boot a validation.
   */
  private remember(bytes: Buffer, valid: Valid, text?: string): void {
    const { doc, config, report, kindConfigs } = valid;
    try {
      // copyPlain: the TOML parser makes null-prototype objects; only the values matter.
      const readsBack =
        text === undefined || isDeepStrictEqual(copyPlain(tryParseToml(text)), copyPlain(doc));
      if (!kindConfigs || !readsBack) {
        this.cache.remove();
        return;
      }
      this.cache.write(bytes, doc, { config, kindConfigs, report });
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'could not cache the validated config');
    }
  }

  private adopt({ doc, config, report, kindConfigs }: Valid, appliedAtEpoch: number): AppliedConfig {
    const previous = this.applied;
    const next: AppliedConfig = {
      config,
      document: doc,
      appliedAtEpoch,
      revision: (previous?.revision ?? 0) + 1,
      ...(kindConfigs ? { kindConfigs } : {}),
    };
    this.applied = next;
    this.storedDocument = doc;
    this.bootReport = report;
    this.status = 'ok';
    this.deps.bus.emit('config.changed', { previous, next });
    return next;
  }

  private refuseAtBoot(status: ConfigStatus, report: ValidationReport, doc: JsonObject | null): void {
    this.status = status;
    this.bootReport = report;
    this.storedDocument = doc;
    this.log.error(
      { errors: report.errors.map((e) => `${e.path}: ${e.message}`) },
      'the config file was not loaded; the service runs without it until it is fixed or rolled back',
    );
  }

  /** When the file on disk was last written: the applied time of a config loaded at boot. */
  private fileTimeEpoch(): number {
    const path = this.deps.env.configPath;
    return existsSync(path) ? Math.floor(statSync(path).mtimeMs / 1000) : epochSeconds(this.deps.clock);
  }
}

function tryParseToml(text: string): JsonObject | null {
  try {
    return parseToml(text);
  } catch {
    return null;
  }
}

/** The schema_version the snapshotted text itself declares (not the in-memory one, which may be migrated). */
function schemaVersionOf(text: string): number | null {
  const version = tryParseToml(text)?.schema_version;
  return typeof version === 'number' ? version : null;
}

/** Secret misuse answers with its own code (spec 7: 400), not as a plain invalid config. */
function refuseSecretMisuse(report: ValidationReport): void {
  for (const code of ['unmatched_redacted_secret', 'transport_field_mismatch'] as const) {
    const entries = report.errors.filter((entry) => entry.code === code);
    if (entries.length === 0) continue;
    throw new ConfigRejected(code, entries.map((e) => `${e.path}: ${e.message}`).join('; '), {
      paths: entries.map((e) => e.path),
    });
  }
}

function zoneKeys(doc: JsonObject): string[] {
  return isPlainObject(doc.zones) ? Object.keys(doc.zones) : [];
}

function tomlReport(err: ConfigParseError): ValidationReport {
  const where = err.line === null ? '' : ` (line ${err.line}, column ${err.column})`;
  return {
    ok: false,
    errors: [{ code: 'toml_parse', path: '$', message: `${err.message}${where}` }],
    warnings: [],
  };
}

/** Masks `secret_key = "value"` lines of TOML text. */
function maskSecretLines(text: string): string {
  return text.replace(
    /^(\s*)([A-Za-z0-9_]+)(\s*=\s*)("(?:[^"\\]|\\.)*"|'[^']*')/gm,
    (line: string, indent: string, key: string, eq: string, value: string) => {
      const inner = value.slice(1, -1);
      if (!isSecretKey(key) || inner === '' || isPureReference(inner)) return line;
      return `${indent}${key}${eq}"${REDACTED}"`;
    },
  );
}

/**
 * Config text with secret values masked, comments kept; if a secret hides
 * where line masking cannot reach it, the text is rebuilt from the redacted
 * document instead. `document` is the parsed text (its secrets are looked for).
 */
function maskedText(text: string, document: JsonObject | null): string {
  const secrets = document ? collectSecretValues(document) : [];
  const masked = maskSecretLines(text);
  // Also check it parsed: an escaped secret ("tk\u005Fx") in an inline table escapes line masking.
  const parsed = tryParseToml(masked);
  const unmasked = parsed ? collectSecretValues(parsed).filter((value) => value !== REDACTED) : [];
  if (unmasked.length === 0 && secrets.every((secret) => !masked.includes(secret))) return masked;
  return toToml(redactSecrets(parsed ?? (document as JsonObject)) as JsonObject);
}

/*
 * The validator and the migrations load on first use: a service that boots on
 * its validated cache (or the demo's seeded config) and takes no config write
 * never runs them, and V8 keeps every loaded module's source in the heap.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
function validateDocument(doc: unknown, env: NodeJS.ProcessEnv): ValidationResult {
  return (require('./validate') as typeof import('./validate')).validateDocument(doc, env);
}

function migrateDocument(doc: JsonObject): MigrationOutcome {
  return (require('./migrate') as typeof import('./migrate')).migrateDocument(doc);
}
/* eslint-enable @typescript-eslint/no-require-imports */
