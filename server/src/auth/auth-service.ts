import { epochSeconds, type Clock } from '../core/clock';
import type { EventBus } from '../core/bus';
import type { Logger } from '../core/logger';
import type { ApiToken } from '../store/tokens';
import type { Store } from '../store/store';
import { decoyHash, hashPassword, passwordProblem, verifyPassword } from './passwords';
import { hashSecret, newSecret } from './secrets';

/**
 * The owner account, login sessions and API tokens (spec 4.9, 5.2, 5.9,
 * 5.10), over the persistence database. Secrets are shown once and stored
 * as hashes. Credential look-ups are cached by hash (every authenticated
 * request makes one): a revoked token or a logged-out session leaves the
 * cache at once, an expired session is re-checked against its expiry.
 */

export type Identity =
  | { kind: 'session'; account_id: number; username: string; expires_epoch: number; token_hash: string }
  | { kind: 'token'; token_id: number; name: string };

export class AuthError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'AuthError';
  }
}

export interface AuthServiceDeps {
  store: Store | null;
  clock: Clock;
  logger: Logger;
  sessionTtlDays: () => number;
  /** Told when a credential stops being valid (`auth.revoked`): open streams it opened are ended. */
  bus?: EventBus;
}

const USERNAME = /^[A-Za-z0-9._@-]{1,64}$/;
/** How often a token's `last_used_epoch` is written (not on every request). */
const LAST_USED_RESOLUTION_S = 60;
const CACHE_LIMIT = 1000;

export class AuthService {
  private readonly log: Logger;
  private readonly tokenCache = new Map<string, { id: number; name: string; lastWritten: number } | null>();
  private readonly sessionCache = new Map<string, Extract<Identity, { kind: 'session' }>>();
  private complete: boolean | null = null;

  constructor(private readonly deps: AuthServiceDeps) {
    this.log = deps.logger.child({ module: 'auth' });
  }

  get available(): boolean {
    return this.deps.store !== null;
  }

  /**
   * An owner account exists. Read on every request, so it is counted once at
   * boot and set by setup() (accounts are created nowhere else and never deleted).
   */
  setupComplete(): boolean {
    this.complete ??= (this.deps.store?.accounts.count() ?? 0) > 0;
    return this.complete;
  }

  /** Creates the one owner account: 409 once one exists, 400 for a weak password. */
  async setup(username: string, password: string): Promise<{ id: number; username: string }> {
    const store = this.requireStore();
    if (!USERNAME.test(username)) {
      throw new AuthError(400, 'username_invalid', 'the username takes 1-64 letters, digits or . _ @ -');
    }
    const problem = passwordProblem(username, password);
    if (problem) throw new AuthError(400, 'password_too_weak', problem);
    if (store.accounts.count() > 0)
      throw new AuthError(409, 'account_exists', 'an owner account already exists');
    const account = store.accounts.createOwner({
      username,
      password_hash: await hashPassword(password),
      created_epoch: this.now(),
    });
    if (!account) throw new AuthError(409, 'account_exists', 'an owner account already exists');
    this.complete = true;
    this.log.info({ account: account.id }, 'owner account created');
    return { id: account.id, username: account.username };
  }

  /**
   * Takes back an owner account whose setup could not finish (the config switch
   * to auth required or the first session failed to save): setup either happens
   * whole or not at all. Best effort on a full disk; the account count is read again.
   */
  undoSetup(accountId: number): void {
    const store = this.deps.store;
    this.complete = null;
    if (!store) return;
    try {
      store.transaction(() => {
        store.sessions.deleteForAccount(accountId);
        store.accounts.deleteById(accountId);
      });
      this.sessionCache.clear();
      this.log.warn({ account: accountId }, 'owner setup did not finish: the account was removed again');
    } catch (err) {
      this.log.error(
        { err, account: accountId },
        'owner setup did not finish and the account could not be removed',
      );
    }
  }

  /** A new session for the right password; the same refusal for a wrong user or password. */
  async login(username: string, password: string): Promise<{ secret: string; identity: Identity }> {
    const store = this.requireStore();
    const account = store.accounts.findByUsername(username);
    const ok = await verifyPassword(password, account?.password_hash ?? (await decoyHash()));
    if (!account || !ok) throw new AuthError(401, 'invalid_credentials', 'wrong username or password');
    const secret = newSecret('rcs');
    const now = this.now();
    const expires = now + this.deps.sessionTtlDays() * 86400;
    store.sessions.create({
      token_hash: hashSecret(secret),
      account_id: account.id,
      created_epoch: now,
      expires_epoch: expires,
    });
    store.sessions.pruneExpired(now);
    return {
      secret,
      identity: {
        kind: 'session',
        account_id: account.id,
        username: account.username,
        expires_epoch: expires,
        token_hash: hashSecret(secret),
      },
    };
  }

