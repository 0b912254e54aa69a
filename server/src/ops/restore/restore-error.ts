import { ApiError } from '../../http/errors';

/**
 * Every refusal of POST /backup/restore (docs/operations.md has the table).
 * Whatever the refusal, nothing in the data directory has changed.
 */

export type RestoreRefusal =
  | 'backup_too_large'
  | 'backup_truncated'
  | 'backup_corrupted'
  | 'backup_unrecognized'
  | 'backup_checksum_mismatch'
  | 'backup_schema_too_new'
  | 'backup_database_invalid'
  | 'invalid_body';

const STATUS: Record<RestoreRefusal, number> = {
  backup_too_large: 413,
  backup_truncated: 400,
  backup_corrupted: 400,
  backup_unrecognized: 400,
  invalid_body: 400,
  backup_checksum_mismatch: 422,
  backup_schema_too_new: 422,
  backup_database_invalid: 422,
};

export function refuse(code: RestoreRefusal, message: string, extra: Record<string, unknown> = {}): ApiError {
  return new ApiError(STATUS[code], code, message, extra);
}
