/**
 * A write refused because the storage is full: the file system's ENOSPC or
 * EDQUOT (quota), or SQLite's SQLITE_FULL (better-sqlite3 puts the result
 * code on the error). Read structurally: the errors come from node's fs,
 * better-sqlite3 and anything that wraps them.
 */
const FULL_CODES = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL']);

export function isStorageFull(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && FULL_CODES.has(code);
}
