import fs from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { silentLogger } from '../../server/src/core/logger';
import { closeDatabase, openDatabase } from '../../server/src/store/database';
import {
  DatabaseTooNewError,
  latestVersion,
  MIGRATIONS,
  schemaVersion,
  type Migration,
} from '../../server/src/store/migrations';
import { tempDbPaths } from './temp-db';

const tmp = tempDbPaths();
const logger = silentLogger();

function tableNames(file: string): string[] {
  const db = new BetterSqlite3(file, { readonly: true });
  const names = db
    .prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    .pluck()
    .all();
  db.close();
  return names;
}

describe('openDatabase', () => {
  it('creates the parent directory and applies the connection pragmas', () => {
    const file = `${tmp.dir()}/nested/deeper/raincheck.db`;
    const db = openDatabase(file, logger);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    closeDatabase(db);
    expect(fs.existsSync(file)).toBe(true);
  });

  it('migrates a new file to the latest version and is a no-op on reopen', () => {
    const file = tmp.dbPath();
    closeDatabase(openDatabase(file, logger));
    const before = tableNames(file);
    const db = openDatabase(file, logger);
    expect(schemaVersion(db)).toBe(latestVersion());
    closeDatabase(db);
    expect(tableNames(file)).toEqual(before);
    expect(before).toEqual(
      expect.arrayContaining(['runs', 'daily_decisions', 'readings', 'forecast_archive', 'controls']),
    );
  });

  it('runs each migration exactly once across reopenings', () => {
    const calls: number[] = [];
    const counted = (version: number): Migration => ({
      version,
      name: `m${version}`,
      up: (db) => {
        calls.push(version);
        db.exec(`CREATE TABLE t${version} (x)`);
      },
    });
    const migrations = [counted(1), counted(2)];
    const file = tmp.dbPath();
    closeDatabase(openDatabase(file, logger, { migrations: migrations.slice(0, 1) }));
    closeDatabase(openDatabase(file, logger, { migrations }));
    closeDatabase(openDatabase(file, logger, { migrations }));
    expect(calls).toEqual([1, 2]);
  });

  it('rolls a failing migration back whole and keeps the previous version', () => {
    const file = tmp.dbPath();
    const migrations: Migration[] = [
      { version: 1, name: 'ok', up: (db) => db.exec('CREATE TABLE a (x)') },
      {
        version: 2,
        name: 'half done',
        up: (db) => {
          db.exec('CREATE TABLE b (x)');
          throw new Error('boom');
        },
      },
    ];
    expect(() => openDatabase(file, logger, { migrations })).toThrow('boom');
    const db = new BetterSqlite3(file);
    expect(schemaVersion(db)).toBe(1);
    db.close();
    expect(tableNames(file)).toEqual(['a']);
  });

  it('refuses a database written by a newer build, with a clear message, and leaves it untouched', () => {
    const file = tmp.dbPath();
    closeDatabase(openDatabase(file, logger));
    const future = latestVersion() + 1;
    const raw = new BetterSqlite3(file);
    raw.pragma(`user_version = ${future}`);
    raw.close();
    const bytes = fs.readFileSync(file);

    expect(() => openDatabase(file, logger)).toThrow(DatabaseTooNewError);
    expect(() => openDatabase(file, logger)).toThrow(
      `database schema version ${future} is newer than this build supports (${latestVersion()})`,
    );
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
  });

  it('rejects a migration list that is not numbered 1..n in order', () => {
    const bad: Migration[] = [{ version: 2, name: 'skips one', up: () => undefined }];
    expect(() => openDatabase(tmp.dbPath(), logger, { migrations: bad })).toThrow('expected 1');
  });

  it('numbers the shipped migrations 1..n', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_m, i) => i + 1));
  });
});

describe('closeDatabase', () => {
  it('folds the WAL into the main file and tolerates a second close', () => {
    const file = tmp.dbPath();
    const db = openDatabase(file, logger);
    db.exec("INSERT INTO controls (key, value) VALUES ('k', '1')");
    expect(fs.statSync(`${file}-wal`).size).toBeGreaterThan(0);
    closeDatabase(db);
    closeDatabase(db);
    const walSize = fs.existsSync(`${file}-wal`) ? fs.statSync(`${file}-wal`).size : 0;
    expect(walSize).toBe(0);
    const copy = new BetterSqlite3(file, { readonly: true });
    expect(copy.prepare('SELECT value FROM controls').pluck().get()).toBe('1');
    copy.close();
  });
});
