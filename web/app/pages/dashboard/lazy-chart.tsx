import { useEffect, useState } from 'preact/hooks';
import { ErrorNotice } from '../../components/error-notice';
import type { ChartProps } from '../../components/chart';

/**
 * The chart loaded on first use: the dashboard is part of the first load, and
 * uPlot (about 50 kB) should not be. Same props as components/chart.
 */

type ChartModule = typeof import('../../components/chart');
let loaded: ChartModule | null = null;

export function LazyChart(props: ChartProps) {
  const [mod, setMod] = useState<ChartModule | null>(loaded);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    if (mod) return;
    import('../../components/chart')
      .then((m) => {
        loaded = m;
        setMod(m);
      })
      .catch(setError);
  }, []);
  if (error) return <ErrorNotice error={error} title="The chart could not be loaded" />;
  if (!mod)
    return (
      <div class="chart-placeholder" style={{ height: `${props.height ?? 240}px` }} aria-busy="true">
        <p class="visually-hidden">{props.summary}</p>
      </div>
    );
  return <mod.Chart {...props} />;
}
