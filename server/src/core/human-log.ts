/**
 * Log lines for a person at a terminal (`npm run demo`, `npm start` in a
 * shell): pino's JSON record as one short line, `12:04:05 warn  weather:
 * source offline (source=demo)`. Logs that go to a file, a pipe, Docker or
 * the add-on's log stay JSON (main.ts decides by whether stdout is a TTY).
 */

const LEVELS: Record<number, string> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
};
/** pino's own fields and the ones the line already shows. */
const SHOWN = new Set(['level', 'time', 'msg', 'module', 'service', 'pid', 'hostname']);

function detail(value: unknown): string {
  if (typeof value === 'string') return /\s/.test(value) ? JSON.stringify(value) : value;
  if (value && typeof value === 'object' && 'message' in value) return String((value as Error).message);
  return JSON.stringify(value);
}

export function humanLine(json: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  const time = typeof record.time === 'string' ? record.time.slice(11, 19) : '';
  const level = (LEVELS[record.level as number] ?? String(record.level)).padEnd(5);
  const module = typeof record.module === 'string' ? `${record.module}: ` : '';
  const extras = Object.entries(record)
    .filter(([key]) => !SHOWN.has(key))
    .map(([key, value]) => `${key}=${detail(value)}`);
  const tail = extras.length > 0 ? ` (${extras.join(', ')})` : '';
  return `${time} ${level} ${module}${String(record.msg ?? '')}${tail}\n`;
}

/** A pino destination that writes human lines to `out`. */
export function humanDestination(out: NodeJS.WritableStream = process.stdout): { write(line: string): void } {
  return { write: (line: string) => void out.write(humanLine(line.trimEnd())) };
}

/** The one line a person at a terminal needs: where to open the app. */
export function readyLine(env: { host: string; demo: boolean; dryRun: boolean }, port: number): string {
  const anyAddress = ['0.0.0.0', '::', ''].includes(env.host);
  const host = anyAddress ? 'localhost' : env.host.includes(':') ? `[${env.host}]` : env.host;
  const mode = env.demo
    ? ' (demo: synthetic weather, dry-run controller)'
    : env.dryRun
      ? ' (dry run: no valve is switched)'
      : '';
  return `Raincheck is running${mode}: open http://${host}:${port}/ in a browser. Ctrl+C stops it.\n`;
}
