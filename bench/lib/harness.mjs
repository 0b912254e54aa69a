import { spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { stringify as toToml } from 'smol-toml';

/**
 * Shared plumbing for the benchmarks: child processes and temp dirs that are
 * always cleaned up (even on a crash or Ctrl-C), loopback HTTP probes, stats.
 */

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const SERVICE_ENTRY = join(REPO_ROOT, 'dist/server/src/main.js');
/** The launcher users run (npm start, the add-on): the service is measured as it is started. */
export const SERVICE_LAUNCHER = join(REPO_ROOT, 'bin/raincheck');
export const BARE_SERVER = fileURLToPath(new URL('../bare-server.mjs', import.meta.url));
export const HOST = '127.0.0.1';
export { sleep };

const children = new Set();
const tempDirs = new Set();

function cleanupSync() {
  for (const child of children) {
    try {
      child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
  children.clear();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}

process.on('exit', cleanupSync);
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
  ['SIGHUP', 129],
]) {
  process.on(signal, () => {
    process.stderr.write(`\nbench: ${signal}, cleaning up\n`);
    process.exit(code);
  });
}

/** A fresh temp dir, removed when the bench process exits (or earlier via removeTempDir). */
export function makeTempDir(prefix = 'raincheck-bench-') {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

export function removeTempDir(dir) {
  rmSync(dir, { recursive: true, force: true });
  tempDirs.delete(dir);
}

/** A port that was free on loopback a moment ago. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, HOST, () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** A UDP port that was free on loopback a moment ago. */
export function freeUdpPort() {
  return new Promise((resolve, reject) => {
    const socket = createSocket('udp4');
    socket.once('error', reject);
    socket.bind(0, HOST, () => {
      const { port } = socket.address();
      socket.close(() => resolve(port));
    });
  });
}

/** The service's environment: only the variables under test, nothing inherited that changes behaviour. */
function serviceEnv(extra) {
  const env = { ...process.env };
  for (const key of Object.keys(env)) {
    if (key.startsWith('RAINCHECK_') || ['LAT', 'LON', 'DRY_RUN', 'DEMO', 'PORT', 'HOST'].includes(key)) {
      delete env[key];
    }
  }
  return { ...env, ...extra };
}

/**
 * Spawns a node script as a tracked child. Resolves nothing; returns a handle
 * with the spawn timestamp (performance.now()) and the output tail for errors.
 */
export function spawnNode(script, env) {
  return spawnTracked(process.execPath, [script], env);
}

function spawnTracked(command, args, env) {
  const tail = { text: '' };
  const keep = (chunk) => {
    tail.text = (tail.text + chunk.toString()).slice(-4000);
  };
  const spawnedAt = performance.now();
  const child = spawn(command, args, {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    });
  });
  child.once('error', (err) => keep(`spawn error: ${err.message}\n`));
  return { child, pid: child.pid, spawnedAt, exited, output: () => tail.text };
}

/** Starts the built service with DEMO=1 on a free loopback port. */
export async function spawnService(dataDir, extraEnv = {}) {
  return startService(dataDir, { DEMO: '1', ...extraEnv });
}

/**
 * Starts the built service on a free loopback port with `configDoc` written to
 * <dataDir>/config.toml first and DEMO unset: the service runs on that config
 * alone, as an installed one does.
 */
export async function spawnServiceWithConfig(dataDir, configDoc, extraEnv = {}) {
  writeFileSync(join(dataDir, 'config.toml'), toToml(configDoc));
  return startService(dataDir, extraEnv);
}

/** Starts the built service again on a data directory an earlier start left (DEMO unset): a restart. */
export async function restartService(dataDir, extraEnv = {}) {
  return startService(dataDir, extraEnv);
}

