import pino, { type DestinationStream, type Logger } from 'pino';
import { maskUrlSecrets } from './log-masking';

/**
 * The root logger. Every module takes a named child (`logger.child({ module })`)
 * so a reader can filter one domain. Secret-bearing keys and headers are
 * redacted by pino itself, as a second line of defence behind config
 * redaction, and a `url` field has its secret query values masked
 * (log-masking.ts), whatever the level and whoever logs it.
 */
export type { Logger };

export const REDACTED_LOG_PATHS = [
  'password',
  '*.password',
  'token',
  '*.token',
  'api_key',
  '*.api_key',
  'authorization',
  'req.headers.authorization',
  'req.headers.cookie',
  '*.password_md5',
  '*.auth_token',
  '*.webhook_url',
  'req.headers["x-api-key"]',
  ...secretHeaderPaths(),
];

/** Headers that carry credentials, wherever a log line puts a `headers` object. */
function secretHeaderPaths(): string[] {
  const headers = [
    'authorization',
    'cookie',
    '["set-cookie"]',
    '["proxy-authorization"]',
    '["x-api-key"]',
    '["x-raincheck-token"]',
    '["x-supervisor-token"]',
  ];
  const at = (name: string, prefix: string) => `${prefix}${name.startsWith('[') ? '' : '.'}${name}`;
  return headers.flatMap((name) => [at(name, 'headers'), at(name, '*.headers')]);
}

/** A `url` field (the request log, an outgoing call) with secret query values masked. */
function maskUrlField(object: Record<string, unknown>): Record<string, unknown> {
  return typeof object.url === 'string' ? { ...object, url: maskUrlSecrets(object.url) } : object;
}

/** `destination`: where lines go (stdout by default; tests read them). */
export function createRootLogger(
  level = process.env.LOG_LEVEL ?? 'info',
  destination?: DestinationStream,
): Logger {
  const options = {
    level,
    base: { service: 'raincheck' },
    redact: { paths: REDACTED_LOG_PATHS, censor: '***redacted***' },
    formatters: { log: maskUrlField },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(options, destination) : pino(options);
}

/** A logger that writes nothing: for tests and benchmarks that do not read logs. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
