import type { Statement } from 'better-sqlite3';
import type { Database } from './database';

export interface Announcement {
  key: string;
  first_epoch: number;
  last_epoch: number;
}

/**
 * What the service has already told the owner about, by key (`anomaly:<id>`,
 * `tuning.digest`), so an announcement goes out once while its cause
 * persists, also across restarts.
 */
export class AnnouncementsRepository {
  private readonly getStmt: Statement<[string], Announcement>;
  private readonly upsertStmt: Statement<[{ key: string; epoch: number }]>;
  private readonly prefixStmt: Statement<[{ prefix: string }], Announcement>;
  private readonly removeStmt: Statement<[string]>;

  constructor(db: Database) {
    this.getStmt = db.prepare<[string], Announcement>(
      'SELECT key, first_epoch, last_epoch FROM announcements WHERE key = ?',
    );
    this.upsertStmt = db.prepare<[{ key: string; epoch: number }]>(
      'INSERT INTO announcements (key, first_epoch, last_epoch) VALUES (@key, @epoch, @epoch) ' +
        'ON CONFLICT (key) DO UPDATE SET last_epoch = excluded.last_epoch',
    );
    this.prefixStmt = db.prepare<[{ prefix: string }], Announcement>(
      'SELECT key, first_epoch, last_epoch FROM announcements WHERE substr(key, 1, length(@prefix)) = @prefix ORDER BY key',
    );
    this.removeStmt = db.prepare<[string]>('DELETE FROM announcements WHERE key = ?');
  }

  get(key: string): Announcement | null {
    return this.getStmt.get(key) ?? null;
  }

  /** Records the key as announced now (keeps the first time it was). */
  touch(key: string, epoch: number): void {
    this.upsertStmt.run({ key, epoch });
  }

  /** Every key that starts with `prefix`. */
  withPrefix(prefix: string): Announcement[] {
    return this.prefixStmt.all({ prefix });
  }

  remove(key: string): boolean {
    return this.removeStmt.run(key).changes > 0;
  }
}
