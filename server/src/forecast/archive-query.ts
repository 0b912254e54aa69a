import { ApiError } from '../http/errors';
import {
  ARCHIVE_LEAD_MAX_H,
  decodeCursor,
  InvalidCursorError,
  type ArchiveQuery,
  type CursorScope,
} from '../store/forecast-archive';

/**
 * Query parameters of GET /forecast/window and GET /forecast/archive (spec 4.3,
 * limits in spec 8). Pure: reads the parsed querystring, returns typed values
 * or throws ApiError(400) with one stable code per failure. Whether the track
 * exists is the route's business (it knows the configured tracks): it answers
 * with trackUnknown().
 *
 * Integers are decimal digits only (no sign, exponent, fraction or hex) and
 * must be safe integers. A blank value counts as absent. A parameter given
 * more than once is invalid.
 */

const HOUR_S = 3600;
const DAY_S = 86_400;

export const DEFAULT_TRACK = 'merged';
/** Spec 8: at most 48 hours between the window's bounds (to - from <= 48 h, so up to 49 hour starts). */
export const WINDOW_MAX_SPAN_S = 48 * HOUR_S;
/** Spec 8: an archive range of up to 400 days between its bounds. */
export const ARCHIVE_MAX_RANGE_S = 400 * DAY_S;
export { ARCHIVE_LEAD_MAX_H };
export const ARCHIVE_LIMIT_MAX = 5000;
export const ARCHIVE_LIMIT_DEFAULT = 1000;
/** Longer than any cursor the store issues; bounds the work spent decoding junk. */
const CURSOR_MAX_LENGTH = 256;

export const TRACK_UNKNOWN = 'track_unknown';

/** Every 400 code of the two endpoints with its meaning, for the docs and for clients branching on `code`. */
export const FORECAST_QUERY_ERRORS = {
  window_from_missing: 'window: `from` is absent or blank',
  window_to_missing: 'window: `to` is absent or blank',
  window_bound_invalid: 'window: `from` or `to` is not a non-negative integer epoch (or is repeated)',
  window_not_hour_start: 'window: `from` or `to` is not an hour start (a multiple of 3600)',
  window_inverted: 'window: `from` is after `to`',
  window_too_long: 'window: more than 48 hours between `from` and `to`',
  archive_from_missing: 'archive: `from` is absent or blank',
  archive_to_missing: 'archive: `to` is absent or blank',
  archive_bound_invalid: 'archive: `from` or `to` is not a non-negative integer epoch (or is repeated)',
  archive_inverted: 'archive: `from` is after `to`',
  archive_range_too_long: 'archive: more than 400 days between `from` and `to`',
  archive_lead_invalid: 'archive: `lead_h` is not an integer 0..47',
  archive_limit_invalid: 'archive: `limit` is not an integer 1..5000',
  archive_cursor_invalid:
    'archive: `cursor` was not issued by this service, or was issued for another track, range or lead_h',
  [TRACK_UNKNOWN]: 'window and archive: `track` is neither `merged` nor a configured extra model id',
} as const;

export type ForecastQueryErrorCode = keyof typeof FORECAST_QUERY_ERRORS;

export interface WindowQuery {
  track: string;
  /** Inclusive hour starts, to - from <= 48 h. */
  from: number;
  to: number;
}

type Query = Record<string, unknown>;

function fail(code: ForecastQueryErrorCode, message: string): never {
  throw new ApiError(400, code, message);
}

/** GET /forecast/window: `track` (default merged), `from`, `to` (inclusive hour starts, at most 48 h apart). */
export function parseWindowQuery(query: Query): WindowQuery {
  const track = readTrack(query);
  const rawFrom = present(query.from);
  const rawTo = present(query.to);
  if (rawFrom === undefined) fail('window_from_missing', 'query parameter "from" is required');
  if (rawTo === undefined) fail('window_to_missing', 'query parameter "to" is required');
  const from = epoch(rawFrom, 'from', 'window_bound_invalid');
  const to = epoch(rawTo, 'to', 'window_bound_invalid');
  for (const [name, value] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (value % HOUR_S !== 0) {
      fail('window_not_hour_start', `"${name}" must be an hour start (a multiple of 3600), got ${value}`);
    }
  }
  if (from > to) fail('window_inverted', `"from" (${from}) is after "to" (${to})`);
  if (to - from > WINDOW_MAX_SPAN_S) {
    fail('window_too_long', `at most 48 hours between "from" and "to", got ${(to - from) / HOUR_S}`);
  }
  return { track, from, to };
}

