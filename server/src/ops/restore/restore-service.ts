import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyRequest } from 'fastify';
import type { ConfigService, SavedVersion } from '../../config/config-service';
import { ConfigRejected } from '../../config/config-service';
import type { JsonObject } from '../../config/json-walk';
import { parseToml } from '../../config/toml';
import type { ValidationReport } from '../../config/validate';
import { epochSeconds, type Clock } from '../../core/clock';
import { writeFileAtomic } from '../../core/atomic-write';
import type { Logger } from '../../core/logger';
import type { Metrics } from '../../core/metrics';
import { ApiError } from '../../http/errors';
import { PHOTO_DIR } from '../../photos/store';
import type { Store } from '../../store/store';
import { countRows, type DatabaseFacts } from './check-database';
import { inspectUpload, type Candidate, type UploadKind } from './inspect';
import { refuse } from './restore-error';
import { pendingRestore, stageDatabase } from './staged';
import { receiveUpload } from './upload';

/**
 * POST /backup/restore: receive, check everything, then change things. The
 * upload goes to a work dir inside the data directory; the bundle is unpacked
 * and held to its manifest, the database passes its integrity and schema
 * checks, the config passes the config service's validation. Only then: the
 * database is staged for the next boot (staged.ts), the config is saved
 * through the normal write path (the current one snapshotted first), the
 * bundle's config snapshots and photos that are missing here are added. With
 * `dry_run` the same checks run and the answer says what would change;
 * nothing does. The answer body is documented in docs/operations.md.
 */

export interface RestoreDeps {
  dataDir: string;
  config: ConfigService;
  store: Store | null;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  /** Largest upload, and largest unpacked bundle (tests shrink these). */
  maxUploadBytes: number;
  maxUnpackedBytes: number;
}

export const RESTORE_MAX_UPLOAD_BYTES = 1024 * 1024 * 1024;
export const RESTORE_MAX_UNPACKED_BYTES = 4 * 1024 * 1024 * 1024;

export interface RestoreAnswer {
  dry_run: boolean;
  kind: UploadKind;
  bundle: {
    created_epoch: number;
    service_version: string;
    build_revision: string;
    install_id: string | null;
    files: number;
  } | null;
  config: {
    changed: boolean;
    changes: string[];
    validation: ValidationReport;
    saved: SavedVersion | null;
  } | null;
  database:
    | (DatabaseFacts & { current_rows: Record<string, number> | null; staged: boolean; applies: 'next_boot' })
    | null;
  snapshots: { in_upload: number; added: number };
  photos: { in_upload: number; added: number };
  restart_required: boolean;
}

export class RestoreService {
  private busy = false;
  private readonly log: Logger;

  constructor(private readonly deps: RestoreDeps) {
    this.log = deps.logger.child({ module: 'restore' });
  }

  /** A database staged by an earlier restore, waiting for a restart. */
  pending(): boolean {
    return pendingRestore(this.deps.dataDir) !== null;
  }

  async restore(request: FastifyRequest, dryRun: boolean): Promise<RestoreAnswer> {
    if (this.busy)
      throw new ApiError(409, 'restore_in_progress', 'another restore is being checked or applied');
    this.busy = true;
    const workDir = join(this.deps.dataDir, `restore-work.tmp-${randomBytes(6).toString('hex')}`);
    mkdirSync(workDir, { recursive: true, mode: 0o700 });
    try {
      const upload = await receiveUpload(request, workDir, this.deps.maxUploadBytes);
      const candidate = await inspectUpload(upload.path, workDir, this.deps.maxUnpackedBytes);
      const config = candidate.configText === null ? null : this.checkConfig(candidate.configText);
      const answer = this.preview(candidate, config, dryRun);
      if (!dryRun) await this.apply(candidate, config, answer);
      return answer;
    } finally {
      rmSync(workDir, { recursive: true, force: true });
      this.busy = false;
    }
  }

