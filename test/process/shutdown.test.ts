import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { freePort, LAUNCHER, serviceEnv, waitHealthy } from '../helpers/process';

/**
 * The built service as Home Assistant runs it: started through bin/raincheck,
 * stopped with SIGTERM. It must end open SSE streams, close the database
 * (checkpointing the WAL) and exit 0. `npm test` builds dist/ first.
 */

describe('bin/raincheck and SIGTERM', () => {
  it('ends SSE streams, closes the database and exits 0', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'raincheck-proc-'));
    const port = await freePort();
    const env = serviceEnv(dataDir, port, { DEMO: '1' });
    const child = spawn(LAUNCHER, [], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      await waitHealthy(port, child);
      const streamEnded = new Promise<string>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port, path: '/api/v1/stream' }, (res) => {
            let text = '';
            res.on('data', (chunk: Buffer) => (text += chunk.toString()));
            res.on('end', () => resolve(text));
            res.on('error', reject);
          })
          .on('error', reject);
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      const [code, text] = await Promise.all([exited, streamEnded]);
      expect(code).toBe(0);
      expect(text).toContain('event: snapshot');
      // The WAL was checkpointed into the database on close.
      const wal = path.join(dataDir, 'raincheck.db-wal');
      expect(fs.existsSync(wal) ? fs.statSync(wal).size : 0).toBe(0);
      expect(fs.existsSync(path.join(dataDir, 'config.toml'))).toBe(true);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
