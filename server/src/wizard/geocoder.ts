import type { Clock } from '../core/clock';
import { Mutex } from '../core/mutex';
import { geocode, type GeocodeCandidate, type GeocodeDeps } from './geocode';
import { WizardError } from './wizard-error';

/**
 * GET /wizard/geocode kept within Nominatim's usage policy (at most one
 * request per second, results cached):
 *
 * - Cache: the normalised query (Unicode NFKC, lower case, whitespace
 *   collapsed) -> its candidates, for 24 h, the 100 most recently used
 *   queries. Failures are not cached.
 * - Throttle, as a queue: upstream requests start one at a time, each at least
 *   1 s after the previous one started. A request waits its turn instead of
 *   being refused (a person typing an address, not a batch); beyond 10
 *   waiting, 429 `geocode_busy`. The same query already on its way shares
 *   that request.
 */

export const GEOCODE_CACHE_TTL_MS = 24 * 60 * 60 * 1000;
export const GEOCODE_CACHE_SIZE = 100;
export const GEOCODE_INTERVAL_MS = 1000;
export const GEOCODE_QUEUE_LIMIT = 10;

export interface GeocoderDeps extends GeocodeDeps {
  clock: Clock;
  /** Waits out the throttle (tests advance a fake clock instead). */
  sleep?: (ms: number) => Promise<void>;
}

interface CacheEntry {
  candidates: GeocodeCandidate[];
  expiresMs: number;
}

export class Geocoder {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly inFlight = new Map<string, Promise<GeocodeCandidate[]>>();
  private readonly turns = new Mutex();
  private lastStartMs = Number.NEGATIVE_INFINITY;
  private waiting = 0;

  constructor(private readonly deps: GeocoderDeps) {}

  async search(query: string): Promise<GeocodeCandidate[]> {
    const key = normaliseQuery(query);
    const cached = this.cached(key);
    if (cached) return [...cached];
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.lookUp(key, query.trim().replace(/\s+/g, ' '));
      this.inFlight.set(key, pending);
    }
    return [...(await pending)];
  }

  private async lookUp(key: string, query: string): Promise<GeocodeCandidate[]> {
    try {
      // Wrapped: the turn ends when the request starts, not when it answers.
      const { upstream } = await this.inTurn(() => ({ upstream: geocode(this.deps, query) }));
      const candidates = await upstream;
      this.remember(key, candidates);
      return candidates;
    } finally {
      this.inFlight.delete(key);
    }
  }

  /** Runs `start` in this request's turn: starts 1 s apart, one after another; answers may overlap. */
  private async inTurn<T>(start: () => T): Promise<T> {
    if (this.waiting >= GEOCODE_QUEUE_LIMIT) {
      throw new WizardError(429, 'geocode_busy', 'too many address searches at once: try again shortly');
    }
    this.waiting += 1;
    try {
      return await this.turns.run(async () => {
        const wait = this.lastStartMs + GEOCODE_INTERVAL_MS - this.deps.clock.nowMs();
        if (wait > 0) await (this.deps.sleep ?? sleep)(wait);
        this.lastStartMs = this.deps.clock.nowMs();
        return start();
      });
    } finally {
      this.waiting -= 1;
    }
  }

  private cached(key: string): GeocodeCandidate[] | null {
    const entry = this.cache.get(key);
    if (!entry) return null;
    this.cache.delete(key);
    if (entry.expiresMs <= this.deps.clock.nowMs()) return null;
    this.cache.set(key, entry); // now the most recently used
    return entry.candidates;
  }

  private remember(key: string, candidates: GeocodeCandidate[]): void {
    this.cache.delete(key);
    this.cache.set(key, { candidates, expiresMs: this.deps.clock.nowMs() + GEOCODE_CACHE_TTL_MS });
    for (const oldest of this.cache.keys()) {
      if (this.cache.size <= GEOCODE_CACHE_SIZE) break;
      this.cache.delete(oldest);
    }
  }
}

export function normaliseQuery(query: string): string {
  return query.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase();
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
