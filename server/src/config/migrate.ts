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
  out.schema_version = 2;
  return out;
}

const MIGRATIONS: Record<number, Migration> = { 1: v1ToV2 };

export interface MigrationOutcome {
  doc: JsonObject;
  from: number;
  to: number;
}

/**
 * Within v2: early builds kept the LLM provider fields in an `[llm.config]`
 * table; spec 2.6 puts them on `[llm]` itself (`llm.base_url`, `llm.model`,
 * `llm.api_key`, `llm.probe_order`). Such a document is read as if they sat
 * there; a value already on `[llm]` wins. The file changes on its next save.
 */
function hoistLlmConfig(doc: JsonObject): JsonObject {
  const llm = doc.llm;
  if (!isPlainObject(llm) || !isPlainObject(llm.config)) return doc;
  const out = structuredClone(doc);
  const block = out.llm as JsonObject;
  const nested = block.config as JsonObject;
  delete block.config;
  for (const [key, value] of Object.entries(nested)) if (!(key in block)) block[key] = value;
  return out;
}

/** Brings a document up to the current schema; documents at or above it come back untouched. */
export function migrateDocument(doc: JsonObject): MigrationOutcome {
  const from = typeof doc.schema_version === 'number' ? doc.schema_version : CURRENT_SCHEMA_VERSION;
  let current = from <= CURRENT_SCHEMA_VERSION ? hoistLlmConfig(doc) : doc;
  let version = from;
  while (version < CURRENT_SCHEMA_VERSION) {
    const step = MIGRATIONS[version];
    if (!step) throw new Error(`no migration from config schema_version ${version}`);
    current = step(current);
    version += 1;
  }
  return { doc: current, from, to: version };
}
