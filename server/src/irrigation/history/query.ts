import { ApiError } from '../../http/errors';

/**
 * Query parameters of the irrigation history routes (spec 4.4, limits in spec 8).
 * Pure: reads the parsed querystring, returns typed values or throws ApiError 400
 * `invalid_query` with a message naming the parameter and what it accepts.
 *
 * `days` is decimal digits with an optional leading minus; a blank or absent
 * value is the endpoint's default. Anything else (`abc`, `1.5`, `1e3`, `0x10`,
 * a repeated parameter) is garbage and answers 400 on every endpoint. A whole
 * number outside the endpoint's limits is then:
 * - `range` endpoints (history, decisions: 0..36500): 400, the spec gives a range, not a clamp;
 * - `clamp` endpoints (export 1..3650, accuracy 1..365, tuning 7..30): clamped, as spec 8 says.
 */

export const INVALID_QUERY = 'invalid_query';

export interface DaysRule {
  readonly fallback: number;
  readonly min: number;
  readonly max: number;
  readonly outOfRange: 'reject' | 'clamp';
}

export const DAYS_RULES = {
  /** 0 = every retained record. */
  history: { fallback: 30, min: 0, max: 36_500, outOfRange: 'reject' },
  decisions: { fallback: 30, min: 0, max: 36_500, outOfRange: 'reject' },
  export: { fallback: 365, min: 1, max: 3650, outOfRange: 'clamp' },
  accuracy: { fallback: 30, min: 1, max: 365, outOfRange: 'clamp' },
  tuning: { fallback: 14, min: 7, max: 30, outOfRange: 'clamp' },
  /** The soil ledger: closed days before today. */
  soil: { fallback: 30, min: 1, max: 400, outOfRange: 'clamp' },
} as const satisfies Record<string, DaysRule>;

export type ExportFormat = 'csv' | 'json';
export const EXPORT_FORMATS: readonly ExportFormat[] = ['csv', 'json'];

type Query = Record<string, unknown>;

const WHOLE_NUMBER = /^-?\d+$/;

function invalid(message: string): ApiError {
  return new ApiError(400, INVALID_QUERY, message);
}

/** The parameter's single string value; undefined when absent or blank. */
function single(query: Query, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalid(`query parameter "${name}" must appear once`);
  return value.trim() === '' ? undefined : value;
}

export function parseDays(query: Query, rule: DaysRule): number {
  const raw = single(query, 'days');
  if (raw === undefined) return rule.fallback;
  const limits = `${rule.min}..${rule.max}`;
  if (!WHOLE_NUMBER.test(raw)) {
    throw invalid(
      `query parameter "days" must be a whole number of days (${limits}), got ${JSON.stringify(raw)}`,
    );
  }
  const days = Number(raw) || 0; // -0 reads as 0
  if (days >= rule.min && days <= rule.max) return days;
  if (rule.outOfRange === 'clamp') return days < rule.min ? rule.min : rule.max;
  throw invalid(`query parameter "days" must be in ${limits} (0 = every retained record), got ${raw}`);
}

/** `format`: csv (default) or json, case-insensitive. */
export function parseExportFormat(query: Query): ExportFormat {
  const raw = single(query, 'format');
  if (raw === undefined) return 'csv';
  const format = raw.toLowerCase();
  if (format === 'csv' || format === 'json') return format;
  throw invalid(`query parameter "format" must be csv or json, got ${JSON.stringify(raw)}`);
}

/**
 * `zone` (GET /irrigation/soil): a configured zone's slug. Absent or unknown:
 * 400 `zone_unknown` with the slugs it accepts (`mapped_zones`), the same
 * answer the actions give.
 */
export function parseZone(query: Query, mapped: readonly string[]): string {
  const zone = single(query, 'zone');
  if (zone !== undefined && mapped.includes(zone)) return zone;
  const mapped_zones = [...mapped].sort();
  throw new ApiError(
    400,
    'zone_unknown',
    `unknown zone ${JSON.stringify(zone ?? '')}; expected one of ${mapped_zones.join(', ')}`,
    {
      mapped_zones,
      hint: 'pass a configured zone slug as ?zone=<slug>',
    },
  );
}
