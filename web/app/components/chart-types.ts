/** The chart's props (components/chart.tsx), apart so the first load can use them without uPlot. */

export interface ChartSeries {
  label: string;
  values: readonly (number | null)[];
  /** A theme variable (`--rain`) or any CSS colour. */
  color: string;
  /** Default `line`. */
  style?: 'line' | 'bars' | 'points' | 'step';
  /** The y scale this series uses (an entry of `axes`); default `y`. */
  scale?: string;
  /** Shown after the value in the legend. */
  unit?: string;
  /** Digits in the legend; default 1. */
  digits?: number;
  dash?: boolean;
  /** Draw a dot at each value (a lone value between gaps still shows). */
  markers?: boolean;
  /** Fill under a line with a faint version of its colour. */
  fill?: boolean;
  /** Bars: share of the slot between two x values (default 0.7), and where in it (-1 left, 0 centred, 1 right) so two bar series can stand side by side. */
  barSize?: number;
  barAlign?: -1 | 0 | 1;
}

export interface ChartAxis {
  scale: string;
  label: string;
  side?: 'left' | 'right';
  /** Fixed bounds; `softMax` is the least the top may be (an all-zero series still gets an axis). */
  min?: number;
  max?: number;
  softMax?: number;
  digits?: number;
  /** Keep 0 on the axis (default true; false for temperatures). */
  zero?: boolean;
}

export interface ChartProps {
  /** What the chart shows: the image's accessible name. */
  label: string;
  /** A short text account of the data, read by screen readers. */
  summary: string;
  /** X labels: epoch seconds (a time axis) or category names. */
  labels: readonly number[] | readonly string[];
  series: ChartSeries[];
  /** One per y scale; default a single left axis `y`. */
  axes?: ChartAxis[];
  height?: number;
  /** IANA time zone for a time axis (default: the browser's). */
  timeZone?: string;
  /** Epoch seconds of a dashed "now" line on a time axis. */
  now?: number | null;
  /** Time axis of whole days: ticks show dates only. */
  days?: boolean;
  /** Show the summary under the chart too (default: screen readers only). */
  showSummary?: boolean;
}
