import type { Statement, Transaction } from 'better-sqlite3';
import type { Database } from './database';

/** One measured sensor value. There is no null form: an unmeasured field is simply not a row. */
export interface Reading {
  epoch: number;
  source_id: string;
  field: string;
  value: number;
}

/** What callers may hand in: a source's sample where some fields were not measured. */
export interface ReadingInput extends Omit<Reading, 'value'> {
  value: number | null | undefined;
}

interface RecentParams {
  since: number;
  field: string | null;
}

export class ReadingsRepository {
  private readonly insertStmt: Statement<[Reading]>;
  private readonly recentStmt: Statement<[RecentParams], Reading>;
  private readonly pruneStmt: Statement<[number]>;
  private readonly insertBatch: Transaction<(rows: readonly ReadingInput[]) => number>;

  constructor(db: Database) {
    // A source re-sending the same sample (same epoch) overwrites rather than failing the whole batch.
    this.insertStmt = db.prepare<[Reading]>(
      'INSERT INTO readings (epoch, source_id, field, value) VALUES (@epoch, @source_id, @field, @value) ' +
        'ON CONFLICT (source_id, field, epoch) DO UPDATE SET value = excluded.value',
    );
    this.recentStmt = db.prepare<[RecentParams], Reading>(
      'SELECT epoch, source_id, field, value FROM readings WHERE epoch >= @since ' +
        'AND (@field IS NULL OR field = @field) ORDER BY epoch, source_id, field',
    );
    this.pruneStmt = db.prepare<[number]>('DELETE FROM readings WHERE epoch < ?');
    this.insertBatch = db.transaction((rows: readonly ReadingInput[]) => this.writeMeasured(rows));
  }

  /**
   * Writes every measured value of the batch in one transaction and returns how
   * many were written. Null, undefined and non-finite values are dropped: they
   * are missing evidence, and storing them would later read as a measurement.
   */
  insertMany(rows: readonly ReadingInput[]): number {
    return this.insertBatch(rows);
  }

  /** Readings from the last `hours` before `nowEpoch`, oldest first, optionally one field. */
  listRecent(nowEpoch: number, hours: number, field?: string): Reading[] {
    return this.recentStmt.all({ since: nowEpoch - hours * 3600, field: field ?? null });
  }

  /** Retention: removes readings older than `retentionS` before `nowEpoch`, returns how many. */
  pruneOlderThan(nowEpoch: number, retentionS: number): number {
    return this.pruneStmt.run(nowEpoch - retentionS).changes;
  }

  private writeMeasured(rows: readonly ReadingInput[]): number {
    let written = 0;
    for (const row of rows) {
      if (typeof row.value !== 'number' || !Number.isFinite(row.value)) continue;
      this.insertStmt.run({ epoch: row.epoch, source_id: row.source_id, field: row.field, value: row.value });
      written += 1;
    }
    return written;
  }
}
