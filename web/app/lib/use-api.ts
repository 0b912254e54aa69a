import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, ApiFailure } from './api';

/** One GET, re-run when `path` changes or `reload()` is called. */
export interface Loaded<T> {
  data: T | null;
  error: ApiFailure | null;
  loading: boolean;
  reload(): void;
}

export function useApi<T>(path: string | null): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<ApiFailure | null>(null);
  const [loading, setLoading] = useState(path !== null);
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    if (path === null) return;
    const controller = new AbortController();
    setLoading(true);
    api<T>(path, { signal: controller.signal })
      .then((value) => {
        setData(value);
        setError(null);
      })
      .catch((err: unknown) => {
        if (err instanceof ApiFailure) setError(err);
      })
      .finally(() => !controller.signal.aborted && setLoading(false));
    return () => controller.abort();
  }, [path, generation]);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  return { data, error, loading, reload };
}
