/**
 * Seeded randomness for the season generators: the same seed and key give the
 * same numbers on every machine, and each key (a target date, an issue and
 * lead) has its own stream, so widening a generated range never changes the
 * numbers of the dates it already had.
 */

/** 32-bit FNV-1a of a string. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** mulberry32: a small, well-mixed 32-bit generator; returns uniforms in [0, 1). */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface SeededStream {
  uniform(): number;
  /** Standard normal (Box-Muller). */
  normal(): number;
}

export function seededStream(seed: number, key: string): SeededStream {
  const next = mulberry32(hash(`${seed}:${key}`));
  return {
    uniform: next,
    normal: () => {
      const u = Math.max(next(), 1e-12);
      return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next());
    },
  };
}

/** A seeded Fisher-Yates shuffle (a copy). */
export function seededShuffle<T>(items: readonly T[], seed: number, key: string): T[] {
  const out = [...items];
  const s = seededStream(seed, key);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(s.uniform() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}
