import { existsSync, statSync } from 'node:fs';
import os from 'node:os';
import type { ConfigService } from '../../config/config-service';
import type { JsonValue } from '../../config/json-walk';
import { collectSecretValues } from '../../config/secrets';
import { epochSeconds, type Clock } from '../../core/clock';
import type { HealthRegistry } from '../../core/health';
import type { LogRing } from '../../core/log-ring';
import { API_VERSION, buildRevision, SERVICE_NAME, SERVICE_VERSION } from '../../core/version';
import type { Store } from '../../store/store';
import type { LastFetch } from '../metrics-feed';
import { pendingRestore } from '../restore/staged';
import { Scrubber } from './scrub';

/**
 * GET /diagnostics (spec 4.1, body "not shown": docs/operations.md has it):
 * one JSON a user can attach to a bug report. Every section is read when
 * asked; the whole document then passes the scrubber (scrub.ts) with every
 * secret value of the config (stored and as interpolated) and of the
 * environment, and is refused rather than served if one still shows.
 */

/** A notification channel as the notify domain reports it (issue 19 provides it; main.ts connects it). */
export interface NotificationChannelState {
  channel: string;
  enabled: boolean;
  last_delivery_epoch: number | null;
  last_failure_epoch: number | null;
  last_error: string | null;
}

export interface NotificationStatesProvider {
  channelStates(): NotificationChannelState[];
}

export interface ControllerDiagnostics {
  id: string;
  kind: string;
  simulated: boolean;
  reachable: boolean | null;
  last_error: string | null;
  observed_epoch: number | null;
}

export interface DiagnosticsDeps {
  clock: Clock;
  startedAtMs: number;
  env: { dataDir: string; demo: boolean; dryRun: boolean; vars: NodeJS.ProcessEnv };
  databaseFile: string;
  config: ConfigService;
  health: HealthRegistry;
  store: Store | null;
  controllers: () => ControllerDiagnostics[];
  fetches: () => LastFetch[];
  logRing: LogRing;
  /** Absent until the notify domain provides it: the section is then an empty list. */
  notifications?: NotificationStatesProvider | null;
}

/** Environment variables whose values are secrets wherever they appear. */
const SECRET_ENV = ['SUPERVISOR_TOKEN', 'HA_TOKEN', 'MQTT_PASSWORD'];

export class Diagnostics {
  constructor(private readonly deps: DiagnosticsDeps) {}

  /** The scrubbed document. Throws if a secret survived scrubbing (never expected; refused rather than leaked). */
  build(): JsonValue {
    const scrubber = new Scrubber(this.secrets());
    const document = scrubber.value(this.raw());
    if (scrubber.leaks(JSON.stringify(document)))
      throw new Error('a secret survived the diagnostics scrubber');
    return document;
  }

  private secrets(): string[] {
    const applied = this.deps.config.current;
    const stored = this.deps.config.storedDocumentForScrubbing();
    const values = [
      ...(stored ? collectSecretValues(stored) : []),
      ...(applied ? collectSecretValues(applied.config as unknown as JsonValue) : []),
      ...(applied ? collectSecretValues(applied.document) : []),
    ];
    for (const name of SECRET_ENV) {
      const value = this.deps.env.vars[name];
      if (value) values.push(value);
    }
    return values;
  }

  private raw(): Record<string, unknown> {
    const { clock, health } = this.deps;
    const nowEpoch = epochSeconds(clock);
    const controllerNotes = new Map(this.deps.controllers().map((c) => [c.id, c]));
    return {
      generated_epoch: nowEpoch,
      service: {
        name: SERVICE_NAME,
        version: SERVICE_VERSION,
        build_revision: buildRevision(this.deps.env.vars),
        api_version: API_VERSION,
        started_epoch: Math.floor(this.deps.startedAtMs / 1000),
        uptime_s: Math.max(0, Math.floor((clock.nowMs() - this.deps.startedAtMs) / 1000)),
      },
      platform: {
        node: process.version,
        os: os.platform(),
        os_release: os.release(),
        arch: os.arch(),
        mode: this.deps.env.vars.SUPERVISOR_TOKEN ? 'addon' : 'standalone',
        demo: this.deps.env.demo,
        dry_run: this.deps.env.dryRun,
        rss_bytes: process.memoryUsage.rss(),
      },
      config: this.configSection(),
      health: { status: health.overall(), subsystems: health.subsystems(), notes: health.notes() },
      sources: health.sources().map((s) => ({
        ...s,
        last_success_epoch: s.last_seen_epoch,
        last_error: s.note,
      })),
      controllers: health.controllers().map((c) => {
        const live = controllerNotes.get(c.id);
        return {
          ...c,
          simulated: live?.simulated ?? null,
          last_success_epoch: live?.observed_epoch ?? null,
          last_error: live?.last_error ?? null,
        };
      }),
      mqtt: { status: health.subsystems().mqtt, note: health.notes().mqtt ?? null },
      ha: { status: health.subsystems().ha, note: health.notes().ha ?? null, ...health.ha() },
      fetches: this.deps.fetches(),
      database: this.databaseSection(),
      restore: { pending: pendingRestore(this.deps.env.dataDir) },
      notification_channels: this.deps.notifications?.channelStates() ?? [],
      recent_log_errors: this.deps.logRing.recent(),
    };
  }

  private configSection(): Record<string, unknown> {
    const { config } = this.deps;
    const applied = config.current;
    const document = applied?.config;
    return {
      present: config.present,
      status: config.health.status,
      schema_version: applied ? applied.document.schema_version : null,
      revision: applied?.revision ?? null,
      applied_at_epoch: applied?.appliedAtEpoch ?? null,
      counts: document
        ? {
            sources: document.sources.length,
            controllers: document.controllers.length,
            zones: Object.keys(document.zones).length,
          }
        : null,
      validation: config.validateStored(),
      snapshots: config.listSnapshots().length,
    };
  }

  private databaseSection(): Record<string, unknown> {
    const store = this.deps.store;
    const file = this.deps.databaseFile;
    const size = (path: string) => (existsSync(path) ? statSync(path).size : null);
    if (!store) return { available: false, note: this.deps.health.notes().database ?? null };
    // quick_check reads every page: a few seconds on a ten-year database, asked for by a person.
    const integrity = store.db.pragma('quick_check', { simple: true });
    return {
      available: true,
      schema_version: store.schemaVersion,
      size_bytes: size(file),
      wal_bytes: size(`${file}-wal`),
      page_size: store.db.pragma('page_size', { simple: true }),
      page_count: store.db.pragma('page_count', { simple: true }),
      integrity: integrity === 'ok' ? 'ok' : String(integrity),
    };
  }
}
