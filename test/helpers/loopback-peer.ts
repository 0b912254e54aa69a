import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the loopback peer saw it. */
export interface SeenRequest {
  method: string;
  /** Path and query exactly as sent. */
  url: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  /** The request body as text ('' when none). */
  body: string;
  /** The same bytes, for binary bodies (an encrypted push message). */
  rawBody: Buffer;
}

export interface PeerReply {
  status: number;
  body: string;
  contentType?: string;
  headers?: Record<string, string>;
  /** Hold the request open and never answer (timeouts). */
  hang?: boolean;
}

export type PeerHandler = (req: SeenRequest, base: string) => PeerReply;

/** A small HTTP server on 127.0.0.1 that answers like the provider and records what it was asked. */
export class LoopbackPeer {
  readonly requests: SeenRequest[] = [];
  private server: http.Server | null = null;
  baseUrl = '';

  constructor(public handler: PeerHandler) {}

  async start(): Promise<this> {
    this.server = http.createServer(async (req, res) => {
      const url = new URL(req.url ?? '/', 'http://loopback');
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const seen: SeenRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        rawBody: Buffer.concat(chunks),
      };
      this.requests.push(seen);
      const reply = this.handler(seen, this.baseUrl);
      if (reply.hang) return;
      res.writeHead(reply.status, {
        'content-type': reply.contentType ?? 'application/json; charset=utf-8',
        ...reply.headers,
      });
      res.end(reply.body);
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.baseUrl = `http://127.0.0.1:${port}`;
    return this;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    this.server = null;
  }
}

export function json(
  status: number,
  body: unknown,
  contentType = 'application/json; charset=utf-8',
  headers?: Record<string, string>,
): PeerReply {
  return { status, body: JSON.stringify(body), contentType, ...(headers ? { headers } : {}) };
}

/** A base URL nothing listens on (a port that was just freed). */
export async function refusedBaseUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/** The rejection of a promise that must reject (fails the test when it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}
