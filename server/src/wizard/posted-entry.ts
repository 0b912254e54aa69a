import { interpolateDocument } from '../config/interpolate';
import { isPlainObject, type JsonObject, type JsonValue } from '../config/json-walk';
import { REDACTED, restoreSecrets } from '../config/secrets';
import { WizardError } from './wizard-error';

/**
 * An entry posted to a wizard probe (a controller, the llm block), made ready
 * to use: redacted sentinels restored from the stored config's counterpart
 * (spec 4.6; 400 `unmatched_redacted_secret` when it holds none, 400
 * `transport_field_mismatch` when a transport field moved beside a restored
 * secret), then `${NAME}` references interpolated from the environment
 * (422 `env_var_missing` for an unset one).
 */
export function preparePostedEntry(
  incoming: JsonObject,
  stored: JsonValue | null,
  env: NodeJS.ProcessEnv,
): JsonObject {
  const { value, unmatched, mismatched } = restoreSecrets(incoming, stored);
  if (unmatched.length > 0) {
    const paths = unmatched.map((u) => u.path);
    throw new WizardError(
      400,
      'unmatched_redacted_secret',
      `${REDACTED} at ${paths.join(', ')} stands for a stored secret, but the stored config holds none ` +
        'for this entry id; enter the value',
      { paths },
    );
  }
  if (mismatched.length > 0) {
    const paths = mismatched.map((m) => m.path);
    throw new WizardError(
      400,
      'transport_field_mismatch',
      `${paths.join(', ')} decide where a stored secret is sent; re-enter the secret to change them`,
      { paths },
    );
  }
  const { value: interpolated, missing } = interpolateDocument(value, env);
  if (missing.length > 0) {
    throw new WizardError(
      422,
      'env_var_missing',
      `environment variables not set: ${missing.map((m) => `\${${m.name}} at ${m.path}`).join(', ')}`,
    );
  }
  return interpolated as JsonObject;
}

/** The stored config's entry of `list` (sources, controllers) with the posted entry's id; null if none. */
export function storedEntryById(
  document: JsonObject | null,
  list: 'sources' | 'controllers',
  id: unknown,
): JsonObject | null {
  const entries = document?.[list];
  if (!Array.isArray(entries) || typeof id !== 'string') return null;
  return entries.find((entry): entry is JsonObject => isPlainObject(entry) && entry.id === id) ?? null;
}
