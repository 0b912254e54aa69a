import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { humanLine, readyLine } from '../../server/src/core/human-log';
import { freePort } from '../helpers/process';

/**
 * What `npm run demo` shows a newcomer: at a terminal, one plain line with
 * the address to open (warnings and errors would follow as short lines); in
 * a pipe (Docker, the add-on log), JSON lines, with the listening address
 * once rather than once per interface. The terminal is a real pseudo-TTY
 * (util-linux `script`, in Debian's essential bsdutils).
 */

const LAUNCHER = path.join(__dirname, '..', '..', 'bin', 'raincheck');

async function runFor(
  ms: number,
  command: string,
  args: string[],
  env: Record<string, string>,
): Promise<string> {
  const child = spawn(command, args, {
    env: { ...process.env, RAINCHECK_MDNS: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const done = new Promise((resolve) => child.once('exit', resolve));
  await new Promise((resolve) => setTimeout(resolve, ms));
  child.kill('SIGTERM');
  await done;
  return out;
}

let dataDir: string;
beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'raincheck-console-'));
});
afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('the demo at a terminal', () => {
  it('prints one plain line with the address to open, and no JSON', async () => {
    const port = await freePort();
    const out = await runFor(5000, 'script', ['-qfec', LAUNCHER, '/dev/null'], {
      DEMO: '1',
      RAINCHECK_DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '0.0.0.0',
      LOG_LEVEL: '',
    });
    const lines = out.split(/\r?\n/).filter((l) => l.trim() !== '' && !/^Session terminated/.test(l));
    expect(lines).toEqual([
      `Raincheck is running (demo: synthetic weather, dry-run controller): open http://localhost:${port}/ in a browser. Ctrl+C stops it.`,
    ]);
  }, 30_000);
});

describe('in a pipe', () => {
  it('logs JSON lines, the listening address once', async () => {
    const port = await freePort();
    const out = await runFor(5000, LAUNCHER, [], {
      DEMO: '1',
      RAINCHECK_DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '0.0.0.0',
      LOG_LEVEL: 'info',
    });
    const lines = out.split('\n').filter((l) => l !== '');
    for (const line of lines) expect(() => JSON.parse(line) as unknown).not.toThrow();
    const messages = lines.map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(messages.filter((m) => m === 'raincheck listening')).toHaveLength(1);
    expect(messages.filter((m) => m.startsWith('Server listening'))).toEqual([]);
  }, 30_000);
});

describe('line formats', () => {
  it('turns a pino record into a short line with its details', () => {
    const record = JSON.stringify({
      level: 40,
      time: '2026-11-25T12:04:05.123Z',
      service: 'raincheck',
      module: 'weather',
      source: 'demo',
      err: { message: 'timed out' },
      msg: 'source offline',
    });
    expect(humanLine(record)).toBe('12:04:05 warn  weather: source offline (source=demo, err=timed out)\n');
    expect(humanLine('not json')).toBe('not json\n');
  });

  it('names the address to open', () => {
    expect(readyLine({ host: '0.0.0.0', demo: false, dryRun: false }, 8099)).toBe(
      'Raincheck is running: open http://localhost:8099/ in a browser. Ctrl+C stops it.\n',
    );
    expect(readyLine({ host: '192.168.1.5', demo: false, dryRun: true }, 80)).toContain(
      'Raincheck is running (dry run: no valve is switched): open http://192.168.1.5:80/',
    );
  });
});
