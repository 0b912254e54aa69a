import type { Statement } from 'better-sqlite3';
import type { Database } from './database';

export type DeliveryStatus = 'sent' | 'failed' | 'dropped';

/** One notice's final outcome on one channel (secrets never reach `detail`: the channels scrub it). */
export interface DeliveryRecord {
  epoch: number;
  channel: string;
  event: string;
  tag: string;
  title: string;
  status: DeliveryStatus;
  attempts: number;
  detail: string | null;
}

/** Rows kept per channel: enough for the settings page and diagnostics, never a growing table. */
export const DELIVERIES_KEPT_PER_CHANNEL = 100;

export class NotificationDeliveriesRepository {
  private readonly insertStmt: Statement<[DeliveryRecord]>;
  private readonly pruneStmt: Statement<[string, string, number]>;
  private readonly recentStmt: Statement<[number], DeliveryRecord>;
  private readonly lastStmt: Statement<[string, string], DeliveryRecord>;

  constructor(db: Database) {
    this.insertStmt = db.prepare<[DeliveryRecord]>(
      'INSERT INTO notification_deliveries (epoch, channel, event, tag, title, status, attempts, detail) ' +
        'VALUES (@epoch, @channel, @event, @tag, @title, @status, @attempts, @detail)',
    );
    this.pruneStmt = db.prepare<[string, string, number]>(
      'DELETE FROM notification_deliveries WHERE channel = ? AND id NOT IN ' +
        '(SELECT id FROM notification_deliveries WHERE channel = ? ORDER BY id DESC LIMIT ?)',
    );
    this.recentStmt = db.prepare<[number], DeliveryRecord>(
      'SELECT epoch, channel, event, tag, title, status, attempts, detail ' +
        'FROM notification_deliveries ORDER BY id DESC LIMIT ?',
    );
    this.lastStmt = db.prepare<[string, string], DeliveryRecord>(
      'SELECT epoch, channel, event, tag, title, status, attempts, detail FROM notification_deliveries ' +
        'WHERE channel = ? AND status = ? ORDER BY id DESC LIMIT 1',
    );
  }

  /** Appends and trims the channel to its newest rows. */
  record(entry: DeliveryRecord): void {
    this.insertStmt.run(entry);
    this.pruneStmt.run(entry.channel, entry.channel, DELIVERIES_KEPT_PER_CHANNEL);
  }

  /** Newest first, all channels. */
  recent(limit: number): DeliveryRecord[] {
    return this.recentStmt.all(limit);
  }

  /** The channel's newest row of that status, or null. */
  last(channel: string, status: DeliveryStatus): DeliveryRecord | null {
    return this.lastStmt.get(channel, status) ?? null;
  }
}
