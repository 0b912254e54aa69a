import { isPureReference } from './interpolate';
import { formatPath, isPlainObject, mapStrings, type JsonObject, type JsonValue } from './json-walk';

/**
 * Secret-bearing strings are never served: every read replaces them with the
 * sentinel, and a write that sends the sentinel back keeps the stored value.
 * Secrets are recognised by key name so that per-kind config blocks added by
 * later issues are covered without a list to maintain.
 */

export const REDACTED = '***redacted***';

// `key` covers api_key, application_key, app_key, private_key, access_key.
const SECRET_KEY = /(^|_)(key|apikey|token|password|passwd|secret|passkey|password_md5|webhook_url)$/i;

/**
 * Where a secret is sent. A write that keeps a stored secret through the
 * sentinel may not also move it to another endpoint (spec 4.6).
 */
const TRANSPORT_KEYS = [
  'base_url',
  'url',
  'host',
  'port',
  'broker_host',
  'broker_port',
  'smtp_host',
  'smtp_port',
];

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

/** A reference such as `${OWM_KEY}` names a secret without holding it, so it stays visible. */
function shouldRedact(key: string | number | undefined, value: string): boolean {
  return typeof key === 'string' && isSecretKey(key) && value !== '' && !isPureReference(value);
}

export function redactSecrets(doc: JsonValue): JsonValue {
  return mapStrings(doc, (text, path) => (shouldRedact(path[path.length - 1], text) ? REDACTED : text));
}

/** Every non-empty secret value in the document, for scrubbing them from other text. */
export function collectSecretValues(doc: JsonValue): string[] {
  const found: string[] = [];
  mapStrings(doc, (text, path) => {
    if (shouldRedact(path[path.length - 1], text)) found.push(text);
    return text;
  });
  return found;
}

export interface UnmatchedSentinel {
  path: string;
}

export interface TransportMismatch {
  /** The transport field that changed beside a restored secret. */
  path: string;
}

export interface RestoreOutcome {
  value: JsonValue;
  unmatched: UnmatchedSentinel[];
  mismatched: TransportMismatch[];
}

export interface TransportMismatch {
  /** The transport field that changed beside a restored secret. */
  path: string;
}

export interface RestoreOutcome {
  value: JsonValue;
  unmatched: UnmatchedSentinel[];
  mismatched: TransportMismatch[];
}

/**
 * Replaces each sentinel in `incoming` with the value stored at the same place
 * in `stored`. Array entries that carry an `id` (sources, controllers) are
 * matched by id, so reordering entries cannot move a secret to another entry.
 */
export function restoreSecrets(incoming: JsonValue, stored: JsonValue | null): RestoreOutcome {
  const outcome: RestoreOutcome = { value: null, unmatched: [], mismatched: [] };
  outcome.value = restore(incoming, stored ?? null, [], outcome);
  return outcome;
}

function restore(
  incoming: JsonValue,
  stored: JsonValue | null | undefined,
  path: (string | number)[],
  outcome: RestoreOutcome,
): JsonValue {
  if (incoming === REDACTED) {
    if (typeof stored === 'string' && stored !== REDACTED) return stored;
    outcome.unmatched.push({ path: formatPath(path) });
    return incoming;
  }
  if (Array.isArray(incoming)) {
    const storedList = Array.isArray(stored) ? stored : [];
    return incoming.map((item, i) => restore(item, counterpart(item, storedList, i), [...path, i], outcome));
  }
  if (isPlainObject(incoming)) {
    const storedObject = isPlainObject(stored) ? stored : {};
    const out: JsonObject = {};
    for (const [key, child] of Object.entries(incoming)) {
      out[key] = restore(child, storedObject[key], [...path, key], outcome);
    }
    checkTransportPinned(incoming, storedObject, path, outcome);
    return out;
  }
  return incoming;
}

/** A restored secret pins its sibling transport fields to their stored values. */
function checkTransportPinned(
  incoming: JsonObject,
  stored: JsonObject,
  path: (string | number)[],
  outcome: RestoreOutcome,
): void {
  const restoresSecret = Object.entries(incoming).some(
    ([key, value]) => value === REDACTED && typeof stored[key] === 'string',
  );
  if (!restoresSecret) return;
  for (const key of TRANSPORT_KEYS) {
    if (JSON.stringify(incoming[key] ?? null) !== JSON.stringify(stored[key] ?? null)) {
      outcome.mismatched.push({ path: formatPath([...path, key]) });
    }
  }
}

function counterpart(item: JsonValue, storedList: JsonValue[], index: number): JsonValue | undefined {
  if (isPlainObject(item) && typeof item.id === 'string') {
    return storedList.find((entry) => isPlainObject(entry) && entry.id === item.id);
  }
  return storedList[index];
}
