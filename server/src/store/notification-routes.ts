import type { Statement, Transaction } from 'better-sqlite3';
import type { Database } from './database';

/** One owner choice: whether `event` goes to `channel`. Absent pairs follow the catalog's default. */
export interface NotificationRoute {
  event: string;
  channel: string;
  enabled: boolean;
}

interface RouteRow {
  event: string;
  channel: string;
  enabled: number;
}

/** The settings page's per-event, per-channel choices (notify/routing.ts reads them over the defaults). */
export class NotificationRoutesRepository {
  private readonly listStmt: Statement<[], RouteRow>;
  private readonly setStmt: Statement<[RouteRow]>;
  private readonly setBatch: Transaction<(routes: readonly NotificationRoute[]) => void>;

  constructor(db: Database) {
    this.listStmt = db.prepare<[], RouteRow>(
      'SELECT event, channel, enabled FROM notification_routes ORDER BY event, channel',
    );
    this.setStmt = db.prepare<[RouteRow]>(
      'INSERT INTO notification_routes (event, channel, enabled) VALUES (@event, @channel, @enabled) ' +
        'ON CONFLICT (event, channel) DO UPDATE SET enabled = excluded.enabled',
    );
    this.setBatch = db.transaction((routes: readonly NotificationRoute[]) => {
      for (const r of routes)
        this.setStmt.run({ event: r.event, channel: r.channel, enabled: r.enabled ? 1 : 0 });
    });
  }

  list(): NotificationRoute[] {
    return this.listStmt.all().map((r) => ({ event: r.event, channel: r.channel, enabled: r.enabled === 1 }));
  }

  /** All or none: one settings save is one transaction. */
  setMany(routes: readonly NotificationRoute[]): void {
    this.setBatch(routes);
  }
}
