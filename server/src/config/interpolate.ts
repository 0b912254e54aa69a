import { formatPath, mapStrings, type JsonValue } from './json-walk';

/**
 * `${NAME}` environment interpolation in every string of the config, with
 * `$${literal}` as the escape for a literal `${literal}`. Applied when the
 * runtime reads the config, never to what is stored or served, so an
 * interpolated secret is not written back to disk or shown.
 */

const REFERENCE = /\$(\$)?\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

export interface MissingVariable {
  name: string;
  path: string;
}

export function interpolateString(
  text: string,
  env: NodeJS.ProcessEnv,
  onMissing: (name: string) => void = () => {},
): string {
  return text.replace(REFERENCE, (_match, escaped: string | undefined, name: string) => {
    if (escaped) return `\${${name}}`;
    const value = env[name];
    if (value === undefined) {
      onMissing(name);
      return '';
    }
    return value;
  });
}

/** Interpolates a whole document; every reference to an unset variable is reported with its path. */
export function interpolateDocument(
  doc: JsonValue,
  env: NodeJS.ProcessEnv,
): { value: JsonValue; missing: MissingVariable[] } {
  const missing: MissingVariable[] = [];
  const value = mapStrings(doc, (text, path) =>
    interpolateString(text, env, (name) => missing.push({ name, path: formatPath(path) })),
  );
  return { value, missing };
}

/** True when the string is exactly one environment reference, such as `${OWM_KEY}`. */
export function isPureReference(text: string): boolean {
  return /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(text);
}
