/** JSON values as they come off the wire or out of a TOML parser. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `$.zones.front.max_run_minutes`, `$.sources[0].config.api_key`: the path form of validation reports. */
export function formatPath(path: ReadonlyArray<string | number | symbol>): string {
  return path.reduce<string>((acc, part) => {
    if (typeof part === 'number') return `${acc}[${part}]`;
    const key = String(part);
    return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${acc}.${key}` : `${acc}[${JSON.stringify(key)}]`;
  }, '$');
}

/**
 * Rebuilds a JSON value, passing every string leaf through `mapString` with its
 * key path. Input is never mutated.
 */
export function mapStrings(
  value: JsonValue,
  mapString: (text: string, path: (string | number)[]) => string,
  path: (string | number)[] = [],
): JsonValue {
  if (typeof value === 'string') return mapString(value, path);
  if (Array.isArray(value)) return value.map((item, i) => mapStrings(item, mapString, [...path, i]));
  if (isPlainObject(value)) {
    const out: JsonObject = {};
    for (const [key, child] of Object.entries(value)) out[key] = mapStrings(child, mapString, [...path, key]);
    return out;
  }
  return value;
}

export function deepClone<T extends JsonValue>(value: T): T {
  return structuredClone(value);
}

/**
 * A deep copy of arrays and plain objects (other values shared), every object
 * with the ordinary prototype: the TOML parser makes null-prototype objects,
 * and comparing or handing out values should not depend on that.
 */
export function copyPlain<T>(value: T): T {
  if (Array.isArray(value)) {
    const items: unknown[] = []; // not value.map: that builds the array of the value's own realm
    for (const item of value as unknown[]) items.push(copyPlain(item));
    return items as T;
  }
  if (value !== null && typeof value === 'object') {
    // Plain: no prototype, or an Object.prototype (of any realm: structuredClone in a vm context).
    const proto = Object.getPrototypeOf(value) as object | null;
    if (proto !== null && Object.getPrototypeOf(proto) !== null) return value;
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) out[key] = copyPlain(child);
    return out as T;
  }
  return value;
}