  logout(identity: Identity): void {
    if (identity.kind !== 'session') return;
    this.sessionCache.delete(identity.token_hash);
    this.deps.store?.sessions.delete(identity.token_hash);
    this.deps.bus?.emit('auth.revoked', { kind: 'session' });
  }

  /** The identity a session cookie names, or null (unknown, expired, no database). */
  session(secret: string): Extract<Identity, { kind: 'session' }> | null {
    return this.sessionByHash(hashSecret(secret));
  }

  /**
   * The credential behind an identity still stands: the session exists and has
   * not expired, the token has not been revoked. Streams ask this (sse.ts).
   */
  stillValid(identity: Identity): boolean {
    if (identity.kind === 'session') return this.sessionByHash(identity.token_hash) !== null;
    return this.deps.store?.tokens.exists(identity.token_id) ?? false;
  }

  private sessionByHash(hash: string): Extract<Identity, { kind: 'session' }> | null {
    const now = this.now();
    const cached = this.sessionCache.get(hash);
    if (cached) {
      if (cached.expires_epoch > now) return cached;
      this.sessionCache.delete(hash);
      return null;
    }
    const store = this.deps.store;
    const row = store?.sessions.findValid(hash, now);
    const account = row ? store?.accounts.findById(row.account_id) : null;
    if (!row || !account) return null;
    const identity = {
      kind: 'session' as const,
      account_id: account.id,
      username: account.username,
      expires_epoch: row.expires_epoch,
      token_hash: hash,
    };
    this.remember(this.sessionCache, hash, identity);
    return identity;
  }

  /** The API token a bearer secret names, or null. */
  token(secret: string): Extract<Identity, { kind: 'token' }> | null {
    const hash = hashSecret(secret);
    let entry = this.tokenCache.get(hash);
    if (entry === undefined) {
      const row = this.deps.store?.tokens.findByHash(hash) ?? null;
      entry = row ? { id: row.id, name: row.name, lastWritten: 0 } : null;
      // Misses are not cached: a flood of random tokens must not evict real ones.
      if (entry) this.remember(this.tokenCache, hash, entry);
    }
    if (!entry) return null;
    const now = this.now();
    if (now - entry.lastWritten >= LAST_USED_RESOLUTION_S) {
      entry.lastWritten = now;
      this.deps.store?.tokens.markUsed(entry.id, now);
    }
    return { kind: 'token', token_id: entry.id, name: entry.name };
  }

  listTokens(): ApiToken[] {
    return this.requireStore().tokens.list();
  }

  /** Returns the plaintext once; only its hash is kept. */
  createToken(name: string): { token: string; record: ApiToken } {
    const trimmed = name.trim();
    if (trimmed.length === 0 || trimmed.length > 64) {
      throw new AuthError(400, 'token_name_invalid', 'a token needs a name of 1-64 characters');
    }
    const token = newSecret('rct');
    const record = this.requireStore().tokens.create({
      name: trimmed,
      token_hash: hashSecret(token),
      created_epoch: this.now(),
    });
    this.log.info({ token_id: record.id }, 'API token created');
    return { token, record };
  }

  revokeToken(id: number): boolean {
    const revoked = this.requireStore().tokens.revoke(id);
    // The cache is keyed by hash, which the store does not hand out: drop the id's entries.
    for (const [hash, entry] of this.tokenCache) if (entry?.id === id) this.tokenCache.delete(hash);
    if (revoked) {
      this.log.info({ token_id: id }, 'API token revoked');
      this.deps.bus?.emit('auth.revoked', { kind: 'token' });
    }
    return revoked;
  }

  private remember<V>(cache: Map<string, V>, key: string, value: V): void {
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
    cache.set(key, value);
  }

  private requireStore(): Store {
    const store = this.deps.store;
    if (!store)
      throw new AuthError(
        503,
        'database_unavailable',
        'accounts need the persistence database, which is unavailable',
      );
    return store;
  }

  private now(): number {
    return epochSeconds(this.deps.clock);
  }
}
