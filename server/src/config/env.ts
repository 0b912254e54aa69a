import { isAbsolute, join, resolve } from 'node:path';

/**
 * The environment the service starts from (README's table). Parsed once in
 * main.ts; everything else receives the result, never process.env.
 */
export interface RuntimeEnv {
  dataDir: string;
  configPath: string;
  port: number;
  host: string;
  /** Environment location fallback, used until the config sets deployment.location. */
  lat: number | null;
  lon: number | null;
  demo: boolean;
  dryRun: boolean;
  logLevel: string;
  /**
   * RAINCHECK_PUBLIC_URL: where the owner opens the app (`http://raincheck.lan:8099/`), so
   * notification links (ntfy's Click, e-mail, chat) can point into it; null when unset.
   */
  publicUrl: string | null;
  /** LAN service discovery (mDNS `_raincheck._tcp`): on unless RAINCHECK_MDNS is false. */
  mdns: { enabled: boolean; port: number; address: string | null };
  /** The raw environment, for `${NAME}` interpolation in the config. */
  vars: NodeJS.ProcessEnv;
}

export class EnvError extends Error {}

const TRUE = new Set(['1', 'true', 'yes', 'on']);
const LOG_LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

export function parseEnv(vars: NodeJS.ProcessEnv, cwd = process.cwd()): RuntimeEnv {
  const dataDir = resolve(cwd, vars.RAINCHECK_DATA_DIR || './data');
  const configPath = vars.RAINCHECK_CONFIG
    ? isAbsolute(vars.RAINCHECK_CONFIG)
      ? vars.RAINCHECK_CONFIG
      : resolve(cwd, vars.RAINCHECK_CONFIG)
    : join(dataDir, 'config.toml');
  const logLevel = (vars.LOG_LEVEL || 'info').toLowerCase();
  if (!LOG_LEVELS.has(logLevel)) throw new EnvError(`LOG_LEVEL must be one of ${[...LOG_LEVELS].join(', ')}`);
  return {
    dataDir,
    configPath,
    port: parsePort(vars.PORT),
    host: vars.HOST || '0.0.0.0',
    lat: parseCoordinate('LAT', vars.LAT, 90),
    lon: parseCoordinate('LON', vars.LON, 180),
    demo: isTrue(vars.DEMO),
    dryRun: isTrue(vars.DRY_RUN),
    logLevel,
    publicUrl: parsePublicUrl(vars.RAINCHECK_PUBLIC_URL),
    mdns: {
      enabled: vars.RAINCHECK_MDNS === undefined || vars.RAINCHECK_MDNS === '' || isTrue(vars.RAINCHECK_MDNS),
      port: vars.RAINCHECK_MDNS_PORT ? parsePort(vars.RAINCHECK_MDNS_PORT, 'RAINCHECK_MDNS_PORT') : 5353,
      address: vars.RAINCHECK_MDNS_ADDRESS?.trim() || null,
    },
    vars,
  };
}

export function isTrue(value: string | undefined): boolean {
  return value !== undefined && TRUE.has(value.trim().toLowerCase());
}

function parsePort(value: string | undefined, name = 'PORT'): number {
  if (value === undefined || value === '') return 8099;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new EnvError(`${name} must be 0..65535, got "${value}"`);
  return port;
}

/** An http(s) URL, kept with a trailing slash so app paths resolve below it. */
function parsePublicUrl(value: string | undefined): string | null {
  if (value === undefined || value.trim() === '') return null;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new EnvError(`RAINCHECK_PUBLIC_URL must be an http(s) URL, got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new EnvError(`RAINCHECK_PUBLIC_URL must be an http(s) URL, got "${value}"`);
  url.search = '';
  url.hash = '';
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url.href;
}

function parseCoordinate(name: string, value: string | undefined, limit: number): number | null {
  if (value === undefined || value.trim() === '') return null;
  const n = Number(value);
  if (!Number.isFinite(n) || Math.abs(n) > limit)
    throw new EnvError(`${name} must be a number in -${limit}..${limit}`);
  return n;
}
