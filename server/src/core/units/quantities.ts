/**
 * Display units: THE one definition of each quantity's unit, conversion and
 * precision, shared by the server (reason sentences, notices) and the web
 * app (web/app/lib/unit-format.ts re-exports it), so a number reads the same
 * wherever it is shown. Config `deployment.units` picks the system; the API's
 * machine fields keep their own units (spec 1.6). Pure, no imports: the
 * browser bundle compiles this file too.
 *
 * Two precisions per unit: `digits` for a figure standing alone (a tile, a
 * chart label: fixed, "0.50 in") and `sentence` for a number inside a
 * sentence (trailing zeros trimmed, one more digit where a threshold needs
 * it: "0.448 in is below the 0.5 in threshold").
 */

export type UnitSystem = 'imperial' | 'metric';

export const UNKNOWN = '—';

export type Quantity =
  | 'temp_f'
  | 'wind_mph'
  | 'rain_in'
  | 'rain_rate_in_hr'
  | 'pressure_inhg'
  | 'depth_mm'
  | 'volume_gal'
  | 'flow_gpm'
  | 'pct'
  | 'area_sqft';

/** One system's way of showing a quantity: API value -> shown value, and back. */
export interface UnitDefinition {
  unit: string;
  digits: number;
  sentence: number;
  show: (apiValue: number) => number;
  api: (shownValue: number) => number;
}

const same = (v: number) => v;
const times = (k: number): Pick<UnitDefinition, 'show' | 'api'> => ({
  show: (v) => v * k,
  api: (v) => v / k,
});

const MM_PER_IN = 25.4;
const KMH_PER_MPH = 1.609344;
const HPA_PER_INHG = 33.8639;
const L_PER_GAL = 3.785411784;
const SQM_PER_SQFT = 0.09290304;

export const UNITS: Readonly<Record<Quantity, Readonly<Record<UnitSystem, UnitDefinition>>>> = {
  temp_f: {
    imperial: { unit: '°F', digits: 0, sentence: 1, show: same, api: same },
    metric: {
      unit: '°C',
      digits: 1,
      sentence: 1,
      show: (f) => ((f - 32) * 5) / 9,
      api: (c) => (c * 9) / 5 + 32,
    },
  },
  wind_mph: {
    imperial: { unit: 'mph', digits: 0, sentence: 1, show: same, api: same },
    metric: { unit: 'km/h', digits: 0, sentence: 1, ...times(KMH_PER_MPH) },
  },
  rain_in: {
    imperial: { unit: 'in', digits: 2, sentence: 3, show: same, api: same },
    metric: { unit: 'mm', digits: 1, sentence: 1, ...times(MM_PER_IN) },
  },
  rain_rate_in_hr: {
    imperial: { unit: 'in/hr', digits: 2, sentence: 3, show: same, api: same },
    metric: { unit: 'mm/h', digits: 1, sentence: 2, ...times(MM_PER_IN) },
  },
  pressure_inhg: {
    imperial: { unit: 'inHg', digits: 2, sentence: 2, show: same, api: same },
    metric: { unit: 'hPa', digits: 0, sentence: 0, ...times(HPA_PER_INHG) },
  },
  depth_mm: {
    imperial: { unit: 'in', digits: 2, sentence: 2, ...times(1 / MM_PER_IN) },
    metric: { unit: 'mm', digits: 1, sentence: 1, show: same, api: same },
  },
  volume_gal: {
    imperial: { unit: 'gal', digits: 1, sentence: 0, show: same, api: same },
    metric: { unit: 'L', digits: 0, sentence: 0, ...times(L_PER_GAL) },
  },
  flow_gpm: {
    imperial: { unit: 'gal/min', digits: 1, sentence: 2, show: same, api: same },
    metric: { unit: 'L/min', digits: 1, sentence: 1, ...times(L_PER_GAL) },
  },
  area_sqft: {
    imperial: { unit: 'sq ft', digits: 0, sentence: 0, show: same, api: same },
    metric: { unit: 'm²', digits: 1, sentence: 1, ...times(SQM_PER_SQFT) },
  },
  pct: {
    imperial: { unit: '%', digits: 0, sentence: 1, show: same, api: same },
    metric: { unit: '%', digits: 0, sentence: 1, show: same, api: same },
  },
};

