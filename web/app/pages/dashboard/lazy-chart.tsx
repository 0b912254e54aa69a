import { useEffect, useState } from 'preact/hooks';
import { ChartLegend } from '../../components/chart-legend';
import type { ChartProps } from '../../components/chart-types';
import { ErrorNotice } from '../../components/error-notice';

/**
 * The chart loaded on first use: the dashboard is part of the first load, and
 * uPlot (about 50 kB) should not be. Same props as components/chart. Until it
 * loads, a placeholder of the very same size (plot box, legend, summary)
 * holds its place, so nothing moves when it arrives.
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
      <figure class="chart-figure" aria-busy="true">
        <div class="chart-placeholder" style={{ height: `${props.height ?? 240}px` }} />
        <ChartLegend series={props.series} index={null} />
        <figcaption class={props.showSummary ? 'chart-summary' : 'visually-hidden'}>
          {props.summary}
        </figcaption>
      </figure>
    );
  return <mod.Chart {...props} />;
}