/**
 * GET /forecast/archive: `track` (default merged), `from`, `to` (inclusive target-hour
 * range, at most 400 days apart), optional `lead_h` 0..47, `limit` 1..5000 (default
 * 1000), optional `cursor`. The result is the store's ArchiveQuery; a cursor is
 * checked against these filters here, and the store checks it again.
 */
export function parseArchiveQuery(query: Query): ArchiveQuery {
  const track = readTrack(query);
  const rawFrom = present(query.from);
  const rawTo = present(query.to);
  if (rawFrom === undefined) fail('archive_from_missing', 'query parameter "from" is required');
  if (rawTo === undefined) fail('archive_to_missing', 'query parameter "to" is required');
  const from = epoch(rawFrom, 'from', 'archive_bound_invalid');
  const to = epoch(rawTo, 'to', 'archive_bound_invalid');
  if (from > to) fail('archive_inverted', `"from" (${from}) is after "to" (${to})`);
  if (to - from > ARCHIVE_MAX_RANGE_S) {
    fail('archive_range_too_long', 'at most 400 days between "from" and "to"');
  }

  const rawLead = present(query.lead_h);
  const lead_h =
    rawLead === undefined
      ? undefined
      : intInRange(rawLead, 0, ARCHIVE_LEAD_MAX_H, 'archive_lead_invalid', 'lead_h');

  const rawLimit = present(query.limit);
  const limit =
    rawLimit === undefined
      ? ARCHIVE_LIMIT_DEFAULT
      : intInRange(rawLimit, 1, ARCHIVE_LIMIT_MAX, 'archive_limit_invalid', 'limit');

  const cursor = readCursor(query.cursor, { track, from, to, lead_h: lead_h ?? null });
  return { track, from, to, ...(lead_h === undefined ? {} : { lead_h }), limit, cursor };
}

/** The 400 for a cursor the store refused; use mapArchiveCursorError around repository calls. */
export function archiveCursorError(): ApiError {
  return new ApiError(400, 'archive_cursor_invalid', 'the cursor is not a next_cursor of this query');
}

/** The store's InvalidCursorError as the route's 400; anything else unchanged (rethrow it). */
export function mapArchiveCursorError(err: unknown): unknown {
  return err instanceof InvalidCursorError ? archiveCursorError() : err;
}

/** Runs a repository call, turning InvalidCursorError into the 400 `archive_cursor_invalid`. */
export function withArchiveCursor<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw mapArchiveCursorError(err);
  }
}

/** The route's answer for a track that is neither `merged` nor a configured extra model. */
export function trackUnknown(track: string): ApiError {
  return new ApiError(400, TRACK_UNKNOWN, `unknown forecast track "${track}"`);
}

/** Absent and blank are the same; anything else is returned as given for the typed readers to judge. */
function present(value: unknown): unknown {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' && value.trim() === '') return undefined;
  return value;
}

function readTrack(query: Query): string {
  const raw = present(query.track);
  if (raw === undefined) return DEFAULT_TRACK;
  if (typeof raw !== 'string')
    throw new ApiError(400, TRACK_UNKNOWN, 'query parameter "track" must appear once');
  return raw;
}

/** A safe non-negative integer from a decimal string (or an already-parsed number); undefined otherwise. */
function nonNegativeInt(raw: unknown): number | undefined {
  if (typeof raw === 'number') return Number.isSafeInteger(raw) && raw >= 0 ? raw : undefined;
  if (typeof raw !== 'string') return undefined;
  const text = raw.trim();
  if (!/^\d{1,16}$/.test(text)) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : undefined;
}

function epoch(raw: unknown, name: string, code: ForecastQueryErrorCode): number {
  const value = nonNegativeInt(raw);
  if (value === undefined) fail(code, `"${name}" must be a non-negative integer epoch`);
  return value;
}

function intInRange(
  raw: unknown,
  min: number,
  max: number,
  code: ForecastQueryErrorCode,
  name: string,
): number {
  const value = nonNegativeInt(raw);
  if (value === undefined || value < min || value > max) {
    fail(code, `"${name}" must be an integer ${min}..${max}`);
  }
  return value;
}

function readCursor(raw: unknown, scope: CursorScope): string | null {
  const value = present(raw);
  if (value === undefined) return null;
  if (typeof value !== 'string' || value.length > CURSOR_MAX_LENGTH) throw archiveCursorError();
  withArchiveCursor(() => decodeCursor(value, scope));
  return value;
}
