import { useEffect, useState } from 'preact/hooks';
import { api, ApiFailure, apiUrl } from './api';

/**
 * A live snapshot: one GET of the snapshot, then the SSE feed's `snapshot`
 * events (spec 6). EventSource retries by itself after a dropped connection;
 * when it gives up (an HTTP error answer) we reconnect with back-off, and at
 * once when the browser comes back online. `live` is false while disconnected
 * so the UI can say the numbers may be stale.
 */

export type Feed = 'weather' | 'irrigation' | 'forecast';

const PATHS: Record<Feed, { snapshot: string; stream: string }> = {
  weather: { snapshot: 'snapshot', stream: 'stream' },
  irrigation: { snapshot: 'irrigation/snapshot', stream: 'irrigation/stream' },
  forecast: { snapshot: 'forecast/snapshot', stream: 'forecast/stream' },
};

export interface LiveSnapshot<T> {
  data: T | null;
  live: boolean;
  error: ApiFailure | null;
  /** Browser time (ms) of the last snapshot received. */
  receivedAt: number | null;
  /** Fetches the snapshot again (after an action changed it). */
  refresh(): void;
}

const MAX_BACKOFF_MS = 30_000;

export function useLiveSnapshot<T>(feed: Feed): LiveSnapshot<T> {
  const [data, setData] = useState<T | null>(null);
  const [live, setLive] = useState(false);
  const [error, setError] = useState<ApiFailure | null>(null);
  const [receivedAt, setReceivedAt] = useState<number | null>(null);
  const [generation, setGeneration] = useState(0);

  useEffect(() => {
    const paths = PATHS[feed];
    let source: EventSource | null = null;
    let retryTimer: ReturnType<typeof setTimeout> | null = null;
    let backoff = 1000;
    let stopped = false;

    const accept = (value: T) => {
      setData(value);
      setReceivedAt(Date.now());
      setError(null);
    };
    const load = () =>
      api<T>(paths.snapshot)
        .then((value) => !stopped && accept(value))
        .catch((err: unknown) => !stopped && err instanceof ApiFailure && setError(err));

    const connect = () => {
      if (stopped) return;
      source?.close();
      source = new EventSource(apiUrl(paths.stream), { withCredentials: true });
      source.addEventListener('open', () => {
        backoff = 1000;
        setLive(true);
      });
      source.addEventListener('snapshot', (event) => {
        try {
          accept(JSON.parse((event as MessageEvent<string>).data) as T);
        } catch {
          /* a malformed event is ignored; the next one replaces it */
        }
      });
      source.addEventListener('error', () => {
        setLive(false);
        if (source?.readyState === EventSource.CLOSED) scheduleRetry();
      });
    };
    const scheduleRetry = () => {
      if (stopped || retryTimer) return;
      retryTimer = setTimeout(() => {
        retryTimer = null;
        void load();
        connect();
      }, backoff);
      backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
    };
    const online = () => {
      backoff = 1000;
      if (retryTimer) clearTimeout(retryTimer);
      retryTimer = null;
      void load();
      connect();
    };

    void load();
    connect();
    window.addEventListener('online', online);
    return () => {
      stopped = true;
      source?.close();
      if (retryTimer) clearTimeout(retryTimer);
      window.removeEventListener('online', online);
    };
  }, [feed, generation]);

  return { data, live, error, receivedAt, refresh: () => setGeneration((g) => g + 1) };
}
