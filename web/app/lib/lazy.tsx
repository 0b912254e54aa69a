import type { FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ErrorNotice } from '../components/error-notice';

/**
 * A page loaded on first visit (its own chunk under pkg/), so the first load
 * carries only the shell and the page being opened.
 */
export function lazyPage<P extends object>(
  load: () => Promise<{ default: FunctionComponent<P> }>,
): FunctionComponent<P> {
  let loaded: FunctionComponent<P> | null = null;
  return function LazyPage(props: P) {
    const [Page, setPage] = useState<FunctionComponent<P> | null>(() => loaded);
    const [error, setError] = useState<unknown>(null);
    useEffect(() => {
      if (Page) return;
      load()
        .then((module) => {
          loaded = module.default;
          setPage(() => module.default);
        })
        .catch(setError);
    }, []);
    if (error) return <ErrorNotice error={error} title="This page could not be loaded" />;
    if (!Page)
      return (
        <p class="loading" aria-busy="true">
          Loading…
        </p>
      );
    return <Page {...props} />;
  };
}
