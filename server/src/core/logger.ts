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

/**
 * fastify announces a listening server once per interface address ("Server
 * listening at http://...", six lines on a host with six addresses); main.ts
 * logs `raincheck listening` once with the host and port instead.
 */
const FASTIFY_LISTENING = /^Server listening at /;

export interface RootLoggerOptions {
  /** Where the lines go: pino's JSON to stdout when absent (see core/human-log.ts for a terminal). */
  destination?: { write(line: string): void };
}

export function createRootLogger(
  level = process.env.LOG_LEVEL ?? 'info',
  options: RootLoggerOptions = {},
): Logger {
  const settings: pino.LoggerOptions = {
    level,
    base: { service: 'raincheck' },
    redact: { paths: REDACTED_LOG_PATHS, censor: '***redacted***' },
    timestamp: pino.stdTimeFunctions.isoTime,
    hooks: {
      logMethod(args, method) {
        const text = args.find((arg) => typeof arg === 'string');
        if (typeof text === 'string' && FASTIFY_LISTENING.test(text)) return;
        method.apply(this, args);
      },
    },
  };
  return options.destination ? pino(settings, options.destination) : pino(settings);
}

/** A logger that writes nothing: for tests and benchmarks that do not read logs. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
