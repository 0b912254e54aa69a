import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';

/**
 * The built service as Home Assistant runs it: a child process started
 * through bin/raincheck (`npm test` builds dist/ first), for tests of
 * signals, crashes and restarts.
 */

export const LAUNCHER = path.join(__dirname, '..', '..', 'bin', 'raincheck');

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export function getStatus(port: number, route: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: route }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .on('error', reject);
  });
}

export async function waitHealthy(port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`service exited early with ${child.exitCode}`);
    if ((await getStatus(port, '/api/v1/health').catch(() => 0)) === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('service did not become healthy');
}

/**
 * The environment of a service a test starts through bin/raincheck: this
 * process's, with the data dir, a loopback port, warnings only, no mDNS (tests
 * stay off the LAN: a test that checks the mDNS record turns it on, on
 * loopback) and no RAINCHECK_CONFIG; `extraEnv` (e.g. DEMO) goes over it.
 */
export function serviceEnv(
  dataDir: string,
  port: number,
  extraEnv: Record<string, string> = {},
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    RAINCHECK_DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    RAINCHECK_MDNS: '0',
    ...extraEnv,
  };
  delete env.RAINCHECK_CONFIG;
  return env;
}

/** Starts bin/raincheck on a loopback port with the given data dir; resolves once healthy. */
export async function spawnService(
  dataDir: string,
  extraEnv: Record<string, string> = {},
): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  const env = serviceEnv(dataDir, port, extraEnv);
  const child = spawn(LAUNCHER, [], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.resume();
  child.stderr?.resume();
  await waitHealthy(port, child);
  return { child, port };
}

/** Resolves with the exit code (null when killed by a signal). */
export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}
