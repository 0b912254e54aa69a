import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../core/logger';
import { jsonBytes } from './encoded-json';

/**
 * One Server-Sent Events hub for the three feeds (weather, irrigation,
 * forecast). Each publish serialises once and writes to every client. A client
 * that cannot keep up is dropped instead of buffering without bound: it
 * reconnects and gets the current snapshot, which is all it needs.
 */

export interface FeedOptions {
  /** Comment line interval that keeps proxies (HA ingress) from closing an idle stream. */
  keepAliveMs: number;
  /** The snapshot a new client receives at once; null when there is none yet. */
  current?: () => unknown;
}

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
  private readonly log: Logger;

  constructor(
    logger: Logger,
    private readonly maxBufferedBytes = DEFAULT_MAX_BUFFERED_BYTES,
  ) {
    this.log = logger.child({ module: 'sse' });
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
  subscribe(name: string, req: IncomingMessage, res: ServerResponse): void {
    this.attach(this.feed(name), req, res);
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
  }

  private feed(name: string): Feed {
    const feed = this.feeds.get(name);
    if (!feed) throw new Error(`SSE feed "${name}" is not defined`);
    return feed;
  }

  private attach(feed: Feed, req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    res.flushHeaders();
    req.socket.setNoDelay(true);
    feed.clients.add(res);
    res.on('close', () => feed.clients.delete(res));
    this.write(feed, res, 'retry: 5000\n\n');
    const current = feed.options.current?.();
    if (current !== undefined && current !== null) {
      this.write(feed, res, eventFrame(current));
    }
  }

  private keepAlive(feed: Feed): void {
    for (const client of feed.clients) this.write(feed, client, ': keep-alive\n\n');
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
