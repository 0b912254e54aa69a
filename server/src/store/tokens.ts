import type { Statement } from 'better-sqlite3';
import type { Database } from './database';

/** An API token as the store hands it out: the hash never leaves this module. */
export interface ApiToken {
  id: number;
  name: string;
  created_epoch: number;
  last_used_epoch: number | null;
}

export interface NewApiToken {
  name: string;
  /** Hash of the plaintext token; the plaintext is shown once by the caller and never stored. */
  token_hash: string;
  created_epoch: number;
}

const PUBLIC_COLUMNS = 'id, name, created_epoch, last_used_epoch';

export class TokensRepository {
  private readonly insertStmt: Statement<[NewApiToken], ApiToken>;
  private readonly listStmt: Statement<[], ApiToken>;
  private readonly byHashStmt: Statement<[string], ApiToken>;
  private readonly touchStmt: Statement<[number, number]>;
  private readonly revokeStmt: Statement<[number]>;
  private readonly existsStmt: Statement<[number], number>;

  constructor(db: Database) {
    this.insertStmt = db.prepare<[NewApiToken], ApiToken>(
      'INSERT INTO api_tokens (name, token_hash, created_epoch) VALUES (@name, @token_hash, @created_epoch) ' +
        `RETURNING ${PUBLIC_COLUMNS}`,
    );
    this.listStmt = db.prepare<[], ApiToken>(`SELECT ${PUBLIC_COLUMNS} FROM api_tokens ORDER BY id`);
    this.byHashStmt = db.prepare<[string], ApiToken>(
      `SELECT ${PUBLIC_COLUMNS} FROM api_tokens WHERE token_hash = ?`,
    );
    // Only moves forward, so a late write from an older request cannot rewind it.
    this.touchStmt = db.prepare<[number, number]>(
      'UPDATE api_tokens SET last_used_epoch = max(coalesce(last_used_epoch, 0), ?) WHERE id = ?',
    );
    this.revokeStmt = db.prepare<[number]>('DELETE FROM api_tokens WHERE id = ?');
    this.existsStmt = db.prepare<[number], number>('SELECT 1 FROM api_tokens WHERE id = ?').pluck();
  }

  /**
   * Ids are never reused (AUTOINCREMENT), so revoking a stale id cannot hit a newer token.
   * `all()`, not `get()`: with RETURNING the row comes back before the statement ends, and
   * the autocommit at its end (the write to disk) can still fail; `get()` resets the
   * statement there and never hears of it, `all()` runs it to the end and throws.
   */
  create(token: NewApiToken): ApiToken {
    const [row] = this.insertStmt.all(token);
    if (!row) throw new Error('the token insert returned no row');
    return row;
  }

  exists(id: number): boolean {
    return this.existsStmt.get(id) !== undefined;
  }

  list(): ApiToken[] {
    return this.listStmt.all();
  }

  findByHash(tokenHash: string): ApiToken | null {
    return this.byHashStmt.get(tokenHash) ?? null;
  }

  /** Records use at `epoch`; returns false when the token no longer exists. */
  markUsed(id: number, epoch: number): boolean {
    return this.touchStmt.run(epoch, id).changes > 0;
  }

  /** Returns false when no token has that id. */
  revoke(id: number): boolean {
    return this.revokeStmt.run(id).changes > 0;
  }
}
