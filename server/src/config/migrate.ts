import { isPlainObject, type JsonObject } from './json-walk';
import { CURRENT_SCHEMA_VERSION } from './schema';

/**
 * Config document migrations, run on boot and on every write of an older
 * document (a restored backup, a pasted file). Each step takes version N to
 * N+1 and never drops a user's value.
 */

type Migration = (doc: JsonObject) => JsonObject;

/**
 * v1 -> v2:
 * - `controller_station` was written as a bare TOML integer (`= 3`); v2 holds
 *   strings so an entity id and a station number share one field.
 * - LLM provider fields sat directly under `[llm]`; v2 keeps them in `[llm.config]`
 *   like every other per-kind block.
 */
function v1ToV2(doc: JsonObject): JsonObject {
  const out = structuredClone(doc);
  if (isPlainObject(out.zones)) {
    for (const zone of Object.values(out.zones)) {
      if (isPlainObject(zone) && typeof zone.controller_station === 'number') {
        zone.controller_station = String(zone.controller_station);
      }
    }
  }
  if (isPlainObject(out.llm)) {
    const llm = out.llm;
    const config: JsonObject = isPlainObject(llm.config) ? llm.config : {};
    for (const key of ['base_url', 'model', 'api_key', 'probe_order']) {
      if (key in llm) {
        config[key] ??= llm[key] ?? null;
        delete llm[key];
      }
    }
    if (Object.keys(config).length > 0) llm.config = config;
  }
  out.schema_version = 2;
  return out;
}

const MIGRATIONS: Record<number, Migration> = { 1: v1ToV2 };

export interface MigrationOutcome {
  doc: JsonObject;
  from: number;
  to: number;
}

/** Brings a document up to the current schema; documents at or above it come back untouched. */
export function migrateDocument(doc: JsonObject): MigrationOutcome {
  const from = typeof doc.schema_version === 'number' ? doc.schema_version : CURRENT_SCHEMA_VERSION;
  let current = doc;
  let version = from;
  while (version < CURRENT_SCHEMA_VERSION) {
    const step = MIGRATIONS[version];
    if (!step) throw new Error(`no migration from config schema_version ${version}`);
    current = step(current);
    version += 1;
  }
  return { doc: current, from, to: version };
}
