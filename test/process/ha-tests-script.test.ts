import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * scripts/ha-integration-tests.mjs (`npm run test:ha`, the last step of
 * `npm test`): without a CPython new enough for the pinned Home Assistant it
 * fails with a message that says what to install, rather than a pip error.
 */

const SCRIPT = path.join(__dirname, '..', '..', 'scripts', 'ha-integration-tests.mjs');

function fakePython(version: string): { dir: string; python: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'raincheck-fake-python-'));
  const python = path.join(dir, 'python3');
  fs.writeFileSync(python, `#!/bin/sh\necho ${version}\n`, { mode: 0o755 });
  return { dir, python };
}

describe('npm run test:ha', () => {
  it('names the Python it needs when only an older one is there', () => {
    const { dir, python } = fakePython('3 11 2');
    try {
      const run = spawnSync(process.execPath, [SCRIPT], {
        encoding: 'utf8',
        env: { ...process.env, RAINCHECK_HA_PYTHON: python, XDG_CACHE_HOME: dir },
      });
      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(/no CPython >= 3\.13 found .*RAINCHECK_HA_PYTHON/);
      expect(fs.readdirSync(dir)).toEqual(['python3']); // no virtualenv was started
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is the last step of npm test', () => {
    const { scripts } = JSON.parse(
      fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8'),
    ) as {
      scripts: Record<string, string>;
    };
    expect(scripts['test:ha']).toBe('node scripts/ha-integration-tests.mjs');
    expect(scripts.test?.endsWith('&& npm run test:ha')).toBe(true);
  });
});
