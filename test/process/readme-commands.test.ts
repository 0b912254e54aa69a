import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The README's two commands stay true: `.ci/run` runs exactly its test
 * command, `npm test` first finds (or installs) every program of
 * scripts/test-tools.json, and a missing one is reported with the apt-get
 * line that installs it instead of a test failing later.
 */

const ROOT = path.join(__dirname, '..', '..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

function readmeCommand(what: RegExp): string | undefined {
  const row = read('README.md')
    .split('\n')
    .find((line) => line.startsWith('|') && what.test(line));
  return /`([^`]+)`\s*\|\s*$/.exec(row ?? '')?.[1];
}

describe('the README commands', () => {
  it('.ci/run runs exactly the README test command', () => {
    const command = readmeCommand(/whole test suite/);
    expect(command).toBe('npm ci && npm test');
    const lines = read('.ci/run')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#') && !l.startsWith('set ') && !l.startsWith('cd '));
    expect(lines).toEqual([command]);
  });

  it('npm test checks the test tools before anything else', () => {
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.pretest).toBe('node scripts/ensure-test-tools.mjs');
  });

  it('lists each tool once with the Debian package that provides it', () => {
    const { tools } = JSON.parse(read('scripts/test-tools.json')) as {
      tools: { command: string; package: string; why: string }[];
    };
    const commands = tools.map((t) => t.command);
    expect(new Set(commands).size).toBe(commands.length);
    expect(commands).toEqual(expect.arrayContaining(['chromium', 'mosquitto', 'jq', 'curl']));
    for (const tool of tools) expect(tool.package).toMatch(/^[a-z0-9][a-z0-9+.-]+$/);
  });
});

describe('scripts/ensure-test-tools.mjs', () => {
  it('passes when every tool is found', () => {
    const run = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'ensure-test-tools.mjs')], {
      encoding: 'utf8',
      env: { ...process.env, RAINCHECK_SKIP_TOOL_INSTALL: '1' },
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it('names what is missing and the apt-get line that installs it', () => {
    // A PATH holding only node: jq, curl and the rest are missing (Chromium too, pointed elsewhere).
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'raincheck-tools-'));
    fs.symlinkSync(process.execPath, path.join(bin, 'node'));
    try {
      const run = spawnSync(path.join(bin, 'node'), [path.join(ROOT, 'scripts', 'ensure-test-tools.mjs')], {
        encoding: 'utf8',
        env: { PATH: bin, RAINCHECK_SKIP_TOOL_INSTALL: '1', CHROMIUM_PATH: path.join(bin, 'no-chromium') },
      });
      expect(run.status).toBe(1);
      expect(run.stdout).toMatch(/jq is missing/);
      expect(run.stdout).toMatch(/chromium is missing/);
      expect(run.stderr).toMatch(/sudo apt-get install -y --no-install-recommends .*\bjq\b.*\bcurl\b/);
      expect(run.stderr).toMatch(/chromium/);
    } finally {
      fs.rmSync(bin, { recursive: true, force: true });
    }
  });
});
