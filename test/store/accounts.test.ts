import { tempStore } from './temp-db';

const t = tempStore();
const owner = { username: 'Owner', password_hash: 'scrypt$abc', created_epoch: 1_000 };

describe('AccountsRepository', () => {
  it('creates exactly one owner account', () => {
    const accounts = t.store().accounts;
    expect(accounts.count()).toBe(0);
    const created = accounts.createOwner(owner);
    expect(created).toEqual({ id: expect.any(Number), ...owner });
    expect(accounts.createOwner({ ...owner, username: 'second' })).toBeNull();
    expect(accounts.count()).toBe(1);
  });

  it('finds the owner by username case-insensitively and by id', () => {
    const accounts = t.store().accounts;
    const created = accounts.createOwner(owner);
    expect(accounts.findByUsername('owner')).toEqual(created);
    expect(accounts.findById(created?.id ?? -1)).toEqual(created);
    expect(accounts.findByUsername('nobody')).toBeNull();
  });

  it('updates the password hash', () => {
    const accounts = t.store().accounts;
    const created = accounts.createOwner(owner);
    expect(accounts.updatePasswordHash(created?.id ?? -1, 'scrypt$new')).toBe(true);
    expect(accounts.findByUsername('Owner')?.password_hash).toBe('scrypt$new');
    expect(accounts.updatePasswordHash(999, 'x')).toBe(false);
  });
});

describe('SessionsRepository', () => {
  function setup() {
    const account = t.store().accounts.createOwner(owner);
    if (!account) throw new Error('no account');
    return { sessions: t.store().sessions, accountId: account.id };
  }

  it('finds a session only while it is valid', () => {
    const { sessions, accountId } = setup();
    const session = { token_hash: 'h1', account_id: accountId, created_epoch: 100, expires_epoch: 200 };
    sessions.create(session);
    expect(sessions.findValid('h1', 199)).toEqual(session);
    expect(sessions.findValid('h1', 200)).toBeNull();
    expect(sessions.findValid('other', 150)).toBeNull();
  });

  it('deletes one session, all of an account, and prunes expired ones', () => {
    const { sessions, accountId } = setup();
    sessions.create({ token_hash: 'a', account_id: accountId, created_epoch: 0, expires_epoch: 100 });
    sessions.create({ token_hash: 'b', account_id: accountId, created_epoch: 0, expires_epoch: 300 });
    sessions.create({ token_hash: 'c', account_id: accountId, created_epoch: 0, expires_epoch: 300 });
    expect(sessions.pruneExpired(100)).toBe(1);
    expect(sessions.delete('b')).toBe(true);
    expect(sessions.delete('b')).toBe(false);
    expect(sessions.deleteForAccount(accountId)).toBe(1);
    expect(sessions.findValid('c', 0)).toBeNull();
  });

  it('refuses a session for an account that does not exist', () => {
    const sessions = t.store().sessions;
    const orphan = { token_hash: 'x', account_id: 42, created_epoch: 0, expires_epoch: 1 };
    expect(() => sessions.create(orphan)).toThrow(/FOREIGN KEY/);
  });
});
