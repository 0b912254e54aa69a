import { isPlainObject, type JsonObject } from './json-walk';
import { legacyRestrictionRules } from './restrictions';
import { configSchemaModule } from './schema-module';
import { CURRENT_SCHEMA_VERSION } from './schema-version';

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

/**
 * Within v2: watering restrictions were one `[engine.restrictions]` table
 * (allowed weekdays, house-number weekdays); they are now top-level
 * `[[restrictions]]` rules. A document with the table is read as if its rules
 * were appended to `restrictions` (same days allowed; config/restrictions.ts
 * `legacyRestrictionRules`), names made unique; the file changes on its next
 * save. A table the legacy schema refuses stays where it is, for the
 * validator to report.
 */
function moveEngineRestrictions(doc: JsonObject): JsonObject {
  const engine = doc.engine;
  if (!isPlainObject(engine) || !('restrictions' in engine)) return doc;
  const legacy = engine.restrictions;
  const parsed = legacy === null ? null : configSchemaModule().restrictionsSchema.safeParse(legacy);
  if (parsed !== null && !parsed.success) return doc;
  const out = structuredClone(doc);
  delete (out.engine as JsonObject).restrictions;
  const rules = legacyRestrictionRules(parsed?.data ?? null);
  if (rules.length === 0) return out;
  const existing = Array.isArray(out.restrictions) ? out.restrictions : [];
  const taken = new Set(existing.map((r) => (isPlainObject(r) ? r.name : undefined)));
  for (const rule of rules) {
    let name = rule.name;
    for (let n = 2; taken.has(name); n += 1) name = `${rule.name} (${n})`;
    taken.add(name);
    existing.push({ ...rule, name, weekdays: [...(rule.weekdays ?? [])] });
  }
  out.restrictions = existing;
  return out;
}

/** Brings a document up to the current schema; documents at or above it come back untouched. */
export function migrateDocument(doc: JsonObject): MigrationOutcome {
  const from = typeof doc.schema_version === 'number' ? doc.schema_version : CURRENT_SCHEMA_VERSION;
  let current = from <= CURRENT_SCHEMA_VERSION ? moveEngineRestrictions(hoistLlmConfig(doc)) : doc;
  let version = from;
  while (version < CURRENT_SCHEMA_VERSION) {
    const step = MIGRATIONS[version];
    if (!step) throw new Error(`no migration from config schema_version ${version}`);
    current = step(current);
    version += 1;
  }
  return { doc: current, from, to: version };
}
