import type { Statement, Transaction } from 'better-sqlite3';
import type { Database } from './database';
import { fromJson, toJson, type JsonValue } from './json';

/**
 * The daily weather record's rows (weather-record/ explains the record):
 * one local day each, every field with its provenance. Upserted, never
 * appended: a revised day replaces its row in one transaction.
 */

export const RECORD_FIELDS = [
  'tmax_c',
  'tmin_c',
  'rh_max_pct',
  'rh_min_pct',
  'rh_mean_pct',
  'wind_2m_ms',
  'rs_mj_m2',
  'rain_mm',
  'et0_native_mm',
] as const;

export type RecordField = (typeof RECORD_FIELDS)[number];

/** `station`: a measuring source of the config; `model_archive`: the forecast provider's past day. */
export type FieldOrigin = 'station' | 'model_archive' | 'none';

export interface FieldProvenance {
  source: FieldOrigin;
  /** The config source id (stations) or the provider (model); null for none. */
  source_id: string | null;
  /** Share of the day's hours with readings behind the value, 0..1 (model daily values: 1). */
  coverage: number;
}

export type RecordValues = Record<RecordField, number | null>;

export interface DailyWeather extends RecordValues {
  date_local: string;
  sources: Record<RecordField, FieldProvenance>;
}

type Row = RecordValues & { date_local: string; sources: string; updated_epoch: number };

export class WeatherDaysRepository {
  private readonly upsertStmt: Statement<[Row]>;
  private readonly rangeStmt: Statement<[{ from: string; to: string }], Row>;
  private readonly firstStmt: Statement<[], string>;
  private readonly pruneStmt: Statement<[string]>;
  private readonly upsertMany: Transaction<(days: readonly DailyWeather[], epoch: number) => void>;

  constructor(db: Database) {
    const columns = ['date_local', ...RECORD_FIELDS, 'sources', 'updated_epoch'];
    this.upsertStmt = db.prepare<[Row]>(
      `INSERT INTO weather_days (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')}) ` +
        `ON CONFLICT (date_local) DO UPDATE SET ${columns
          .slice(1)
          .map((c) => `${c} = excluded.${c}`)
          .join(', ')}`,
    );
    this.rangeStmt = db.prepare<[{ from: string; to: string }], Row>(
      'SELECT * FROM weather_days WHERE date_local >= @from AND date_local <= @to ORDER BY date_local',
    );
    this.firstStmt = db.prepare<[], string>('SELECT MIN(date_local) FROM weather_days').pluck();
    this.pruneStmt = db.prepare<[string]>('DELETE FROM weather_days WHERE date_local < ?');
    this.upsertMany = db.transaction((days: readonly DailyWeather[], epoch: number) => {
      for (const day of days) this.upsertStmt.run(toRow(day, epoch));
    });
  }

  /** Writes the days atomically: all or none. */
  upsert(days: readonly DailyWeather[], epoch: number): void {
    if (days.length > 0) this.upsertMany(days, epoch);
  }

  /** Days from `from` to `to` inclusive (YYYY-MM-DD), oldest first. */
  range(from: string, to: string): DailyWeather[] {
    return this.rangeStmt.all({ from, to }).map(fromRow);
  }

  /** The oldest recorded day, or null when the record is empty. */
  firstDate(): string | null {
    return this.firstStmt.get() ?? null;
  }

  pruneBefore(date: string): number {
    return this.pruneStmt.run(date).changes;
  }
}

function toRow(day: DailyWeather, epoch: number): Row {
  const values = Object.fromEntries(RECORD_FIELDS.map((f) => [f, finiteOrNull(day[f])])) as RecordValues;
  return {
    date_local: day.date_local,
    ...values,
    sources: toJson(day.sources as unknown as JsonValue),
    updated_epoch: epoch,
  };
}

function fromRow(row: Row): DailyWeather {
  const values = Object.fromEntries(RECORD_FIELDS.map((f) => [f, row[f]])) as RecordValues;
  return {
    date_local: row.date_local,
    ...values,
    sources: fromJson(row.sources) as unknown as DailyWeather['sources'],
  };
}

function finiteOrNull(x: number | null): number | null {
  return typeof x === 'number' && Number.isFinite(x) ? x : null;
}