async function startService(dataDir, extraEnv) {
  if (!existsSync(SERVICE_ENTRY)) throw new Error(`${SERVICE_ENTRY} missing: run \`npm run build\` first`);
  const port = await freePort();
  // The launcher execs node, so the child pid is the service's own process.
  const handle = spawnTracked(
    SERVICE_LAUNCHER,
    [],
    serviceEnv({
      RAINCHECK_DATA_DIR: dataDir,
      PORT: String(port),
      HOST,
      LOG_LEVEL: 'warn',
      ...extraEnv,
    }),
  );
  return { ...handle, port, baseUrl: `http://${HOST}:${port}` };
}

/**
 * Starts bench/bare-server.mjs answering `body` with `contentType` on every path;
 * `extraHeaders` (e.g. Content-Encoding of a gzipped body) go on every answer too.
 */
export async function spawnBareServer(bodyFile, contentType, extraHeaders = {}) {
  const port = await freePort();
  const handle = spawnNode(
    BARE_SERVER,
    serviceEnv({
      PORT: String(port),
      HOST,
      BODY_FILE: bodyFile,
      CONTENT_TYPE: contentType,
      EXTRA_HEADERS: JSON.stringify(extraHeaders),
    }),
  );
  return { ...handle, port, baseUrl: `http://${HOST}:${port}` };
}

/** Graceful stop (SIGTERM), SIGKILL after `graceMs`. */
export async function stopChild(handle, graceMs = 5000) {
  if (handle.child.exitCode !== null || handle.child.signalCode !== null) return handle.exited;
  handle.child.kill('SIGTERM');
  const timer = setTimeout(() => handle.child.kill('SIGKILL'), graceMs);
  try {
    return await handle.exited;
  } finally {
    clearTimeout(timer);
  }
}

/** One GET on a fresh connection; resolves { status, headers, body } (as sent) or rejects on a socket error. */
export function httpGet(port, path, timeoutMs = 2000, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = request({ host: HOST, port, path, method: 'GET', agent: false, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`GET ${path} timed out after ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}

/**
 * Polls `path` every `intervalMs` until it answers 200; resolves with the
 * performance.now() timestamp at which the 200's headers arrived. Rejects if
 * the child exits first or `timeoutMs` passes.
 */
export async function waitFor200(handle, path, { intervalMs = 5, timeoutMs = 15000 } = {}) {
  const deadline = handle.spawnedAt + timeoutMs;
  let exited = null;
  handle.exited.then((info) => {
    exited = info;
  });
  let lastError = 'no attempt';
  while (performance.now() < deadline) {
    if (exited) {
      throw new Error(
        `child exited (code ${exited.code}, signal ${exited.signal}) before ${path} answered 200\n${handle.output()}`,
      );
    }
    try {
      const at = await probeOnce(handle.port, path);
      if (at.status === 200) return at.time;
      lastError = `status ${at.status}`;
    } catch (err) {
      lastError = err.code ?? err.message;
    }
    await sleep(intervalMs);
  }
  throw new Error(
    `${path} did not answer 200 within ${timeoutMs} ms (last: ${lastError})\n${handle.output()}`,
  );
}

function probeOnce(port, path) {
  return new Promise((resolve, reject) => {
    const req = request({ host: HOST, port, path, method: 'GET', agent: false }, (res) => {
      const time = performance.now();
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, time }));
      res.on('error', reject);
    });
    req.setTimeout(2000, () => req.destroy(new Error('probe timed out')));
    req.on('error', reject);
    req.end();
  });
}

/** Fields of /proc/<pid>/status in kB, e.g. { VmRSS: 75000, RssAnon: ... }. Linux only. */
export function procStatusKb(pid) {
  const out = {};
  for (const line of readFileSync(`/proc/${pid}/status`, 'utf8').split('\n')) {
    const m = /^(\w+):\s+(\d+) kB$/.exec(line);
    if (m) out[m[1]] = Number(m[2]);
  }
  return out;
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Nearest-rank percentile (p in 0..100) of a non-empty list. */
export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export function mean(values) {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

export const ms = (v) => `${v.toFixed(1)} ms`;
export const mb = (kb) => `${(kb / 1024).toFixed(1)} MB`;
