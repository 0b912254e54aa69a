/** A value that survives a JSON round trip unchanged. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * JSON.stringify turns NaN and Infinity into null, which would store a fabricated
 * "unknown" in place of a caller bug; refuse them instead.
 */
export function toJson(value: JsonValue): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'number' && !Number.isFinite(v))
      throw new TypeError(`cannot store non-finite number ${v}`);
    return v;
  });
}

export function fromJson<T extends JsonValue = JsonValue>(text: string): T {
  return JSON.parse(text) as T;
}
