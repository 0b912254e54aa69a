import type { ChartSeries } from './chart-types';
import './chart-legend.css';

/**
 * The legend under a chart: each series' swatch and label, and its value at
 * the cursor while one hovers the plot. Ours rather than uPlot's so it takes
 * its space before the chart library has loaded (the dashboard's chart
 * placeholder renders it too).
 */

function swatch(series: ChartSeries): string {
  const color = series.color.startsWith('--') ? `var(${series.color})` : series.color;
  return series.style === 'bars'
    ? `background: ${color}`
    : `border-top: 3px ${series.dash ? 'dashed' : 'solid'} ${color}`;
}

export function ChartLegend({ series, index }: { series: ChartSeries[]; index: number | null }) {
  return (
    <ul class="chart-legend" aria-hidden="true">
      {series.map((s) => {
        const value = index === null ? undefined : s.values[index];
        return (
          <li key={s.label}>
            <span class={`chart-swatch${s.style === 'bars' ? ' bar' : ''}`} style={swatch(s)} />
            {s.label}
            {value !== undefined && (
              <span class="chart-value">
                {value === null ? ' —' : ` ${value.toFixed(s.digits ?? 1)}${s.unit ? ` ${s.unit}` : ''}`}
              </span>
            )}
          </li>
        );
      })}
    </ul>
  );
}
