#!/usr/bin/env node
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The companion integration's tests (`npm run test:ha`, the last step of
 * `npm test`): pytest with pytest-homeassistant-custom-component against the
 * built service (dist/, so `npm run build` first). The virtualenv is made on
 * the fly under ~/.cache/raincheck (XDG_CACHE_HOME when set), named by a hash
 * of the requirements and the interpreter, and reused by the next run on the
 * same machine. RAINCHECK_HA_PYTHON picks the interpreter; otherwise the
 * newest CPython >= 3.13 on PATH or under ~/.pyenv/versions.
 *
 * A full run (no arguments) measures the coverage of custom_components/raincheck
 * and fails under 95 % (HA's test-coverage rule; test/ha-integration/.coveragerc).
 * Then `mypy --strict` checks custom_components/raincheck (HA's strict-typing
 * rule) from a second small venv (requirements-typing.txt, keyed the same way)
 * against the first venv's Home Assistant; its cache lives beside the venvs.
 */

const root = fileURLToPath(new URL('..', import.meta.url));
const testDir = join(root, 'test', 'ha-integration');
const requirementsFile = join(testDir, 'requirements.txt');
const typingRequirementsFile = join(testDir, 'requirements-typing.txt');
const MIN_PYTHON = [3, 13];

function run(command, args, options = {}) {
  return spawnSync(command, args, { stdio: 'inherit', ...options });
}

function pythonVersion(executable) {
  const probe = spawnSync(executable, ['-c', 'import sys;print(*sys.version_info[:3])'], {
    encoding: 'utf8',
  });
  if (probe.status !== 0) return null;
  return probe.stdout.trim().split(' ').map(Number);
}

function newer(a, b) {
  for (let i = 0; i < 3; i += 1) if (a[i] !== b[i]) return a[i] > b[i];
  return false;
}

function candidates() {
  if (process.env.RAINCHECK_HA_PYTHON) return [process.env.RAINCHECK_HA_PYTHON];
  const names = ['python3.14', 'python3.13', 'python3'];
  const onPath = (process.env.PATH ?? '')
    .split(delimiter)
    .filter(Boolean)
    .flatMap((dir) => names.map((name) => join(dir, name)));
  const pyenvRoot = process.env.PYENV_ROOT ?? join(homedir(), '.pyenv');
  const versionsDir = join(pyenvRoot, 'versions');
  const pyenv = existsSync(versionsDir)
    ? readdirSync(versionsDir)
        .filter((name) => /^3\.\d+\.\d+$/.test(name))
        .map((name) => join(versionsDir, name, 'bin', 'python3'))
    : [];
  return [...onPath, ...pyenv].filter((path) => existsSync(path));
}

function findPython() {
  let best = null;
  for (const executable of candidates()) {
    const version = pythonVersion(executable);
    if (!version || newer(MIN_PYTHON.concat(0), version)) continue;
    if (!best || newer(version, best.version)) best = { executable, version };
  }
  return best;
}

const cacheRoot = process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache');

function ensureVenv(python, file = requirementsFile, prefix = 'ha-venv') {
  const requirements = readFileSync(file);
  const key = createHash('sha256')
    .update(requirements)
    .update(python.version.join('.'))
    .digest('hex')
    .slice(0, 12);
  const venv = join(cacheRoot, 'raincheck', `${prefix}-${key}`);
  const marker = join(venv, '.raincheck-complete');
  const venvPython = join(venv, 'bin', 'python');
  if (existsSync(marker)) return venvPython;
  console.log(`ha tests: making the virtualenv ${venv} (once per machine)`);
  rmSync(venv, { recursive: true, force: true });
  mkdirSync(join(cacheRoot, 'raincheck'), { recursive: true });
  const steps = [
    [python.executable, ['-m', 'venv', venv]],
    [venvPython, ['-m', 'pip', 'install', '--quiet', '--upgrade', 'pip']],
    [venvPython, ['-m', 'pip', 'install', '--quiet', '-r', file]],
  ];
  for (const [command, args] of steps) {
    const result = run(command, args);
    if (result.status !== 0) {
      rmSync(venv, { recursive: true, force: true });
      throw new Error(`ha tests: \`${command} ${args.join(' ')}\` failed`);
    }
  }
  writeFileSync(marker, `${new Date().toISOString()}\n`);
  return venvPython;
}

function main() {
  const python = findPython();
  if (!python) {
    console.error(
      `ha tests: no CPython >= ${MIN_PYTHON.join('.')} found on PATH or under ~/.pyenv/versions. ` +
        'Install one (e.g. `pyenv install 3.13`) or point RAINCHECK_HA_PYTHON at it.',
    );
    return 1;
  }
  const venvPython = ensureVenv(python);
  if (!existsSync(join(root, 'dist', 'server', 'src', 'main.js'))) {
    console.error('ha tests: dist/ is missing; run `npm run build` first');
    return 1;
  }
  // -p no:sugar: pytest-sugar (a dependency of the test package) would replace
  // pytest's closing line; -p no:cacheprovider keeps .pytest_cache out of the clone.
  const extra = process.argv.slice(2);
  const args = ['-m', 'pytest', testDir, '-p', 'no:sugar', '-p', 'no:cacheprovider', ...extra];
  // A partial run (a file, -k) covers part of the code: only a full run is measured.
  if (extra.length === 0) args.push(...coverageArgs());
  const env = { ...process.env, COVERAGE_FILE: join(cacheRoot, 'raincheck', 'ha-coverage') };
  const result = run(venvPython, args, { cwd: root, env });
  if (result.status === 5) {
    console.error('ha tests: pytest collected no test; that is a failure here');
    return 1;
  }
  const typed = strictTyping(python, venvPython);
  return result.status === 0 ? typed : (result.status ?? 1);
}

function coverageArgs() {
  return [
    '--cov',
    `--cov-config=${join(testDir, '.coveragerc')}`,
    '--cov-report=term-missing:skip-covered',
    '--cov-fail-under=95',
  ];
}

/** mypy --strict on the integration, with Home Assistant's types from the test venv. */
function strictTyping(python, haPython) {
  const mypyPython = ensureVenv(python, typingRequirementsFile, 'ha-typing-venv');
  const result = run(
    mypyPython,
    [
      '-m',
      'mypy',
      '--strict',
      '--python-executable',
      haPython,
      '--cache-dir',
      join(cacheRoot, 'raincheck', 'mypy-cache'),
      join('custom_components', 'raincheck'),
    ],
    { cwd: root },
  );
  return result.status ?? 1;
}

process.exitCode = main();
