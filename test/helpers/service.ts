import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseEnv } from '../../server/src/config/env';
import type { Clock } from '../../server/src/core/clock';
import { silentLogger } from '../../server/src/core/logger';
import type { ElevationClient } from '../../server/src/location/elevation';
import { createService, type Service, type ServiceOptions } from '../../server/src/main';

/**
 * Boots the real service (composition root, real config service, real SQLite
 * store) in a temp data directory, listening on an ephemeral loopback port so
 * requests arrive from 127.0.0.1 as they do from a browser on the same host.
 */

export interface BootOptions {
  /** Reuse a data directory (a second boot of the same install); a fresh one otherwise. */
  dataDir?: string;
  /** Extra environment variables (LAT, LON, DEMO, RAINCHECK_BUILD_REVISION, ...). */
  env?: Record<string, string>;
  /** Written as `<dataDir>/config.toml` before boot. */
  configToml?: string;
  elevation?: ElevationClient;
  /** Any other composition-root option (clock, fetch, discovery, extra source kinds). */
  serviceOptions?: Partial<ServiceOptions>;
}

export interface BootedService {
  service: Service;
  dataDir: string;
  configPath: string;
  port: number;
}

/** Sources in tests may only talk to loopback peers; anything else fails like an unreachable host. */
export const loopbackOnlyFetch: typeof fetch = (input, init) => {
  const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) {
    return Promise.reject(new TypeError(`fetch failed: ${url.hostname} is not reachable from tests`));
  }
  return fetch(input, init);
};

/**
 * A clock for demo boots whose assertions need an idle yard: it starts on
 * 2025-01-15 11:00 EST, the day after a demo storm (nothing is due, so no
 * scheduled run, skip marker or busy controller joins the test), and then
 * follows real time. The demo's weather follows the clock, and on the dry
 * days of its cycle a real-clock boot may meet the scheduler at work.
 */
export function quietDemoClock(): Clock {
  return demoClockAt(Date.UTC(2025, 0, 15, 16));
}

/** A clock that starts at `startMs` and then follows real time: a demo day chosen, not the day the suite runs. */
export function demoClockAt(startMs: number): Clock {
  const realStart = Date.now();
  return { nowMs: () => startMs + (Date.now() - realStart) };
}

export function makeDataDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'raincheck-http-'));
}

export async function bootService(options: BootOptions = {}): Promise<BootedService> {
  const dataDir = options.dataDir ?? makeDataDir();
  const env = parseEnv({
    RAINCHECK_DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'silent',
    RAINCHECK_MDNS: '0',
    ...options.env,
  });
  if (options.configToml !== undefined) fs.writeFileSync(env.configPath, options.configToml);
  const service = await createService(env, {
    logger: silentLogger(),
    elevation: options.elevation,
    fetch: loopbackOnlyFetch,
    // POST /system/restart in exit mode signals its own process: in a test that is the jest
    // runner itself (one worker runs in band on a 2-core machine). Tests of exit mode use a
    // real child process, or pass their own exit.
    exit: () => undefined,
    ...options.serviceOptions,
  });
  const port = await service.listen();
  return { service, dataDir, configPath: env.configPath, port };
}

/**
 * Tracks every service booted in a test file: `boot()` inside a test, and the
 * afterEach stops them all (awaiting each stop) and removes their data dirs.
 */
export function serviceTracker(): { boot: (options?: BootOptions) => Promise<BootedService> } {
  const booted: BootedService[] = [];
  const dirs = new Set<string>();
  afterEach(async () => {
    const running = booted.splice(0);
    for (const entry of running) await entry.service.stop();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
    dirs.clear();
  });
  return {
    boot: async (options = {}) => {
      const entry = await bootService(options);
      booted.push(entry);
      dirs.add(entry.dataDir);
      return entry;
    },
  };
}

/** A minimal valid config document (JSON wire form). */
export function minimalConfig(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    schema_version: 2,
    deployment: { location: { lat: 40.7, lon: -74.0 }, units: 'imperial' },
    ...overrides,
  };
}

export const SECRET_API_KEY = 'sk-live-0123456789abcdef';
export const SECRET_PASSWORD_MD5 = '5f4dcc3b5aa765d61d8327deb882cf99';

/** A config with a secret in a source and in a controller, one zone bound to the controller. */
export function configWithSecrets(zoneKey = 'front_lawn'): Record<string, unknown> {
  return minimalConfig({
    sources: [
      {
        id: 'open_meteo',
        priority: 50,
        // Disabled: tests never reach the internet, and an unreachable source would degrade health.
        enabled: false,
        kind: 'open_meteo',
        config: { past_days: 3, api_key: SECRET_API_KEY },
      },
    ],
    controllers: [
      {
        id: 'os1',
        default: true,
        enabled: true,
        kind: 'opensprinkler',
        config: { host: '192.168.1.40', port: 80, password_md5: SECRET_PASSWORD_MD5 },
      },
    ],
    zones: {
      [zoneKey]: {
        display_name: 'Front lawn',
        species: 'bermuda',
        controller_id: 'os1',
        controller_station: '1',
      },
    },
  });
}
