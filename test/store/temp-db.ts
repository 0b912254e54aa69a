import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { silentLogger } from '../../server/src/core/logger';
import { Store } from '../../server/src/store/store';

/** A fresh directory per test file, removed after it; returns a path for a database inside it. */
export function tempDbPaths(): { dir: () => string; dbPath: (name?: string) => string } {
  let dir = '';
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'raincheck-store-'));
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return { dir: () => dir, dbPath: (name = 'raincheck.db') => path.join(dir, name) };
}

/** A Store on a fresh file for each test, closed after it. */
export function tempStore(): { store: () => Store; reopen: () => Store; dbPath: () => string } {
  let store: Store | null = null;
  afterEach(() => {
    store?.close();
    store = null;
  });
  const paths = tempDbPaths();
  const open = (): Store => {
    store?.close();
    store = Store.open(paths.dbPath(), silentLogger());
    return store;
  };
  beforeEach(() => {
    open();
  });
  return { store: () => store as Store, reopen: open, dbPath: () => paths.dbPath() };
}
