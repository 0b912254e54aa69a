/** Small numeric helpers the derivers share (pure). */

/** The median of a non-empty list. */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('median of an empty list');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

export function sum(values: readonly number[]): number {
  return values.reduce((s, v) => s + v, 0);
}

/** Rounded up to the next multiple of `step` (float noise below 1e-9 of a step is ignored). */
export function ceilTo(value: number, step: number): number {
  return round(Math.ceil(value / step - 1e-9) * step, 6);
}

/** Rounded to the nearest multiple of `step`. */
export function roundTo(value: number, step: number): number {
  return round(Math.round(value / step) * step, 6);
}

export function pct(ratio: number): string {
  return `${Math.round(ratio * 100)} %`;
}
