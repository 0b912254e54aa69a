import type { Statement, Transaction } from 'better-sqlite3';
import type { Database } from './database';
import { fromJson, toJson, type JsonValue } from './json';

/**
 * Key names for the controls the service persists, shared so the engine and
 * the HTTP layer agree on them. Values are JSON; callers validate on read.
 */
export const CONTROL_KEYS = {
  pauseUntilEpoch: 'pause_until_epoch',
  overrideTomorrow: 'override_tomorrow',
  globalOverride: 'global_override',
  zoneOverride: (slug: string) => `zone_override:${slug}`,
  threshold: (key: string) => `threshold:${key}`,
  toggle: (key: string) => `toggle:${key}`,
} as const;

interface ControlRow {
  key: string;
  value: string;
}

/**
 * The service's own persisted controls. Each write is its own committed
 * transaction, so a control set just before a crash is there after restart.
 */
export class ControlsRepository {
  private readonly getStmt: Statement<[string], string>;
  private readonly setStmt: Statement<[ControlRow]>;
  private readonly deleteStmt: Statement<[string]>;
  private readonly allStmt: Statement<[], ControlRow>;
  private readonly setBatch: Transaction<(entries: Record<string, JsonValue>) => void>;

  constructor(db: Database) {
    this.getStmt = db.prepare<[string], string>('SELECT value FROM controls WHERE key = ?').pluck();
    this.setStmt = db.prepare<[ControlRow]>(
      'INSERT INTO controls (key, value) VALUES (@key, @value) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    );
    this.deleteStmt = db.prepare<[string]>('DELETE FROM controls WHERE key = ?');
    this.allStmt = db.prepare<[], ControlRow>('SELECT key, value FROM controls ORDER BY key');
    this.setBatch = db.transaction((entries: Record<string, JsonValue>) => {
      for (const [key, value] of Object.entries(entries)) this.set(key, value);
    });
  }

  /** undefined when the key was never set; a stored JSON null comes back as null. */
  get(key: string): JsonValue | undefined {
    const text = this.getStmt.get(key);
    return text === undefined ? undefined : fromJson(text);
  }

  set(key: string, value: JsonValue): void {
    this.setStmt.run({ key, value: toJson(value) });
  }

  /** Writes several controls atomically: all or none. */
  setMany(entries: Record<string, JsonValue>): void {
    this.setBatch(entries);
  }

  /** Returns false when the key was not set. */
  delete(key: string): boolean {
    return this.deleteStmt.run(key).changes > 0;
  }

  all(): Record<string, JsonValue> {
    const out: Record<string, JsonValue> = {};
    for (const row of this.allStmt.all()) out[row.key] = fromJson(row.value);
    return out;
  }
}
