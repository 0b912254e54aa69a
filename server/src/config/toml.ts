import { parse, stringify, TomlError } from 'smol-toml';
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

export function parseToml(text: string): JsonObject {
  try {
    return parse(text) as unknown as JsonObject;
  } catch (err) {
    if (err instanceof TomlError) {
      throw new ConfigParseError(err.message.split('\n')[0] ?? 'invalid TOML', err.line, err.column);
    }
    throw new ConfigParseError(String(err), null, null);
  }
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
