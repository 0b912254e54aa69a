import type { JsonObject } from '../../config/json-walk';
import { isPlainObject } from '../../config/json-walk';
import { scheduleSlug } from '../../config/schedule-config';
import type { RaincheckConfig } from '../../config/schema';
import { DomainError } from '../../core/domain-error';

/**
 * Turning a fixed schedule on or off: a config save of its `enabled`, made
 * from the stored document inside the config's write lock (nothing written
 * meanwhile is lost), with a snapshot note naming the schedule.
 */

export interface ScheduleSwitch {
  /** Slugs of the configured schedules. */
  slugs(): string[];
  setEnabled(slug: string, enabled: boolean): Promise<void>;
}

export interface ScheduleSwitchDeps {
  config: () => Pick<RaincheckConfig, 'schedules'> | null | undefined;
  update: (build: (stored: JsonObject) => JsonObject, options: { note: string }) => Promise<unknown>;
}

export function scheduleSwitchOf(deps: ScheduleSwitchDeps): ScheduleSwitch {
  return {
    slugs: () => (deps.config()?.schedules ?? []).map((s) => scheduleSlug(s.name)),
    setEnabled: async (slug, enabled) => {
      await saved(
        deps.update(
          (stored) => {
            const list = Array.isArray(stored.schedules) ? stored.schedules : [];
            for (const entry of list) {
              if (
                isPlainObject(entry) &&
                typeof entry.name === 'string' &&
                scheduleSlug(entry.name) === slug
              ) {
                entry.enabled = enabled;
              }
            }
            return stored;
          },
          { note: `before ${enabled ? 'enabling' : 'disabling'} schedule ${slug}` },
        ),
      );
    },
  };
}

/** A refused save (config/config-service.ts `ConfigRejected`: a code, no status) as the action's answer. */
async function saved(save: Promise<unknown>): Promise<void> {
  try {
    await save;
  } catch (err) {
    const code = (err as { code?: unknown } | null)?.code;
    if (typeof code !== 'string' || typeof (err as { status?: unknown }).status === 'number') throw err;
    throw new DomainError(code === 'config_invalid' ? 422 : 409, code, (err as Error).message);
  }
}
