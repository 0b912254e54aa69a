import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogRing } from './log-ring';
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

/**
 * fastify announces a listening server once per interface address ("Server
 * listening at http://...", six lines on a host with six addresses); main.ts
 * logs `raincheck listening` once with the host and port instead.
 */
const FASTIFY_LISTENING = /^Server listening at /;

export interface RootLoggerOptions {
  /** Also keeps warnings and errors here (/diagnostics). */
  ring?: LogRing;
  /** Where lines go: pino's JSON to standard output when absent (see core/human-log.ts for a terminal). */
  destination?: DestinationStream;
}

export function createRootLogger(
  level = process.env.LOG_LEVEL ?? 'info',
  options: RootLoggerOptions = {},
): Logger {
  const settings: pino.LoggerOptions = {
    level,
    base: { service: 'raincheck' },
    redact: { paths: REDACTED_LOG_PATHS, censor: '***redacted***' },
    formatters: { log: maskUrlField },
    timestamp: pino.stdTimeFunctions.isoTime,
    hooks: {
      logMethod(args, method) {
        const text = args.find((arg) => typeof arg === 'string');
        if (typeof text === 'string' && FASTIFY_LISTENING.test(text)) return;
        method.apply(this, args);
      },
    },
  };
  const destination = options.destination ?? pino.destination(1);
  if (!options.ring) return pino(settings, destination);
  const streams = pino.multistream([
    ...(level === 'silent' ? [] : [{ level: level as pino.Level, stream: destination }]),
    { level: 'warn' as const, stream: options.ring },
  ]);
  return pino(settings, streams);
}

/** A logger that writes nothing: for tests and benchmarks that do not read logs. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
