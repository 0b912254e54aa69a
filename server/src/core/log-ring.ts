/**
 * The last warnings and errors the service logged, kept in memory for
 * /diagnostics ("the last errors from the log"). A pino destination: each
 * write is one JSON log line; only the newest `capacity` are kept, each cut
 * to a bounded length. Secrets are scrubbed where the lines are served
 * (ops/diagnostics), with the config's own secret values.
 */

const MAX_LINE_CHARS = 2000;

export interface LoggedLine {
  time: string | null;
  level: string;
  module: string | null;
  msg: string;
  /** The line's other fields (err, ids), as logged. */
  detail: Record<string, unknown>;
}

const LEVELS: Record<number, string> = { 40: 'warn', 50: 'error', 60: 'fatal' };

export class LogRing {
  private readonly lines: string[] = [];

  constructor(private readonly capacity = 50) {}

  /** pino calls this with one serialized line. */
  write(line: string): void {
    this.lines.push(line.length > MAX_LINE_CHARS ? line.slice(0, MAX_LINE_CHARS) : line);
    if (this.lines.length > this.capacity) this.lines.shift();
  }

  /** Oldest first. */
  recent(): LoggedLine[] {
    return this.lines.map(parseLine);
  }
}

function parseLine(line: string): LoggedLine {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return { time: null, level: 'unknown', module: null, msg: line.trim(), detail: {} };
  }
  const { time, level, module, msg, service: _service, pid: _pid, hostname: _host, ...detail } = parsed;
  return {
    time: typeof time === 'string' ? time : null,
    level: typeof level === 'number' ? (LEVELS[level] ?? String(level)) : String(level),
    module: typeof module === 'string' ? module : null,
    msg: typeof msg === 'string' ? msg : '',
    detail,
  };
}
