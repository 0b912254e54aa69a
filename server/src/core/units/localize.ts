import { sentenceQuantity, sentenceRange, UNITS, type Quantity, type UnitSystem } from './quantities';

/**
 * Reads a service sentence in another unit system (pure). The server writes
 * its reasons in `deployment.units` through quantities.ts, always as a number
 * (or a range `lo..hi`) directly followed by a unit label of that table:
 * "0.448 in", "38°F", "3.3°C", "8..24 mm", "16.1 km/h", "0.25 mm/h". A sentence
 * written in the other system (stored before the owner switched units, or
 * before reasons followed them at all: those were in mm for depths and in, in/hr,
 * °F, mph for weather) is converted here, in either direction, number by
 * number, with the same sentence precision the server would have used.
 * Only a number directly followed by a known unit is touched ("lie in 8.0" is
 * left alone).
 */

interface LabelMeaning {
  quantity: Quantity;
  from: UnitSystem;
}

/** Depth first: "in" and "mm" read as depths (the same length either way). */
const ORDER: readonly Quantity[] = [
  'depth_mm',
  'rain_in',
  'rain_rate_in_hr',
  'temp_f',
  'wind_mph',
  'pressure_inhg',
  'volume_gal',
  'flow_gpm',
  'area_sqft',
];

const LABELS: ReadonlyMap<string, LabelMeaning> = (() => {
  const out = new Map<string, LabelMeaning>();
  for (const quantity of ORDER) {
    const { imperial, metric } = UNITS[quantity];
    if (imperial.unit === metric.unit) continue;
    if (!out.has(imperial.unit)) out.set(imperial.unit, { quantity, from: 'imperial' });
    if (!out.has(metric.unit)) out.set(metric.unit, { quantity, from: 'metric' });
  }
  return out;
})();

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const NUMBER = '(-?\\d+(?:\\.\\d+)?)';
const ALTERNATION = [...LABELS.keys()]
  .sort((a, b) => b.length - a.length)
  .map(escape)
  .join('|');
/** prefix | number | ..number | label; the label must not run on into a word ("inHg" is its own label). */
const PATTERN = new RegExp(
  `(^|[^\\w.])${NUMBER}(?:\\.\\.${NUMBER})?\\s?(${ALTERNATION})(?![A-Za-z0-9/²])`,
  'g',
);

export function localizeUnits(text: string, units: UnitSystem): string {
  return text.replace(PATTERN, (match, prefix: string, a: string, b: string | undefined, label: string) => {
    const meaning = LABELS.get(label);
    if (!meaning || meaning.from === units) return match;
    const from = UNITS[meaning.quantity][meaning.from];
    const lo = from.api(Number(a));
    const shown =
      b === undefined
        ? sentenceQuantity(meaning.quantity, lo, units)
        : sentenceRange(meaning.quantity, lo, from.api(Number(b)), units);
    return `${prefix}${shown}`;
  });
}
