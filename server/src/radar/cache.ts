import type { Clock } from '../core/clock';
import { RadarUpstreamError } from './upstream';

/**
 * The radar caches: a bounded in-memory map from a key (the snapped bbox, or
 * one key for the tropical document) to the last good answer.
 *
 * - Within `ttlMs` of its fetch an entry is served without asking upstream.
 * - After that the next request refetches. Concurrent requests for one key
 *   share a single upstream request.
 * - When the refetch fails with a RadarUpstreamError and the entry is younger
 *   than `staleLimitMs`, the old value is served marked stale, and for
 *   `STALE_RETRY_MS` further requests get it at once instead of each waiting
 *   for a failing upstream. Older than that, or never fetched: the error
 *   propagates (the routes answer 502). Failures are never cached.
 * - At most `maxEntries` keys; the least recently used goes first.
 */

export const STALE_RETRY_MS = 60_000;

export interface Served<T> {
  value: T;
  /** True when this is an older answer served because upstream failed. */
  stale: boolean;
  /** When the value was fetched (ms since the epoch). */
  fetchedMs: number;
}

interface Entry<T> {
  value: T;
  fetchedMs: number;
  ttlMs: number;
  /** While stale is being served after a failure: no upstream attempt before this. */
  retryAtMs: number;
}

export interface CacheOptions {
  clock: Clock;
  ttlMs: number;
  staleLimitMs: number;
  maxEntries: number;
  /** Told when stale is served (for the log). */
  onStale?: (key: string, error: RadarUpstreamError) => void;
}

export class RadarCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private readonly inflight = new Map<string, Promise<Served<T>>>();

  constructor(private readonly options: CacheOptions) {}

  get size(): number {
    return this.entries.size;
  }

  /** The cached value or a fresh one from `load`; `load` may shorten the TTL for this value. */
  get(key: string, load: () => Promise<{ value: T; ttlMs?: number }>): Promise<Served<T>> {
    const now = this.options.clock.nowMs();
    const entry = this.entries.get(key);
    if (entry) {
      this.touch(key, entry);
      if (now - entry.fetchedMs < entry.ttlMs) {
        return Promise.resolve({ value: entry.value, stale: false, fetchedMs: entry.fetchedMs });
      }
      if (now < entry.retryAtMs && this.usableStale(entry, now)) {
        return Promise.resolve({ value: entry.value, stale: true, fetchedMs: entry.fetchedMs });
      }
    }
    const running = this.inflight.get(key);
    if (running) return running;
    const started = this.refresh(key, load).finally(() => this.inflight.delete(key));
    this.inflight.set(key, started);
    return started;
  }

  private async refresh(key: string, load: () => Promise<{ value: T; ttlMs?: number }>): Promise<Served<T>> {
    try {
      const { value, ttlMs } = await load();
      const fetchedMs = this.options.clock.nowMs();
      this.store(key, { value, fetchedMs, ttlMs: ttlMs ?? this.options.ttlMs, retryAtMs: 0 });
      return { value, stale: false, fetchedMs };
    } catch (err) {
      const now = this.options.clock.nowMs();
      const entry = this.entries.get(key);
      if (err instanceof RadarUpstreamError && entry && this.usableStale(entry, now)) {
        entry.retryAtMs = now + STALE_RETRY_MS;
        this.options.onStale?.(key, err);
        return { value: entry.value, stale: true, fetchedMs: entry.fetchedMs };
      }
      throw err;
    }
  }

  private usableStale(entry: Entry<T>, now: number): boolean {
    return now - entry.fetchedMs <= this.options.staleLimitMs;
  }

  private touch(key: string, entry: Entry<T>): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
  }

  private store(key: string, entry: Entry<T>): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
    while (this.entries.size > this.options.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }
}
