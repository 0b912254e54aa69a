#!/usr/bin/env node
import { execFileSync, spawnSync } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * Runs before `npm test` (the `pretest` script): finds every program of
 * scripts/test-tools.json, and installs the missing ones with apt-get when it
 * can (root, or sudo without a password), so the README's one test command
 * works on a fresh Debian machine with only Node. When it cannot, it prints
 * the command that would and fails, rather than letting a test fail later for
 * a missing program. RAINCHECK_SKIP_TOOL_INSTALL=1 only checks.
 */

const listFile = new URL('./test-tools.json', import.meta.url);
const { tools } = JSON.parse(readFileSync(listFile, 'utf8'));

function executable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function found(tool) {
  if (tool.env && process.env[tool.env]) return executable(process.env[tool.env]);
  const onPath = (process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, tool.command));
  return [...onPath, ...(tool.paths ?? [])].some(executable);
}

function missing() {
  return tools.filter((tool) => !found(tool));
}

function installer() {
  if (process.platform !== 'linux' || spawnSync('apt-get', ['--version']).status !== 0) return null;
  if (process.getuid?.() === 0) return [];
  return spawnSync('sudo', ['-n', 'true']).status === 0 ? ['sudo', '-n'] : null;
}

function install(prefix, packages) {
  const run = (args) => {
    const [command, ...rest] = [...prefix, ...args];
    execFileSync(command, rest, {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  };
  run(['apt-get', 'update']);
  run(['apt-get', 'install', '-y', '--no-install-recommends', ...packages]);
}

const absent = missing();
if (absent.length === 0) process.exit(0);

const packages = [...new Set(absent.map((tool) => tool.package))];
for (const tool of absent) console.log(`test tools: ${tool.command} is missing (${tool.why})`);
const prefix = process.env.RAINCHECK_SKIP_TOOL_INSTALL === '1' ? null : installer();
if (prefix === null) {
  console.error(
    `test tools: install them first: sudo apt-get install -y --no-install-recommends ${packages.join(' ')}` +
      (absent.some((tool) => tool.env)
        ? ` (or point ${absent
            .filter((t) => t.env)
            .map((t) => t.env)
            .join(', ')} at a build)`
        : ''),
  );
  process.exit(1);
}
console.log(`test tools: installing ${packages.join(' ')} with apt-get`);
install(prefix, packages);
const still = missing();
if (still.length > 0) {
  console.error(
    `test tools: still missing after the install: ${still.map((tool) => tool.command).join(', ')}`,
  );
  process.exit(1);
}
