import type { Statement } from 'better-sqlite3';
import type { Database } from './database';

/** The owner account. Usernames compare case-insensitively. */
export interface Account {
  id: number;
  username: string;
  password_hash: string;
  created_epoch: number;
}

export type NewAccount = Omit<Account, 'id'>;

/** A login session; only the hash of the cookie token is stored. */
export interface Session {
  token_hash: string;
  account_id: number;
  created_epoch: number;
  expires_epoch: number;
}

const ACCOUNT_COLUMNS = 'id, username, password_hash, created_epoch';
const SESSION_COLUMNS = 'token_hash, account_id, created_epoch, expires_epoch';

export class AccountsRepository {
  private readonly countStmt: Statement<[], number>;
  private readonly createOwnerStmt: Statement<[NewAccount], Account>;
  private readonly byUsernameStmt: Statement<[string], Account>;
  private readonly byIdStmt: Statement<[number], Account>;
  private readonly setPasswordStmt: Statement<[string, number]>;
  private readonly deleteStmt: Statement<[number]>;

  constructor(db: Database) {
    this.countStmt = db.prepare<[], number>('SELECT count(*) FROM accounts').pluck();
    // The NOT EXISTS guard makes "first account only" atomic, so two racing setups cannot both succeed.
    this.createOwnerStmt = db.prepare<[NewAccount], Account>(
      'INSERT INTO accounts (username, password_hash, created_epoch) ' +
        'SELECT @username, @password_hash, @created_epoch WHERE NOT EXISTS (SELECT 1 FROM accounts) ' +
        `RETURNING ${ACCOUNT_COLUMNS}`,
    );
    this.byUsernameStmt = db.prepare<[string], Account>(
      `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE username = ?`,
    );
    this.byIdStmt = db.prepare<[number], Account>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = ?`);
    this.setPasswordStmt = db.prepare<[string, number]>('UPDATE accounts SET password_hash = ? WHERE id = ?');
    this.deleteStmt = db.prepare<[number]>('DELETE FROM accounts WHERE id = ?');
  }

  count(): number {
    return this.countStmt.get() ?? 0;
  }

  /**
   * Creates the single owner account; null when one already exists (setup answers 409).
   * `all()` runs the statement to its end, where the commit happens: a commit that fails
   * (a full disk) throws here instead of handing back a row that was never stored.
   */
  createOwner(account: NewAccount): Account | null {
    return this.createOwnerStmt.all(account)[0] ?? null;
  }

  /** Only to take back a setup that could not finish (AuthService.undoSetup). */
  deleteById(id: number): boolean {
    return this.deleteStmt.run(id).changes > 0;
  }

  findByUsername(username: string): Account | null {
    return this.byUsernameStmt.get(username) ?? null;
  }

  findById(id: number): Account | null {
    return this.byIdStmt.get(id) ?? null;
  }

  /** Returns false when no account has that id. Callers also end the account's sessions. */
  updatePasswordHash(id: number, passwordHash: string): boolean {
    return this.setPasswordStmt.run(passwordHash, id).changes > 0;
  }
}

export class SessionsRepository {
  private readonly insertStmt: Statement<[Session]>;
  private readonly findValidStmt: Statement<[string, number], Session>;
  private readonly deleteStmt: Statement<[string]>;
  private readonly deleteForAccountStmt: Statement<[number]>;
  private readonly pruneStmt: Statement<[number]>;

  constructor(db: Database) {
    this.insertStmt = db.prepare<[Session]>(
      `INSERT INTO sessions (${SESSION_COLUMNS}) VALUES (@token_hash, @account_id, @created_epoch, @expires_epoch)`,
    );
    this.findValidStmt = db.prepare<[string, number], Session>(
      `SELECT ${SESSION_COLUMNS} FROM sessions WHERE token_hash = ? AND expires_epoch > ?`,
    );
    this.deleteStmt = db.prepare<[string]>('DELETE FROM sessions WHERE token_hash = ?');
    this.deleteForAccountStmt = db.prepare<[number]>('DELETE FROM sessions WHERE account_id = ?');
    this.pruneStmt = db.prepare<[number]>('DELETE FROM sessions WHERE expires_epoch <= ?');
  }

  create(session: Session): void {
    this.insertStmt.run(session);
  }

  /** The session for this token hash if it has not expired at `nowEpoch`. */
  findValid(tokenHash: string, nowEpoch: number): Session | null {
    return this.findValidStmt.get(tokenHash, nowEpoch) ?? null;
  }

  /** Logout. Returns false when the session did not exist. */
  delete(tokenHash: string): boolean {
    return this.deleteStmt.run(tokenHash).changes > 0;
  }

  /** Signs the account out everywhere, e.g. after a password change; returns how many ended. */
  deleteForAccount(accountId: number): number {
    return this.deleteForAccountStmt.run(accountId).changes;
  }

  /** Removes sessions expired at `nowEpoch`, returns how many. */
  pruneExpired(nowEpoch: number): number {
    return this.pruneStmt.run(nowEpoch).changes;
  }
}
