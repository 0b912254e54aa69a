import Database from 'better-sqlite3';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { exited, spawnService } from '../helpers/process';

/**
 * The soil water ledger survives `kill -9` of the real process: after the
 * crash and a restart on the same data directory, the stored days are the
 * same (nothing lost, nothing counted twice), the database is intact, and
 * the morning's decision is the one made before the crash.
 */

function getJson(port: number, route: string): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: route }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      })
      .on('error', reject);
  });
}

async function ledgerRows(port: number): Promise<unknown[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await getJson(port, '/api/v1/irrigation/soil?zone=back_lawn&days=60');
    const rows = (res.body['rows'] as unknown[] | undefined) ?? [];
    if (res.status === 200 && rows.length === 60) return rows;
    if (Date.now() > deadline) throw new Error(`ledger not filled: ${res.status} ${rows.length} rows`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function todayDecision(port: number): Promise<unknown> {
  const res = await getJson(port, '/api/v1/irrigation/snapshot');
  const plan = (
    res.body['water_plan'] as { zones: { zone: string; reason_code: string; planned_seconds: number }[] }[]
  )[0];
  return plan?.zones.map((z) => [z.zone, z.reason_code, z.planned_seconds]);
}

let dataDir = '';
beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'raincheck-ledger-kill-'));
});
afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

it('kill -9 and restart: the same ledger days, an intact database, the same decision', async () => {
  const first = await spawnService(dataDir, { DEMO: '1' });
  const before = await ledgerRows(first.port);
  const decision = await todayDecision(first.port);
  first.child.kill('SIGKILL');
  expect(await exited(first.child)).toBeNull();

  const db = new Database(path.join(dataDir, 'raincheck.db'), { readonly: true });
  expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  expect(
    db.prepare("SELECT COUNT(*) FROM soil_ledger WHERE zone = 'back_lawn'").pluck().get(),
  ).toBeGreaterThanOrEqual(60);
  db.close();

  const second = await spawnService(dataDir, { DEMO: '1' });
  try {
    expect(await ledgerRows(second.port)).toEqual(before);
    expect(await todayDecision(second.port)).toEqual(decision);
  } finally {
    second.child.kill('SIGTERM');
    await exited(second.child);
  }
}, 90_000);
