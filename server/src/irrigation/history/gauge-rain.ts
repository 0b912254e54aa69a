import type { Statement } from 'better-sqlite3';
import type { Database } from '../../store/database';
import { MERGED_SOURCE_ID } from '../../weather/weather-service';
import type { RainEvidence } from './accuracy';

/**
 * The rain the station measured on one local day, from the stored readings:
 * the largest merged `rain_in_today` of the day (the station's own running
 * daily total, as the engine's gaugeDailyRain reads it). One primary-key range
 * (source_id, field, epoch) per day, so a year costs 365 index searches rather
 * than reading every minute's row into JS. Readings are kept
 * `engine.history_retention_days` (default 90): older days have no evidence.
 */

/** A total is complete when the gauge still reported in the day's last hour. */
export const COMPLETE_WITHIN_S = 3600;

export interface DayRain {
  rain_observed_in: number | null;
  rain_evidence: RainEvidence;
}

interface DayRow {
  total_in: number | null;
  last_epoch: number | null;
}

export class GaugeDailyRain {
  private readonly stmt: Statement<[string, number, number], DayRow>;

  constructor(db: Database) {
    this.stmt = db.prepare<[string, number, number], DayRow>(
      'SELECT MAX(value) AS total_in, MAX(epoch) AS last_epoch FROM readings ' +
        "WHERE source_id = ? AND field = 'rain_in_today' AND epoch >= ? AND epoch < ?",
    );
  }

  /** The local day [startEpoch, endEpoch). */
  day(startEpoch: number, endEpoch: number): DayRain {
    const row = this.stmt.get(MERGED_SOURCE_ID, startEpoch, endEpoch);
    if (!row || row.total_in === null || row.last_epoch === null) {
      return { rain_observed_in: null, rain_evidence: 'none' };
    }
    const complete = row.last_epoch >= endEpoch - COMPLETE_WITHIN_S;
    return { rain_observed_in: row.total_in, rain_evidence: complete ? 'gauge' : 'gauge_partial' };
  }
}
