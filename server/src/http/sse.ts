import type { IncomingMessage, ServerResponse } from 'node:http';
import { isHeadRequest } from './head-as-get';
import type { FastifyRequest } from 'fastify';
import type { Logger } from '../core/logger';
import { jsonBytes } from './encoded-json';
import { ShedReport } from './load-shedding';

/**
 * One Server-Sent Events hub for the three feeds (weather, irrigation,
 * forecast). Each publish serialises once and writes to every client. A client
 * that cannot keep up is dropped instead of buffering without bound: it
 * reconnects and gets the current snapshot, which is all it needs.
 *
 * A stream opened on the strength of a credential (an API token, a session)
 * carries a check of that credential: `revalidate()` (called when a
 * credential is revoked) and every keep-alive tick (a session that expired)
 * end the streams whose credential is no longer valid. At most `maxStreams`
 * streams are open at once, so idle streams cannot take every connection.
 */

export interface FeedOptions {
  /** Comment line interval that keeps proxies (HA ingress) from closing an idle stream. */
  keepAliveMs: number;
  /** The snapshot a new client receives at once; null when there is none yet. */
  current?: () => unknown;
}

/** True while the credential that opened a stream is still valid. */
export type StreamGuard = () => boolean;

interface Feed {
  options: FeedOptions;
  clients: Set<ServerResponse>;
  timer: NodeJS.Timeout;
}

export const SSE_EVENT = 'snapshot';
/** Unsent bytes a client may lag behind before it is dropped. */
export const DEFAULT_MAX_BUFFERED_BYTES = 1024 * 1024;

/** A `snapshot` event; an object's JSON comes from the bytes the snapshot routes serve too. */
function eventFrame(data: unknown): string {
  const json =
    typeof data === 'object' && data !== null ? jsonBytes(data).toString('utf8') : JSON.stringify(data);
  return `event: ${SSE_EVENT}\ndata: ${json}\n\n`;
}

export class SseHub {
  private readonly feeds = new Map<string, Feed>();
  private readonly guards = new Map<ServerResponse, StreamGuard>();
  private readonly log: Logger;
  private readonly shed: ShedReport;
  private open = 0;

  constructor(
    logger: Logger,
    private readonly maxBufferedBytes = DEFAULT_MAX_BUFFERED_BYTES,
    private readonly maxStreams = Number.POSITIVE_INFINITY,
  ) {
    this.log = logger.child({ module: 'sse' });
    this.shed = new ShedReport(this.log, 'streams: too many open');
  }

  /** Another stream may open (below `maxStreams`); a request refused for want of room is counted. */
  hasRoom(request?: FastifyRequest): boolean {
    if (this.open < this.maxStreams) return true;
    if (request) this.shed.refuse(request);
    return false;
  }

  defineFeed(name: string, options: FeedOptions): void {
    if (this.feeds.has(name)) throw new Error(`SSE feed "${name}" is defined twice`);
    const feed: Feed = {
      options,
      clients: new Set(),
      timer: setInterval(() => this.keepAlive(feed), options.keepAliveMs),
    };
    feed.timer.unref();
    this.feeds.set(name, feed);
  }

  /**
   * Subscribes a client to a feed. Works on the raw node request and response
   * (a fastify route calls `reply.hijack()` first), so any server can use it.
   */
  subscribe(name: string, req: IncomingMessage, res: ServerResponse, guard?: StreamGuard): void {
    this.attach(this.feed(name), req, res, guard);
  }

  /** Ends every stream whose credential is no longer valid (a token revoked, a session ended). */
  revalidate(): void {
    for (const [client, guard] of this.guards) if (!guard()) this.end(client);
  }

  /** Sends a `snapshot` event to every client of the feed. */
  publish(name: string, data: unknown): void {
    const feed = this.feed(name);
    if (feed.clients.size === 0) return;
    const frame = eventFrame(data);
    for (const client of feed.clients) this.write(feed, client, frame);
  }

  clientCount(name: string): number {
    return this.feed(name).clients.size;
  }

  /** Shutdown: end every stream and stop the keep-alive timers. */
  closeAll(): void {
    for (const feed of this.feeds.values()) {
      clearInterval(feed.timer);
      for (const client of feed.clients) client.end();
      feed.clients.clear();
    }
    this.guards.clear();
  }

  private feed(name: string): Feed {
    const feed = this.feeds.get(name);
    if (!feed) throw new Error(`SSE feed "${name}" is not defined`);
    return feed;
  }

  private attach(feed: Feed, req: IncomingMessage, res: ServerResponse, guard?: StreamGuard): void {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    res.flushHeaders();
    // A HEAD asks for the headers only; the stream would never end.
    if (isHeadRequest(req)) {
      res.end();
      return;
    }
    req.socket.setNoDelay(true);
    feed.clients.add(res);
    this.open += 1;
    if (guard) this.guards.set(res, guard);
    res.on('close', () => {
      feed.clients.delete(res);
      this.guards.delete(res);
      this.open -= 1;
    });
    this.write(feed, res, 'retry: 5000\n\n');
    const current = feed.options.current?.();
    if (current !== undefined && current !== null) {
      this.write(feed, res, eventFrame(current));
    }
  }

  private keepAlive(feed: Feed): void {
    for (const client of feed.clients) {
      const guard = this.guards.get(client);
      if (guard && !guard()) this.end(client);
      else this.write(feed, client, ': keep-alive\n\n');
    }
  }

  /** Ends a stream; EventSource reconnects and meets the auth gate like any new request. */
  private end(client: ServerResponse): void {
    this.guards.delete(client);
    client.end();
  }

  private write(feed: Feed, client: ServerResponse, frame: string): void {
    if (client.writableLength > this.maxBufferedBytes) {
      feed.clients.delete(client);
      this.log.warn({ buffered: client.writableLength }, 'dropped a slow SSE client');
      client.destroy();
      return;
    }
    client.write(frame);
  }
}
