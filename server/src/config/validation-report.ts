import { CURRENT_SCHEMA_VERSION } from './schema-version';

/**
 * The validation report (spec 2.6; the validator is validate.ts): errors block
 * a save, warnings never do. Each entry names a stable `code`, the JSON path
 * it is about and a message a home owner can act on. Its own module so that
 * boot, which reads the schema version and may report nothing, does not load
 * the validator.
 */

export interface ValidationEntry {
  code: string;
  path: string;
  message: string;
}

export interface ValidationReport {
  ok: boolean;
  errors: ValidationEntry[];
  warnings: ValidationEntry[];
  note?: string;
}

export function emptyReport(note?: string): ValidationReport {
  return note === undefined
    ? { ok: true, errors: [], warnings: [] }
    : { ok: true, errors: [], warnings: [], note };
}

/** The clear refusal for a file newer than this build, shared with boot. */
export function checkSchemaVersion(version: unknown): ValidationEntry | null {
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    return {
      code: 'schema_version_missing',
      path: '$.schema_version',
      message: `schema_version must be a whole number; this build writes ${CURRENT_SCHEMA_VERSION}`,
    };
  }
  if (version > CURRENT_SCHEMA_VERSION) {
    return {
      code: 'schema_version_unsupported',
      path: '$.schema_version',
      message:
        `this config is schema_version ${version}, newer than this build of Raincheck supports ` +
        `(${CURRENT_SCHEMA_VERSION}); upgrade Raincheck or roll back to a config snapshot`,
    };
  }
  return null;
}
