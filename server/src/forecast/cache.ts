import { existsSync, readFileSync, unlinkSync } from 'node:fs';
import { writeFileAtomic } from '../core/atomic-write';
import type { Logger } from '../core/logger';
import type { ProviderForecast } from './types';

/**
 * The private forecast cache: the last good forecast of every track, so a
 * restart serves it (with its true age) before the first refresh. Versioned:
 * a cache of another schema is discarded on boot, never misread (spec 9.4).
 */

export const FORECAST_CACHE_SCHEMA = 3;

export interface CachedTrack {
  forecast: ProviderForecast;
  label: string;
  isBackup: boolean;
}

export interface ForecastCacheFile {
  schema: number;
  merged: CachedTrack | null;
  tracks: Record<string, CachedTrack>;
}

export function loadForecastCache(path: string, logger: Logger): ForecastCacheFile | null {
  if (!existsSync(path)) return null;
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    const schema = isRecord(parsed) ? parsed.schema : undefined;
    if (schema === FORECAST_CACHE_SCHEMA && isRecord(parsed)) {
      const merged = parsed.merged ?? null;
      const tracks = parsed.tracks;
      if (
        (merged === null || isCachedTrack(merged)) &&
        isRecord(tracks) &&
        Object.values(tracks).every(isCachedTrack)
      ) {
        return { schema: FORECAST_CACHE_SCHEMA, merged, tracks: tracks as Record<string, CachedTrack> };
      }
      logger.warn('discarded a forecast cache whose content is not a cached forecast');
    } else {
      logger.info(
        { found: schema ?? null, want: FORECAST_CACHE_SCHEMA },
        'discarded a forecast cache of another schema',
      );
    }
  } catch (err) {
    logger.warn({ err }, 'discarded an unreadable forecast cache');
  }
  try {
    unlinkSync(path);
  } catch (err) {
    // Never fatal: boot goes on without a cache, and the next refresh overwrites the file.
    logger.warn({ err }, 'could not delete the discarded forecast cache');
  }
  return null;
}

export function saveForecastCache(path: string, cache: Omit<ForecastCacheFile, 'schema'>): void {
  writeFileAtomic(path, JSON.stringify({ schema: FORECAST_CACHE_SCHEMA, ...cache }));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The shape the service reads from a cached track; anything else is discarded, never misread. */
function isCachedTrack(value: unknown): value is CachedTrack {
  if (!isRecord(value) || typeof value.label !== 'string' || typeof value.isBackup !== 'boolean')
    return false;
  const forecast = value.forecast;
  return (
    isRecord(forecast) &&
    typeof forecast.provider === 'string' &&
    (forecast.model === null || typeof forecast.model === 'string') &&
    Number.isSafeInteger(forecast.fetched_at) &&
    Array.isArray(forecast.hourly) &&
    Array.isArray(forecast.daily)
  );
}
