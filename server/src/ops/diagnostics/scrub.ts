import { isPlainObject, type JsonValue } from '../../config/json-walk';

/**
 * Removes secret values from a document about to leave the service
 * (/diagnostics). Not by key name only: every string the config marks secret,
 * and the secrets of the environment, are searched for in every key and
 * value, plain, URL-encoded and in base64 (standard and URL-safe, at any
 * alignment, so one inside an encoded `user:secret` pair is found too).
 */

export const SCRUBBED = '***redacted***';
/** Shorter values (`on`, `1`) would erase ordinary words; no real secret is this short. */
const MIN_SECRET_CHARS = 4;

export function secretForms(secret: string): string[] {
  const forms = new Set<string>([secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)]);
  const bytes = Buffer.from(secret, 'utf8');
  for (let offset = 0; offset < 3; offset += 1) {
    const padded = Buffer.concat([Buffer.alloc(offset), bytes]);
    const encoded = padded.toString('base64');
    // Characters that mix filler or following bytes with the secret differ from one context to another.
    const start = offset === 0 ? 0 : Math.ceil((offset * 4) / 3);
    const end = Math.floor(((offset + bytes.length) * 4) / 3);
    const core = encoded.slice(start, end);
    if (core.length >= 6) {
      forms.add(core);
      forms.add(core.replace(/\+/g, '-').replace(/\//g, '_'));
    }
  }
  forms.add(bytes.toString('base64'));
  forms.add(bytes.toString('base64url'));
  return [...forms].filter((form) => form.length >= MIN_SECRET_CHARS);
}

export class Scrubber {
  private readonly forms: string[];

  constructor(secrets: Iterable<string>) {
    const all = new Set<string>();
    for (const secret of secrets) {
      if (secret.length >= MIN_SECRET_CHARS && secret !== SCRUBBED)
        for (const form of secretForms(secret)) all.add(form);
    }
    // Longest first: a secret that contains another is replaced whole.
    this.forms = [...all].sort((a, b) => b.length - a.length);
  }

  text(value: string): string {
    let out = value;
    for (const form of this.forms) if (out.includes(form)) out = out.split(form).join(SCRUBBED);
    return out;
  }

  value(value: unknown): JsonValue {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) return value.map((item) => this.value(item));
    if (isPlainObject(value)) {
      const out: Record<string, JsonValue> = {};
      for (const [key, child] of Object.entries(value)) out[this.text(key)] = this.value(child);
      return out;
    }
    if (value === undefined || typeof value === 'function') return null;
    return value as JsonValue;
  }

  /** Whether any secret form is still in the text (the last check before it leaves). */
  leaks(text: string): boolean {
    return this.forms.some((form) => text.includes(form));
  }
}
