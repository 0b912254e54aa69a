import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { silentLogger } from '../../server/src/core/logger';
import { closeDatabase, openDatabase } from '../../server/src/store/database';
import { RunsRepository, type StoredRun } from '../../server/src/store/runs';
import { tempDbPaths } from './temp-db';

/**
 * A real crash: a child process writes run records through the real
 * openDatabase and RunsRepository (transpiled on load with the installed
 * TypeScript) and reports each committed batch on stdout; the parent kills it
 * with SIGKILL mid-stream and checks that every reported commit survived.
 */

const tmp = tempDbPaths();
const STORE_DIR = path.resolve(__dirname, '../../server/src/store');
const LOGGER_TS = path.resolve(__dirname, '../../server/src/core/logger.ts');
const BATCH = 5;

const REGISTER_JS = `
const fs = require('node:fs');
const ts = require(${JSON.stringify(require.resolve('typescript'))});
require.extensions['.ts'] = (module, filename) => {
  const source = fs.readFileSync(filename, 'utf8');
  const options = { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true };
  module._compile(ts.transpileModule(source, { compilerOptions: options, fileName: filename }).outputText, filename);
};
`;

const CHILD_JS = `
const { openDatabase } = require(${JSON.stringify(`${STORE_DIR}/database.ts`)});
const { RunsRepository } = require(${JSON.stringify(`${STORE_DIR}/runs.ts`)});
const { silentLogger } = require(${JSON.stringify(LOGGER_TS)});
const [file, round] = process.argv.slice(2);
const db = openDatabase(file, silentLogger());
const runs = new RunsRepository(db);
const writeBatch = db.transaction((n) => {
  const ids = [];
  for (let i = 0; i < ${BATCH}; i += 1) {
    ids.push(runs.insert({
      session_id: 'r' + round + '-b' + n, zone: 'zone' + i, start_epoch: 1700000000 + n, duration_s: i,
      skip_reason: null, source: 'ha_refresher', status: 'completed', controller_id: null,
      applied_mm: i === 0 ? 0 : null, volume_gal: null, note: null, cycle_index: i, cycle_count: ${BATCH},
    }));
  }
  return ids;
});
process.stdout.write('ready\\n');
for (let n = 0; ; n += 1) {
  const ids = writeBatch(n);
  process.stdout.write('committed ' + n + ' ' + ids.join(',') + '\\n');
}
`;

interface Reported {
  batches: number;
  ids: number[];
}

/** Runs the writer until `killAfter` batches are reported, SIGKILLs it, returns every complete report line. */
function crashWriter(dir: string, file: string, round: number, killAfter: number): Promise<Reported> {
  const register = path.join(dir, 'register.js');
  const child = path.join(dir, 'writer.js');
  fs.writeFileSync(register, REGISTER_JS);
  fs.writeFileSync(child, CHILD_JS);
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['-r', register, child, file, String(round)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
    proc.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (countLines(out) >= killAfter) proc.kill('SIGKILL');
    });
    proc.on('error', reject);
    proc.on('exit', (code, signal) => {
      if (signal !== 'SIGKILL') return reject(new Error(`writer exited ${code}: ${err}`));
      resolve(parseReports(out));
    });
  });
}

function countLines(out: string): number {
  return out.split('\n').filter((l) => l.startsWith('committed ')).length;
}

/** Only newline-terminated lines count: a line cut by the kill was not fully reported. */
function parseReports(out: string): Reported {
  const lines = out.split('\n').slice(0, -1);
  const committed = lines.filter((l) => l.startsWith('committed '));
  const ids = committed.flatMap((l) => (l.split(' ')[2] ?? '').split(',').map(Number));
  return { batches: committed.length, ids };
}

function readBack(file: string): { rows: StoredRun[]; integrity: unknown } {
  const db = openDatabase(file, silentLogger());
  const rows = new RunsRepository(db).listWindow(0, Number.MAX_SAFE_INTEGER);
  const integrity = db.pragma('integrity_check', { simple: true });
  closeDatabase(db);
  return { rows, integrity };
}

describe('durability after kill -9', () => {
  it('keeps every commit the writer reported, whole batches only, across repeated crashes', async () => {
    const file = tmp.dbPath();
    closeDatabase(openDatabase(file, silentLogger()));
    const reportedIds: number[] = [];

    for (const [round, killAfter] of [200, 333, 517].entries()) {
      const reported = await crashWriter(tmp.dir(), file, round, killAfter);
      expect(reported.batches).toBeGreaterThanOrEqual(killAfter);
      reportedIds.push(...reported.ids);
      // The commits are in the WAL, not yet in the main file: recovery is what is being tested.
      expect(fs.statSync(`${file}-wal`).size).toBeGreaterThan(0);

      const { rows, integrity } = readBack(file);
      expect(integrity).toBe('ok');
      const present = new Set(rows.map((r) => r.id));
      expect(reportedIds.filter((id) => !present.has(id))).toEqual([]);
      const perBatch = new Map<string, number>();
      for (const r of rows) perBatch.set(r.session_id ?? '', (perBatch.get(r.session_id ?? '') ?? 0) + 1);
      expect([...perBatch.values()].every((n) => n === BATCH)).toBe(true);
      expect(rows.filter((r) => r.cycle_index === 0).every((r) => r.applied_mm === 0)).toBe(true);
    }
  }, 60_000);
});
