import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { silentLogger } from '../../server/src/core/logger';
import { latestVersion } from '../../server/src/store/migrations';
import { Store, tryOpenStore } from '../../server/src/store/store';
import { tempDbPaths } from './temp-db';

const tmp = tempDbPaths();
const logger = silentLogger();

describe('tryOpenStore', () => {
  it('opens a store with every repository', () => {
    const { store, error } = tryOpenStore(tmp.dbPath(), logger);
    expect(error).toBeNull();
    expect(store?.schemaVersion).toBe(latestVersion());
    expect(store?.controls.all()).toEqual({});
    store?.close();
  });

  it('reports, rather than throws, when the parent path is a regular file', () => {
    const blocker = path.join(tmp.dir(), 'not-a-dir');
    fs.writeFileSync(blocker, 'x');
    const result = tryOpenStore(path.join(blocker, 'raincheck.db'), logger);
    expect(result.store).toBeNull();
    expect(result.error).toMatch(/^cannot open database .*not-a-dir.*not a directory$/);
  });

  it('reports a path deeper below a regular file', () => {
    const blocker = path.join(tmp.dir(), 'file');
    fs.writeFileSync(blocker, 'x');
    const result = tryOpenStore(path.join(blocker, 'sub', 'raincheck.db'), logger);
    expect(result.store).toBeNull();
    expect(result.error).toMatch(/ENOTDIR/);
  });

  it('reports a file that is not a database', () => {
    const file = tmp.dbPath();
    fs.writeFileSync(file, 'this is not sqlite, just some text that is long enough to be read as a header');
    const result = tryOpenStore(file, logger);
    expect(result.store).toBeNull();
    expect(result.error).toMatch(/not a database/);
  });

  it('reports a database from a newer build', () => {
    const file = tmp.dbPath();
    const raw = new BetterSqlite3(file);
    raw.pragma(`user_version = ${latestVersion() + 5}`);
    raw.close();
    const result = tryOpenStore(file, logger);
    expect(result.store).toBeNull();
    expect(result.error).toMatch(/newer than this build supports/);
  });
});

describe('Store', () => {
  it('commits a cross-repository transaction all or nothing', () => {
    const store = Store.open(tmp.dbPath(), logger);
    expect(() =>
      store.transaction(() => {
        store.controls.set('pause_until_epoch', 5);
        store.tokens.create({ name: 'a', token_hash: 'h', created_epoch: 1 });
        throw new Error('abort');
      }),
    ).toThrow('abort');
    expect(store.controls.all()).toEqual({});
    expect(store.tokens.list()).toEqual([]);
    store.close();
    store.close();
  });
});
