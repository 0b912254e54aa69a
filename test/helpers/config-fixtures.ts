import { builtinControllerKinds } from '../../server/src/controllers/index';
import { registerWithConfigValidator as registerControllerKinds } from '../../server/src/controllers/kinds';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { registerBuiltinKinds } from '../../server/src/config/builtin-kinds';
import { ConfigService, type ConfigServiceDeps } from '../../server/src/config/config-service';
import { parseEnv } from '../../server/src/config/env';
import type { JsonObject } from '../../server/src/config/json-walk';
import type { AtomicWriteStep } from '../../server/src/core/atomic-write';
import { EventBus } from '../../server/src/core/bus';
import { ManualClock } from '../../server/src/core/clock';
import { silentLogger } from '../../server/src/core/logger';

/** Shared fixtures for the config tests: a temp data folder, a service on it, and a valid v2 document. */

export const T0_MS = Date.UTC(2025, 5, 1, 12, 0, 0);

/** main.ts registers the builtin kinds at boot; the validator needs them. Idempotent. */
export function useBuiltinKinds(): void {
  registerBuiltinKinds();
  registerControllerKinds(builtinControllerKinds().values());
}

/** A fresh temp directory per test, removed afterwards. */
export function tempDir(prefix = 'raincheck-config-'): () => string {
  let dir = '';
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return () => dir;
}

export interface ServiceHandle {
  service: ConfigService;
  bus: EventBus;
  clock: ManualClock;
  configPath: string;
}

export function makeService(
  dataDir: string,
  vars: Record<string, string> = {},
  extra: { beforeWriteStep?: (step: AtomicWriteStep) => void; clock?: ManualClock } = {},
): ServiceHandle {
  const env = parseEnv({ RAINCHECK_DATA_DIR: dataDir, ...vars });
  const bus = new EventBus();
  const clock = extra.clock ?? new ManualClock(T0_MS);
  const deps: ConfigServiceDeps = { env, bus, clock, logger: silentLogger() };
  if (extra.beforeWriteStep) deps.beforeWriteStep = extra.beforeWriteStep;
  return { service: new ConfigService(deps), bus, clock, configPath: env.configPath };
}

/** A loaded service (load() already awaited). */
export async function loadedService(
  dataDir: string,
  vars: Record<string, string> = {},
  extra: { beforeWriteStep?: (step: AtomicWriteStep) => void; clock?: ManualClock } = {},
): Promise<ServiceHandle> {
  const handle = makeService(dataDir, vars, extra);
  await handle.service.load();
  return handle;
}

/** A realistic, valid v2 document with a dry-run default controller and two zones. */
export function validDoc(): JsonObject {
  return {
    schema_version: 2,
    deployment: {
      location: { lat: 30.27, lon: -97.74, elevation_m: 150 },
      units: 'imperial',
      display_name: 'Test yard',
    },
    sources: [
      { id: 'forecast', priority: 50, enabled: true, kind: 'open_meteo', config: { past_days: 3 } },
      {
        id: 'tempest',
        priority: 100,
        enabled: true,
        kind: 'tempest_udp',
        config: { bind_addr: '0.0.0.0:50222' },
      },
    ],
    controllers: [{ id: 'dry', default: true, enabled: true, kind: 'dry_run', config: {} }],
    zones: {
      front_lawn: {
        display_name: 'Front lawn',
        species: 'bermuda',
        soil_texture: 'loam',
        sprinkler_type: 'rotor',
        area_sqft: 1200,
        controller_id: 'dry',
        controller_station: '1',
        max_run_minutes: 45,
        sessions_per_week: 2,
      },
      back_lawn: {
        display_name: 'Back lawn',
        species: 'st_augustine',
        soil_texture: 'sand',
        controller_id: 'dry',
        controller_station: '2',
      },
    },
    engine: { scheduling_model: 'soil' },
  };
}

/** A valid document that carries a secret in every secret-bearing place the contract names. */
export function docWithSecrets(): JsonObject {
  const doc = validDoc();
  doc.sources = [
    ...(doc.sources as JsonObject[]),
    {
      id: 'owm',
      priority: 10,
      enabled: true,
      kind: 'openweathermap',
      config: { api_key: 'owm-secret-key-1234', units: 'imperial' },
    },
    {
      id: 'wu',
      priority: 10,
      enabled: true,
      kind: 'wunderground',
      config: { api_key: 'wu-secret-key-5678', station_id: 'KTXAUSTI123' },
    },
  ];
  doc.controllers = [
    ...(doc.controllers as JsonObject[]),
    {
      id: 'os',
      default: false,
      enabled: true,
      kind: 'opensprinkler',
      config: { host: '192.168.1.50', port: 80, password_md5: 'a'.repeat(32), poll_interval_s: 10 },
    },
    {
      id: 'cloud',
      default: false,
      enabled: true,
      kind: 'rachio',
      config: { api_key: 'rachio-token-abc', poll_interval_s: 120 },
    },
  ];
  doc.llm = {
    provider: 'openai_compat',
    base_url: 'http://llm.local:8080/v1',
    model: 'qwen',
    api_key: 'sk-llm-secret',
  };
  doc.notifications = {
    mqtt: { host: 'mqtt.local', port: 1883, username: 'raincheck', password: 'mqtt-pass-word' },
    ntfy: { base_url: 'https://ntfy.sh', topic: 'yard', auth_token: 'tk_ntfy_secret' },
    slack: { webhook_url: 'https://hooks.slack.com/services/T000/B000/XXXX' },
    email: {
      smtp_host: 'smtp.example.com',
      smtp_port: 587,
      username: 'me@example.com',
      password: 'smtp-pass-word',
      from_address: 'me@example.com',
      to_address: 'you@example.com',
    },
  };
  return doc;
}

export function readText(file: string): string {
  return fs.readFileSync(file, 'utf8');
}

/** Files left by an interrupted atomic write beside `file`. */
export function tempFilesBeside(file: string): string[] {
  const prefix = `${path.basename(file)}.tmp-`;
  return fs.readdirSync(path.dirname(file)).filter((name) => name.startsWith(prefix));
}

/** Deep copy without null members: what a document looks like after a TOML round trip. */
export function withoutNulls<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, (_key, v: unknown) => (v === null ? undefined : v))) as T;
}

/** Awaits a promise expected to reject and returns its reason. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the promise to reject');
}
