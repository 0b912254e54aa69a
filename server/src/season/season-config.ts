import type { AppliedConfig } from '../config/config-types';
import { ConfigRejected, type ConfigService, type SaveResult } from '../config/config-service';
import type { JsonObject } from '../config/json-walk';
import type { RaincheckConfig } from '../config/schema';
import { validateDocument } from '../config/validate';
import type { EventBus } from '../core/bus';
import type { Clock } from '../core/clock';

/**
 * The replay's config, changeable the way the service's is: `update` takes
 * the same builder as ConfigService.update (what TuningService.apply, behind
 * POST /config/zones/apply, calls), validates the result with the service's
 * own validateDocument, and announces `config.changed` on the booted bus.
 * Unlike ConfigService it keeps the document in memory (a replay writes no
 * config file and no snapshots); the database holds everything else, so a
 * restart on a later day reads the config as last applied.
 */
export class SeasonConfig implements Pick<ConfigService, 'current' | 'update'> {
  private applied: AppliedConfig;
  /** The bus of the service now running (a replay's restart boots a new one). */
  bus: EventBus | null = null;

  constructor(
    config: RaincheckConfig,
    private readonly clock: Clock,
  ) {
    const document = JSON.parse(JSON.stringify(config)) as JsonObject;
    this.applied = { config, document, appliedAtEpoch: 0, revision: 1 };
  }

  get current(): AppliedConfig {
    return this.applied;
  }

  update(build: (stored: JsonObject) => JsonObject): Promise<SaveResult> {
    try {
      const document = build(structuredClone(this.applied.document));
      const result = validateDocument(document, {});
      if (!result.config) {
        throw new ConfigRejected('config_invalid', 'the changed config does not validate', {
          validation: result.report,
        });
      }
      const previous = this.applied;
      const now = Math.floor(this.clock.nowMs() / 1000);
      this.applied = {
        config: result.config,
        document,
        appliedAtEpoch: now,
        revision: previous.revision + 1,
      };
      this.bus?.emit('config.changed', { previous, next: this.applied });
      return Promise.resolve({
        saved: {
          revision: this.applied.revision,
          applied_at_epoch: now,
          schema_version: Number(document.schema_version),
          previous_snapshot_ts: null,
        },
        validation: result.report,
      });
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }
}
