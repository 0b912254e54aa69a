/**
 * A fetch that reports each call's latency (request sent to response headers,
 * or to the failure) and outcome to an observer: /metrics' last-fetch latency
 * and cloud error counts, and the fetch latencies in /diagnostics. The
 * observer is told the provider the fetch was made for, never the URL (it may
 * carry an API key).
 */

export interface FetchObservation {
  /** The provider kind (`open_meteo`, `nws`, `ecowitt_local`, ...). */
  provider: string;
  /** What the fetch served: a weather source or a forecast provider. */
  use: 'weather' | 'forecast';
  latencyMs: number;
  /** null on success (an HTTP status below 400); else `http_<status>`, `timeout` or `network`. */
  errorCode: string | null;
  epochMs: number;
}

export type FetchObserver = (observation: FetchObservation) => void;

export function timedFetch(
  inner: typeof fetch,
  provider: string,
  use: FetchObservation['use'],
  observe: FetchObserver,
  nowMs: () => number = Date.now,
): typeof fetch {
  return async (input, init) => {
    const started = performance.now();
    const report = (errorCode: string | null) =>
      observe({ provider, use, latencyMs: performance.now() - started, errorCode, epochMs: nowMs() });
    let response: Response;
    try {
      response = await inner(input, init);
    } catch (err) {
      report(isTimeout(err) ? 'timeout' : 'network');
      throw err;
    }
    report(response.status >= 400 ? `http_${response.status}` : null);
    return response;
  };
}

function isTimeout(err: unknown): boolean {
  const name = (err as { name?: unknown } | null)?.name;
  return name === 'TimeoutError' || name === 'AbortError';
}
