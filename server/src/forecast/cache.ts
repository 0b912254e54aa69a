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
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<ForecastCacheFile>;
    if (parsed.schema === FORECAST_CACHE_SCHEMA && typeof parsed.tracks === 'object' && parsed.tracks) {
      return { schema: FORECAST_CACHE_SCHEMA, merged: parsed.merged ?? null, tracks: parsed.tracks };
    }
    logger.info(
      { found: parsed.schema ?? null, want: FORECAST_CACHE_SCHEMA },
      'discarded a forecast cache of another schema',
    );
  } catch (err) {
    logger.warn({ err }, 'discarded an unreadable forecast cache');
  }
  unlinkSync(path);
  return null;
}

export function saveForecastCache(path: string, cache: Omit<ForecastCacheFile, 'schema'>): void {
  writeFileAtomic(path, JSON.stringify({ schema: FORECAST_CACHE_SCHEMA, ...cache }));
}
