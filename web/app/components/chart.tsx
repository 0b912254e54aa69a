import { useEffect, useId, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { ChartLegend } from './chart-legend';
import type { ChartAxis, ChartProps } from './chart-types';
import './chart.css';

/**
 * A small uPlot wrapper: series over shared x labels (epoch seconds for a
 * time axis, or strings for categories), responsive to its container's width,
 * coloured from the theme's CSS variables (light and dark), destroyed on
 * unmount. For screen readers the plot is one image named by `label`, with
 * `summary` as its description: the canvas itself says nothing.
 *
 * A null value is a gap (unknown), never drawn as zero.
 *
 * The figure's size is fixed before uPlot draws (the plot box has its height
 * from the first render, the legend is ours, not uPlot's), so a chart that
 * arrives late moves nothing around it (no layout shift).
 */

export type { ChartAxis, ChartProps, ChartSeries } from './chart-types';

const DEFAULT_AXES: ChartAxis[] = [{ scale: 'y', label: '' }];

function themeColor(el: Element, value: string): string {
  if (!value.startsWith('--')) return value;
  return getComputedStyle(el).getPropertyValue(value).trim() || '#888';
}

/** `#rrggbb` -> the same colour at `alpha`, for fills; other notations are returned as is. */
function faint(color: string, alpha: number): string {
  const m = /^#([0-9a-f]{6})$/i.exec(color);
  if (!m?.[1]) return color;
  const n = parseInt(m[1], 16);
  return `rgba(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255}, ${alpha})`;
}

function useColorScheme(): number {
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    const query = window.matchMedia?.('(prefers-color-scheme: dark)');
    if (!query) return;
    const bump = () => setGeneration((g) => g + 1);
    query.addEventListener('change', bump);
    return () => query.removeEventListener('change', bump);
  }, []);
  return generation;
}

