import type { RuntimeEnv } from './env';
import type { JsonObject } from './json-walk';
import { CURRENT_SCHEMA_VERSION } from './schema-version';

/**
 * What GET /config answers before any config exists (wizard mode): the
 * environment's location, the default forecast source and no controllers.
 * A missing location stays null; it is never guessed.
 */
export function environmentBaseline(env: RuntimeEnv): JsonObject {
  return {
    schema_version: CURRENT_SCHEMA_VERSION,
    deployment: { location: { lat: env.lat, lon: env.lon }, units: 'imperial' },
    sources: [
      { id: 'open_meteo', priority: 50, enabled: true, kind: 'open_meteo', config: { past_days: 3 } },
    ],
    controllers: [],
    zones: {},
  };
}
