import { readFileSync } from 'node:fs';

/**
 * How much of the machine one kind of client may hold (docs/http.md "Limits").
 * A connection costs a file descriptor and a body up to 1 MB of memory, and
 * the process has a fixed number of descriptors: without caps, a thousand
 * slow anonymous bodies used them all and /health stopped answering. The
 * caps keep room for everything else: bodies and streams each get a share of
 * the connections, never all of them, and each client a share of those.
 */

export interface HttpLimits {
  /** The whole request (head and body) must arrive within this; node answers 408 and closes. */
  requestTimeoutMs: number;
  /** The request head must arrive within this (slowloris sends it a byte at a time). */
  headersTimeoutMs: number;
  /** How often node looks for requests past those timeouts. */
  timeoutCheckMs: number;
  /** Open sockets in total: beyond it node closes a new connection at once. */
  maxConnections: number;
  /** Open sockets per peer address (trusted proxies carry many clients and are exempt). */
  maxConnectionsPerClient: number;
  /** Requests whose body is still arriving, in total and per client address. */
  maxBodies: number;
  maxBodiesPerClient: number;
  /** Open SSE streams in total. */
  maxStreams: number;
}

/** Descriptors kept for the database, config files, outgoing HTTP, MQTT, UDP sources and logs. */
const RESERVED_DESCRIPTORS = 256;
/** What Linux gives a process when nothing raised it (node raises its soft limit to the hard one). */
const FALLBACK_DESCRIPTORS = 1024;

/** Beyond this many sockets the event loop, not the descriptor table, is what runs out. */
const MOST_CONNECTIONS = 65_536;

export function defaultHttpLimits(descriptors = openFileLimit()): HttpLimits {
  const maxConnections = Math.min(MOST_CONNECTIONS, Math.max(64, descriptors - RESERVED_DESCRIPTORS));
  return {
    requestTimeoutMs: 60_000,
    headersTimeoutMs: 20_000,
    timeoutCheckMs: 1_000,
    maxConnections,
    maxConnectionsPerClient: 128,
    maxBodies: Math.min(64, Math.floor(maxConnections / 8)),
    maxBodiesPerClient: 8,
    maxStreams: Math.floor(maxConnections / 2),
  };
}

/** The soft RLIMIT_NOFILE of this process (Linux /proc), else the common default. */
export function openFileLimit(): number {
  try {
    const line = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    if (!line?.[1]) return FALLBACK_DESCRIPTORS;
    return line[1] === 'unlimited' ? Number.MAX_SAFE_INTEGER : Number(line[1]);
  } catch {
    return FALLBACK_DESCRIPTORS;
  }
}