export function Chart({
  label,
  summary,
  labels,
  series,
  axes = DEFAULT_AXES,
  height = 240,
  timeZone,
  now = null,
  days = false,
  showSummary = false,
}: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const summaryId = useId();
  const scheme = useColorScheme();
  const [cursor, setCursor] = useState<number | null>(null);

  const empty = !series.some((s) => s.values.some((v) => v !== null && Number.isFinite(v)));

  useEffect(() => {
    const el = box.current;
    if (!el || empty) return;
    const categorical = labels.length > 0 && typeof labels[0] === 'string';
    const xs = categorical ? labels.map((_, i) => i) : (labels as readonly number[]).slice();
    const muted = themeColor(el, '--muted');
    const border = themeColor(el, '--border');
    const text = themeColor(el, '--text');

    const scales: uPlot.Scales = { x: { time: !categorical } };
    for (const axis of axes) {
      scales[axis.scale] = {
        range: (_u, dataMin, dataMax) => {
          const hasData = Number.isFinite(dataMin) && Number.isFinite(dataMax);
          const zero = axis.zero !== false;
          const pad = hasData && !zero ? Math.max(1, (dataMax - dataMin) * 0.1) : 0;
          let lo = axis.min ?? (hasData ? (zero ? Math.min(0, dataMin) : dataMin - pad) : 0);
          let hi = axis.max ?? (hasData ? dataMax + pad : 1);
          if (axis.softMax !== undefined) hi = Math.max(hi, axis.softMax);
          if (hi <= lo) hi = lo + 1;
          if (!zero && axis.min === undefined) lo = Math.floor(lo);
          return [lo, axis.max ?? (zero ? hi * 1.05 : Math.ceil(hi))];
        },
      };
    }

    const xAxis: uPlot.Axis = {
      stroke: muted,
      grid: { stroke: border, width: 1 },
      ticks: { stroke: border, width: 1 },
      space: 56,
      ...(categorical
        ? { values: (_u: uPlot, splits: number[]) => splits.map((i) => String(labels[i] ?? '')) }
        : days
          ? {
              values: (_u: uPlot, splits: number[]) =>
                splits.map((s) =>
                  new Date(s * 1000).toLocaleDateString(undefined, {
                    month: 'short',
                    day: 'numeric',
                    timeZone,
                  }),
                ),
            }
          : {}),
    };
    const yAxes: uPlot.Axis[] = axes.map((axis, i) => ({
      scale: axis.scale,
      label: axis.label,
      labelSize: 18,
      labelFont: '12px system-ui, sans-serif',
      side: axis.side === 'right' ? 1 : 3,
      stroke: muted,
      grid: { show: i === 0, stroke: border, width: 1 },
      ticks: { stroke: border, width: 1 },
      size: 46,
      values: (_u: uPlot, splits: number[]) => splits.map((v) => v.toFixed(axis.digits ?? 0)),
    }));

    const opts: uPlot.Options = {
      width: Math.max(200, Math.floor(el.clientWidth)),
      height,
      scales,
      axes: [xAxis, ...yAxes],
      legend: { show: false },
      cursor: { drag: { x: false, y: false }, points: { size: 6 } },
      ...(timeZone && !categorical
        ? { tzDate: (ts: number) => uPlot.tzDate(new Date(ts * 1000), timeZone) }
        : {}),
      series: [
        {
          label: categorical ? '' : 'Time',
          value: categorical
            ? (_u, v) => (v === null ? '' : String(labels[v] ?? ''))
            : (_u, v) =>
                v === null
                  ? ''
                  : new Date(v * 1000).toLocaleString(undefined, {
                      weekday: 'short',
                      month: 'short',
                      day: 'numeric',
                      ...(days ? {} : { hour: '2-digit', minute: '2-digit' }),
                      timeZone,
                    }),
        },
        ...series.map((s): uPlot.Series => {
          const color = themeColor(el, s.color);
          const style = s.style ?? 'line';
          let paths: uPlot.Series.PathBuilder | undefined;
          if (style === 'bars') {
            paths = uPlot.paths.bars?.({ size: [s.barSize ?? 0.7, 40], align: s.barAlign ?? 0 });
          } else if (style === 'step') paths = uPlot.paths.stepped?.({ align: 1 });
          else if (style === 'points') paths = () => null;
          return {
            label: s.label,
            scale: s.scale ?? axes[0]?.scale ?? 'y',
            stroke: color,
            width: style === 'bars' ? 1 : 2,
            fill: style === 'bars' ? faint(color, 0.75) : s.fill ? faint(color, 0.15) : undefined,
            dash: s.dash ? [6, 4] : undefined,
            paths,
            points: { show: style === 'points' || !!s.markers, size: 6, fill: color, stroke: color },
            spanGaps: false,
            value: (_u, v) =>
              v === null || v === undefined
                ? '—'
                : `${v.toFixed(s.digits ?? 1)}${s.unit ? ` ${s.unit}` : ''}`,
          };
        }),
      ],
      hooks: {
        setCursor: [(u) => setCursor(u.cursor.idx ?? null)],
        ...(now !== null && !categorical
          ? {
              draw: [
                (u) => {
                  const x = u.valToPos(now, 'x', true);
                  const { left, top, width, height: h } = u.bbox;
                  if (!Number.isFinite(x) || x < left || x > left + width) return;
                  const ctx = u.ctx;
                  ctx.save();
                  ctx.strokeStyle = text;
                  ctx.lineWidth = Math.max(1, devicePixelRatio);
                  ctx.setLineDash([4 * devicePixelRatio, 4 * devicePixelRatio]);
                  ctx.beginPath();
                  ctx.moveTo(x, top);
                  ctx.lineTo(x, top + h);
                  ctx.stroke();
                  ctx.restore();
                },
              ],
            }
          : {}),
      },
    };

    const data = [xs, ...series.map((s) => s.values.slice())] as uPlot.AlignedData;
    const plot = new uPlot(opts, data, el);
    const observer = new ResizeObserver((entries) => {
      const width = Math.floor(entries[0]?.contentRect.width ?? 0);
      if (width > 0 && width !== plot.width) plot.setSize({ width, height });
    });
    observer.observe(el);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
  }, [labels, series, axes, height, timeZone, now, days, scheme, empty]);

  return (
    <figure class="chart-figure">
      {empty ? (
        // Nothing known to draw: say so instead of an empty grid, in the same space.
        <div
          class="chart-empty"
          style={{ height: `${height}px` }}
          role="img"
          aria-label={label}
          aria-describedby={summaryId}
        >
          No data to chart yet.
        </div>
      ) : (
        <div
          ref={box}
          class="chart"
          style={{ height: `${height}px` }}
          role="img"
          aria-label={label}
          aria-describedby={summaryId}
        />
      )}
      <ChartLegend series={series} index={empty ? null : cursor} />
      <figcaption id={summaryId} class={showSummary ? 'chart-summary' : 'visually-hidden'}>
        {summary}
      </figcaption>
    </figure>
  );
}
