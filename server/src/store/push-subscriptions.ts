import type { Statement } from 'better-sqlite3';
import type { Database } from './database';

/** A browser PushSubscription, flattened; the endpoint identifies the device. */
export interface PushSubscription {
  endpoint: string;
  p256dh: string;
  auth: string;
  created_epoch: number;
}

export class PushSubscriptionsRepository {
  private readonly upsertStmt: Statement<[PushSubscription]>;
  private readonly removeStmt: Statement<[string]>;
  private readonly listStmt: Statement<[], PushSubscription>;

  constructor(db: Database) {
    // A browser re-subscribing may rotate its keys; the first subscription time is kept.
    this.upsertStmt = db.prepare<[PushSubscription]>(
      'INSERT INTO push_subscriptions (endpoint, p256dh, auth, created_epoch) ' +
        'VALUES (@endpoint, @p256dh, @auth, @created_epoch) ' +
        'ON CONFLICT (endpoint) DO UPDATE SET p256dh = excluded.p256dh, auth = excluded.auth',
    );
    this.removeStmt = db.prepare<[string]>('DELETE FROM push_subscriptions WHERE endpoint = ?');
    this.listStmt = db.prepare<[], PushSubscription>(
      'SELECT endpoint, p256dh, auth, created_epoch FROM push_subscriptions ORDER BY created_epoch, endpoint',
    );
  }

  /** Idempotent: subscribing the same endpoint again updates its keys. */
  upsert(subscription: PushSubscription): void {
    this.upsertStmt.run(subscription);
  }

  /** Returns how many subscriptions were removed (0 or 1), the `removed` of /push/unsubscribe. */
  remove(endpoint: string): number {
    return this.removeStmt.run(endpoint).changes;
  }

  list(): PushSubscription[] {
    return this.listStmt.all();
  }
}
