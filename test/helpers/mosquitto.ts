import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * A real Mosquitto broker for tests that speak MQTT (command adapters,
 * discovery), so the client library's connect, PUBACK and CONNACK-refusal
 * paths are exercised for real rather than against a mock. Each broker gets
 * its own temp directory (config, password file), listens on a free loopback
 * port only, and is killed by stop(); a process exit hook kills any broker a
 * test forgot so none outlives the test run.
 *
 * Mosquitto 2 drops root privileges to the `mosquitto` user before it reads
 * the password file, which then cannot open our root-only temp dir: when run
 * as root the config keeps `user root`.
 */

export interface MosquittoUser {
  username: string;
  password: string;
}

export interface MosquittoOptions {
  /** Accounts made with `mosquitto_passwd`; with any, anonymous clients are refused unless allowAnonymous. */
  users?: readonly MosquittoUser[];
  allowAnonymous?: boolean;
  /** Extra mosquitto.conf lines (appended as is). */
  extraConfig?: readonly string[];
  /** How long to wait for the broker to accept connections (ms). */
  startTimeoutMs?: number;
}

export interface MosquittoBroker {
  host: '127.0.0.1';
  port: number;
  /** `mqtt://127.0.0.1:<port>` */
  url: string;
  /** Everything the broker printed so far (for failure messages). */
  log(): string;
  /** Kills the broker, waits for it to exit and removes its temp dir. Idempotent. */
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

export function mosquittoBinary(): string {
  return findBinary('mosquitto', ['/usr/sbin/mosquitto', '/usr/local/sbin/mosquitto']);
}

export function mosquittoPasswdBinary(): string {
  return findBinary('mosquitto_passwd', ['/usr/bin/mosquitto_passwd', '/usr/local/bin/mosquitto_passwd']);
}

export async function startMosquitto(options: MosquittoOptions = {}): Promise<MosquittoBroker> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'raincheck-mosquitto-'));
  try {
    const passwordFile = options.users?.length ? writePasswordFile(dir, options.users) : null;
    // A freed port can be taken again before the broker binds it: try a few.
    for (let attempt = 1; ; attempt++) {
      const port = await freeLoopbackPort();
      const configFile = writeConfig(dir, port, passwordFile, options);
      try {
        return await launch(dir, configFile, port, options.startTimeoutMs ?? 5_000);
      } catch (err) {
        if (attempt >= 3 || !/address already in use/i.test(String(err))) throw err;
      }
    }
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

function writePasswordFile(dir: string, users: readonly MosquittoUser[]): string {
  const file = path.join(dir, 'passwords');
  const binary = mosquittoPasswdBinary();
  users.forEach(({ username, password }, index) => {
    const create = index === 0 ? ['-c'] : [];
    execFileSync(binary, [...create, '-b', file, username, password], { stdio: 'pipe' });
  });
  fs.chmodSync(file, 0o600);
  return file;
}

function writeConfig(
  dir: string,
  port: number,
  passwordFile: string | null,
  options: MosquittoOptions,
): string {
  const lines = [
    `listener ${port} 127.0.0.1`,
    `allow_anonymous ${passwordFile && !options.allowAnonymous ? 'false' : 'true'}`,
    ...(passwordFile ? [`password_file ${passwordFile}`] : []),
    ...(process.getuid?.() === 0 ? ['user root'] : []),
    'persistence false',
    'log_dest stderr',
    ...(options.extraConfig ?? []),
  ];
  const file = path.join(dir, 'mosquitto.conf');
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

async function launch(
  dir: string,
  configFile: string,
  port: number,
  timeoutMs: number,
): Promise<MosquittoBroker> {
  const child = spawn(mosquittoBinary(), ['-c', configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  track(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitUntilListening(port, exited, timeoutMs);
  } catch (err) {
    await kill(child, exited);
    throw new Error(`${(err as Error).message}\n${output}`, { cause: err });
  }
  let stopped: Promise<void> | null = null;
  return {
    host: '127.0.0.1',
    port,
    url: `mqtt://127.0.0.1:${port}`,
    log: () => output,
    stop: () => {
      stopped ??= kill(child, exited).then(() => fs.rmSync(dir, { recursive: true, force: true }));
      return stopped;
    },
  };
}

/** Resolves once a TCP connect to the port succeeds; rejects when the broker exits or time runs out. */
async function waitUntilListening(port: number, exited: Promise<void>, timeoutMs: number): Promise<void> {
  let hasExited = false;
  void exited.then(() => (hasExited = true));
  const deadline = Date.now() + timeoutMs;
  while (!(await accepts(port))) {
    if (hasExited) throw new Error('mosquitto exited before it accepted connections');
    if (Date.now() > deadline) throw new Error(`mosquitto did not listen on ${port} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function kill(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
    await exited;
    clearTimeout(timer);
  }
  running.delete(child);
}

function track(child: ChildProcess): void {
  running.add(child);
  child.once('exit', () => running.delete(child));
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const leftover of running) leftover.kill('SIGKILL');
  });
}

/** A loopback port nothing listens on right now (bound and released). */
export async function freeLoopbackPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function findBinary(name: string, fallbacks: readonly string[]): string {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  const found = fallbacks.find(isExecutable);
  if (!found) throw new Error(`${name} is not installed (apt-get install mosquitto)`);
  return found;
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