export function unitOf(quantity: Quantity, units: UnitSystem): UnitDefinition {
  return UNITS[quantity][units];
}

/** Degrees and percent hug the number ("38°F", "45%"); every other unit gets a space ("0.5 in"). */
export function withUnit(number: string, unit: string): string {
  return unit === '%' || unit.startsWith('°') ? `${number}${unit}` : `${number} ${unit}`;
}

function known(value: number | null | undefined): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** `12.5 mm` / `0.49 in`, fixed digits, or the unknown mark for null and non-finite values. */
export function formatQuantity(
  quantity: Quantity,
  value: number | null | undefined,
  units: UnitSystem,
): string {
  if (!known(value)) return UNKNOWN;
  const u = unitOf(quantity, units);
  return withUnit(u.show(value).toFixed(u.digits), u.unit);
}

/** The numeric value in display units (charts), null stays null. */
export function displayValue(
  quantity: Quantity,
  value: number | null | undefined,
  units: UnitSystem,
): number | null {
  return known(value) ? unitOf(quantity, units).show(value) : null;
}

export function unitLabel(quantity: Quantity, units: UnitSystem): string {
  return unitOf(quantity, units).unit;
}

/** A number rounded to `digits` with trailing zeros trimmed ("0.1", "38", "-3.3"); never "-0". */
export function trimmed(value: number, digits: number): string {
  const text = String(Number(value.toFixed(digits)));
  return text === '-0' ? '0' : text;
}

/** A quantity inside a sentence: "0.448 in", "38°F", "3.3°C", "16.1 km/h". */
export function sentenceQuantity(quantity: Quantity, value: number, units: UnitSystem): string {
  const u = unitOf(quantity, units);
  return withUnit(trimmed(u.show(value), u.sentence), u.unit);
}

/**
 * A range inside a sentence, one unit for both ends: "0.31..0.94 in". A range
 * narrower than the sentence precision reads as its one number ("0.44 in",
 * never "0.44..0.44 in").
 */
export function sentenceRange(quantity: Quantity, lo: number, hi: number, units: UnitSystem): string {
  const u = unitOf(quantity, units);
  const [a, b] = [trimmed(u.show(lo), u.sentence), trimmed(u.show(hi), u.sentence)];
  return withUnit(a === b ? a : `${a}..${b}`, u.unit);
}

/**
 * The sentence formatters of one unit system, for code that writes many
 * sentences; each takes the API's value (inches, in/hr, °F, mph, mm, %).
 */
export interface Wording {
  units: UnitSystem;
  /** One number with its unit. */
  q(quantity: Quantity, value: number): string;
  /** `lo..hi unit`. */
  range(quantity: Quantity, lo: number, hi: number): string;
  rain(inches: number): string;
  rate(inchesPerHour: number): string;
  temp(degreesF: number): string;
  wind(mph: number): string;
  pct(percent: number): string;
  depth(mm: number): string;
  depthRange(loMm: number, hiMm: number): string;
}

export function wording(units: UnitSystem = 'imperial'): Wording {
  return units === 'metric' ? METRIC : IMPERIAL;
}

function makeWording(units: UnitSystem): Wording {
  const q = (quantity: Quantity, value: number) => sentenceQuantity(quantity, value, units);
  const range = (quantity: Quantity, lo: number, hi: number) => sentenceRange(quantity, lo, hi, units);
  return {
    units,
    q,
    range,
    rain: (v) => q('rain_in', v),
    rate: (v) => q('rain_rate_in_hr', v),
    temp: (v) => q('temp_f', v),
    wind: (v) => q('wind_mph', v),
    pct: (v) => q('pct', v),
    depth: (v) => q('depth_mm', v),
    depthRange: (lo, hi) => range('depth_mm', lo, hi),
  };
}

const IMPERIAL = makeWording('imperial');
const METRIC = makeWording('metric');

/** Config `deployment.units` as a unit system (anything else reads as the imperial default). */
export function unitSystemOf(value: unknown): UnitSystem {
  return value === 'metric' ? 'metric' : 'imperial';
}
