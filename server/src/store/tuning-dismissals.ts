import type { Statement } from 'better-sqlite3';
import type { Database } from './database';

/** Spec 3 dismissal kinds: `snooze` silences one recommendation id for a while, `permanent` a zone's field. */
export type DismissalKind = 'snooze' | 'permanent';

export interface TuningDismissal {
  zone: string;
  field: string;
  kind: DismissalKind;
  /** The recommendation the owner dismissed (a snooze silences exactly this id). */
  recommendation_id: string;
  created_epoch: number;
  /** When a snooze ends; null for permanent. */
  expires_epoch: number | null;
}

/**
 * The owner's silenced tuning suggestions. One snooze and one permanent entry
 * at most per zone and field: dismissing again replaces the earlier one.
 */
export class TuningDismissalsRepository {
  private readonly upsertStmt: Statement<[TuningDismissal]>;
  private readonly allStmt: Statement<[], TuningDismissal>;
  private readonly removeStmt: Statement<[string, string]>;

  constructor(db: Database) {
    this.upsertStmt = db.prepare<[TuningDismissal]>(
      'INSERT INTO tuning_dismissals (zone, field, kind, recommendation_id, created_epoch, expires_epoch) ' +
        'VALUES (@zone, @field, @kind, @recommendation_id, @created_epoch, @expires_epoch) ' +
        'ON CONFLICT (zone, field, kind) DO UPDATE SET recommendation_id = excluded.recommendation_id, ' +
        'created_epoch = excluded.created_epoch, expires_epoch = excluded.expires_epoch',
    );
    this.allStmt = db.prepare<[], TuningDismissal>(
      'SELECT zone, field, kind, recommendation_id, created_epoch, expires_epoch FROM tuning_dismissals ' +
        'ORDER BY zone, field, kind',
    );
    this.removeStmt = db.prepare<[string, string]>(
      'DELETE FROM tuning_dismissals WHERE zone = ? AND field = ?',
    );
  }

  put(dismissal: TuningDismissal): void {
    this.upsertStmt.run(dismissal);
  }

  /** Every stored dismissal, expired snoozes included (the reader decides what is in force). */
  all(): TuningDismissal[] {
    return this.allStmt.all();
  }

  /** Removes both kinds for the zone's field; returns how many rows went. */
  remove(zone: string, field: string): number {
    return this.removeStmt.run(zone, field).changes;
  }
}