  private checkConfig(text: string): { doc: JsonObject; text: string; report: ValidationReport } {
    let doc: JsonObject;
    try {
      doc = parseToml(text);
    } catch (err) {
      throw new ApiError(422, 'config_invalid', 'config_invalid', {
        validation: {
          ok: false,
          errors: [{ code: 'toml_parse', path: '$', message: (err as Error).message }],
          warnings: [],
        },
      });
    }
    const report = this.deps.config.preview(doc);
    if (report.errors.some((e) => e.code === 'schema_version_unsupported')) {
      throw refuse(
        'backup_schema_too_new',
        'the config has a schema_version newer than this build supports',
        {
          validation: report,
        },
      );
    }
    if (!report.ok) throw new ApiError(422, 'config_invalid', 'config_invalid', { validation: report });
    return { doc, text, report };
  }

  private preview(
    candidate: Candidate,
    config: { doc: JsonObject; text: string; report: ValidationReport } | null,
    dryRun: boolean,
  ): RestoreAnswer {
    const manifest = candidate.manifest;
    const photosHere = join(this.deps.dataDir, PHOTO_DIR);
    const database = candidate.database;
    return {
      dry_run: dryRun,
      kind: candidate.kind,
      bundle: manifest
        ? {
            created_epoch: manifest.created_epoch,
            service_version: manifest.service_version,
            build_revision: manifest.build_revision,
            install_id: manifest.install_id,
            files: manifest.files.length,
          }
        : null,
      config: config
        ? {
            changed: config.text !== this.deps.config.storedText(),
            changes: this.deps.config.changesFrom(config.doc),
            validation: config.report,
            saved: null,
          }
        : null,
      database: database
        ? {
            ...database,
            current_rows: this.deps.store ? countRows(this.deps.store.db) : null,
            staged: false,
            applies: 'next_boot',
          }
        : null,
      snapshots: { in_upload: candidate.snapshots.length, added: 0 },
      photos: {
        in_upload: candidate.photos.length,
        added: dryRun ? candidate.photos.filter((p) => !existsSync(join(photosHere, p.name))).length : 0,
      },
      restart_required: database !== null || this.pending(),
    };
  }

  /** Database first (undone if the config save fails), then the config, then what only adds. */
  private async apply(
    candidate: Candidate,
    config: { text: string } | null,
    answer: RestoreAnswer,
  ): Promise<void> {
    if (candidate.databasePath && candidate.database && answer.database) {
      stageDatabase(this.deps.dataDir, candidate.databasePath, candidate.installId, {
        staged_epoch: epochSeconds(this.deps.clock),
        schema_version: candidate.database.schema_version,
        from: candidate.kind,
      });
      answer.database.staged = true;
    }
    if (config && answer.config?.changed) answer.config.saved = await this.saveConfig(config.text);
    answer.snapshots.added = await this.deps.config.importSnapshots(
      candidate.snapshots.map((s) => ({ name: s.name, text: readFileSync(s.path, 'utf8') })),
    );
    answer.photos.added = this.addPhotos(candidate.photos);
    this.log.warn(
      {
        kind: candidate.kind,
        database_staged: answer.database?.staged ?? false,
        config_saved: answer.config?.saved?.revision ?? null,
      },
      'backup restored',
    );
  }

  private async saveConfig(text: string): Promise<SavedVersion> {
    try {
      const result = await this.deps.config.saveRaw(text, {
        note: 'before restore of a backup',
        allowZoneKeyChange: true,
      });
      this.deps.metrics.countConfigSave('saved');
      return result.saved;
    } catch (err) {
      // Checked a moment ago; if the save still refused, the staged database must not swap in alone.
      rmSync(join(this.deps.dataDir, 'restore', 'pending.json'), { force: true });
      if (err instanceof ConfigRejected) {
        this.deps.metrics.countConfigSave(err.code);
        throw new ApiError(422, err.code, err.message, err.details);
      }
      throw err;
    }
  }

  private addPhotos(photos: { name: string; path: string }[]): number {
    const dir = join(this.deps.dataDir, PHOTO_DIR);
    let added = 0;
    for (const photo of photos) {
      const target = join(dir, photo.name);
      if (existsSync(target)) continue;
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      writeFileAtomic(target, readFileSync(photo.path));
      added += 1;
    }
    return added;
  }
}
