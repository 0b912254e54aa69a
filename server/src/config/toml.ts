import { parse, stringify, TomlError } from 'smol-toml';
import { MAX_NESTING, valueTooDeep } from '../core/nesting';
import { isPlainObject, type JsonObject, type JsonValue } from './json-walk';

/**
 * TOML is the file format; JSON is the wire format. TOML has no null, and in
 * this config a null always means "use the default", so nulls are written as
 * absent keys and read back as absent.
 */

export class ConfigParseError extends Error {
  constructor(
    message: string,
    readonly line: number | null,
    readonly column: number | null,
  ) {
    super(message);
  }
}

/**
 * Nesting past MAX_NESTING (inline tables and arrays, or dotted keys) is a
 * parse error: the walkers after the parser recurse (core/nesting.ts).
 */
export function parseToml(text: string): JsonObject {
  let doc: JsonObject;
  try {
    doc = parse(text, { maxDepth: MAX_NESTING }) as unknown as JsonObject;
  } catch (err) {
    if (err instanceof TomlError) {
      throw new ConfigParseError(err.message.split('\n')[0] ?? 'invalid TOML', err.line, err.column);
    }
    throw new ConfigParseError(String(err), null, null);
  }
  if (valueTooDeep(doc))
    throw new ConfigParseError(`tables nest deeper than ${MAX_NESTING} levels`, null, null);
  return doc;
}

export function toToml(doc: JsonObject): string {
  return stringify(withoutNulls(doc) as JsonObject);
}

/** The document as it reads back from the file: every null dropped. */
export function withoutNulls(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.filter((item) => item !== null).map(withoutNulls);
  if (isPlainObject(value)) {
    const out: JsonObject = {};
    for (const [key, child] of Object.entries(value)) {
      if (child !== null) out[key] = withoutNulls(child);
    }
    return out;
  }
  return value;
}
