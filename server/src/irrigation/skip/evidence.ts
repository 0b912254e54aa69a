/**
 * Evidence with proven bounds (spec 1.5: missing evidence is null, never 0).
 *
 * A quantity the inputs fully determine has a `value`. A quantity they only
 * partly determine has no value but may still have proven bounds: rain cannot
 * be negative, so the hours that do report an amount are a lower bound on the
 * interval's total; the coldest reported hour is an upper bound on the
 * window's minimum. A bound can prove a threshold crossed (a skip) or proved
 * not crossed (a pass); when it proves neither, the answer is unknown. A gap
 * never proves a dry window (spec 9.5, 2.0.0).
 *
 * Pure: no I/O, no clock.
 */

export interface Evidence {
  /** The exact value, or null when the inputs do not determine it. */
  readonly value: number | null;
  /** A proven lower bound, or null when nothing bounds the quantity from below. */
  readonly at_least: number | null;
  /** A proven upper bound, or null when nothing bounds the quantity from above. */
  readonly at_most: number | null;
  /** Units (hours or days) that carried a valid value. */
  readonly have: number;
  /** Units the quantity needs. */
  readonly need: number;
}

/** A bare number is an exact value; null is no evidence. */
export type EvidenceLike = Evidence | number | null;

export type Tri = 'yes' | 'no' | 'unknown';

export type Comparison = '>=' | '>' | '<=' | '<';

export function exact(value: number, need = 1): Evidence {
  return { value, at_least: value, at_most: value, have: need, need };
}

export function noEvidence(need = 1): Evidence {
  return { value: null, at_least: null, at_most: null, have: 0, need };
}

/** Evidence that only bounds the quantity; collapses to an exact value when the bounds meet. */
export function bounded(atLeast: number | null, atMost: number | null, have: number, need: number): Evidence {
  if (atLeast !== null && atMost !== null && atLeast === atMost) {
    return { value: atLeast, at_least: atLeast, at_most: atMost, have, need };
  }
  return { value: null, at_least: atLeast, at_most: atMost, have, need };
}

export function toEvidence(input: EvidenceLike): Evidence {
  if (input === null) return noEvidence();
  if (typeof input === 'number') return Number.isFinite(input) ? exact(input) : noEvidence();
  return input;
}

/** The value when exact, else null: what a nullable output field publishes. */
export function valueOf(input: EvidenceLike): number | null {
  return toEvidence(input).value;
}

/**
 * Whether the quantity satisfies `op threshold`, as far as the evidence proves:
 * `yes` and `no` are proven, `unknown` is not a guess in either direction.
 */
export function compareEvidence(input: EvidenceLike, op: Comparison, threshold: number): Tri {
  const e = toEvidence(input);
  const lo = e.value ?? e.at_least;
  const hi = e.value ?? e.at_most;
  switch (op) {
    case '>=':
      if (lo !== null && lo >= threshold) return 'yes';
      if (hi !== null && hi < threshold) return 'no';
      return 'unknown';
    case '>':
      if (lo !== null && lo > threshold) return 'yes';
      if (hi !== null && hi <= threshold) return 'no';
      return 'unknown';
    case '<=':
      if (hi !== null && hi <= threshold) return 'yes';
      if (lo !== null && lo > threshold) return 'no';
      return 'unknown';
    case '<':
      if (hi !== null && hi < threshold) return 'yes';
      if (lo !== null && lo >= threshold) return 'no';
      return 'unknown';
  }
}

/** Kleene AND: a proven `no` anywhere decides; otherwise any unknown leaves it unknown. */
export function allOf(values: readonly Tri[]): Tri {
  if (values.includes('no')) return 'no';
  if (values.includes('unknown')) return 'unknown';
  return 'yes';
}

/** Strips float noise from sums (0.1 + 0.2). */
export function round(value: number, digits: number): number {
  return Number(value.toFixed(digits));
}

/** A finite number, else null (NaN and infinities are no measurement). */
export function finite(value: number | null | undefined): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** A finite number >= 0, else null (a negative rain amount or wind speed is garbage, not evidence). */
export function nonNegative(value: number | null | undefined): number | null {
  const v = finite(value);
  return v !== null && v >= 0 ? v : null;
}

/** A finite percentage in 0..100, else null. */
export function percent(value: number | null | undefined): number | null {
  const v = finite(value);
  return v !== null && v >= 0 && v <= 100 ? v : null;
}

// ---- Plain-English formatting for reasons (numbers by core/units) ----

/**
 * "0.12 in", or for partial evidence "at least 0.12 in (3 of 4 hours reported)",
 * "at most 0.3 in", or "unknown (0 of 4 hours reported)".
 */
export function describeEvidence(input: EvidenceLike, format: (v: number) => string, unit = 'hours'): string {
  const e = toEvidence(input);
  if (e.value !== null) return format(e.value);
  const coverage = e.need > 1 || e.have > 0 ? ` (${e.have} of ${e.need} ${unit} reported)` : '';
  if (e.at_least !== null && e.at_most !== null) {
    return `between ${format(e.at_least)} and ${format(e.at_most)}${coverage}`;
  }
  if (e.at_least !== null) return `at least ${format(e.at_least)}${coverage}`;
  if (e.at_most !== null) return `at most ${format(e.at_most)}${coverage}`;
  return `unknown${coverage}`;
}
