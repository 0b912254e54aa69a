import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { exited, spawnService } from '../../helpers/process';

/**
 * A real Raincheck process started through bin/raincheck from the built
 * dist/ (`npm test` builds the server and the web app before jest runs).
 */

export interface Instance {
  url: string;
  port: number;
  dataDir: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export function assertWebAppBuilt(): void {
  const index = path.join(__dirname, '..', '..', '..', 'dist', 'web', 'index.html');
  if (!fs.existsSync(index))
    throw new Error('dist/web is missing: run `npm run build` first (npm test does)');
}

/** `prepare` writes into the data folder before the service first starts (recorded history, say). */
export async function startInstance(
  env: Record<string, string> = {},
  prepare?: (dataDir: string) => void,
): Promise<Instance> {
  assertWebAppBuilt();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'raincheck-e2e-'));
  prepare?.(dataDir);
  const { child, port } = await spawnService(dataDir, { LAT: '40.7', LON: '-74.0', ...env });
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    dataDir,
    child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited(child);
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The demo: synthetic weather, dry-run controller, six zones, auth disabled. */
export const startDemo = (
  env: Record<string, string> = {},
  prepare?: (dataDir: string) => void,
): Promise<Instance> => startInstance({ DEMO: '1', ...env }, prepare);
