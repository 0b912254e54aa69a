import pino, { type Logger } from 'pino';

/**
 * The root logger. Every module takes a named child (`logger.child({ module })`)
 * so a reader can filter one domain. Secret-bearing keys are redacted by pino
 * itself, as a second line of defence behind config redaction.
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
];

export function createRootLogger(level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    level,
    base: { service: 'raincheck' },
    redact: { paths: REDACTED_LOG_PATHS, censor: '***redacted***' },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}

/** A logger that writes nothing: for tests and benchmarks that do not read logs. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
