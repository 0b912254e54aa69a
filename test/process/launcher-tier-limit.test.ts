import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, LAUNCHER, serviceEnv, waitHealthy } from '../helpers/process';

/**
 * bin/raincheck boots node with V8's compilers above the interpreter off and
 * the service arms the busy check that turns them back on
 * (core/optimizer-when-busy.ts): the boot log says so, with the flag it saw.
 * `npm test` builds dist/ first.
 */

interface LogLine {
  module?: string;
  msg?: string;
  launched_with?: string;
}

describe('bin/raincheck and the optimising compilers', () => {
  it('starts node with --max-opt=0 and the service waits for load to turn them on', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'raincheck-tier-'));
    const port = await freePort();
    const env = serviceEnv(dataDir, port, { DEMO: '1', LOG_LEVEL: 'info' });
    const child = spawn(LAUNCHER, [], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.resume();
    try {
      await waitHealthy(port, child);
      const optimizerLines = () =>
        output
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line) as LogLine)
          .filter((line) => line.module === 'optimizer');
      const deadline = Date.now() + 5000;
      while (optimizerLines().length === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(optimizerLines()[0]).toMatchObject({
        msg: 'optimising compilers off until the service is busy',
        launched_with: '--max-opt=0',
      });
    } finally {
      child.kill('SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
