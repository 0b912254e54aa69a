/**
 * Display units (config `deployment.units`; display only, the API keeps its
 * units of spec 1.6), pure: no Preact, so page models and their tests can use
 * it. Every formatter shows null as "unknown", never as 0.
 */

export type UnitSystem = 'imperial' | 'metric';

export const UNKNOWN = '—';

type Quantity =
  'temp_f' | 'wind_mph' | 'rain_in' | 'pressure_inhg' | 'depth_mm' | 'volume_gal' | 'pct' | 'area_sqft';

interface Shown {
  value: number;
  unit: string;
  digits: number;
}

function convert(quantity: Quantity, value: number, units: UnitSystem): Shown {
  const metric = units === 'metric';
  switch (quantity) {
    case 'temp_f':
      return metric
        ? { value: ((value - 32) * 5) / 9, unit: '°C', digits: 1 }
        : { value, unit: '°F', digits: 0 };
    case 'wind_mph':
      return metric
        ? { value: value * 1.609344, unit: 'km/h', digits: 0 }
        : { value, unit: 'mph', digits: 0 };
    case 'rain_in':
      return metric ? { value: value * 25.4, unit: 'mm', digits: 1 } : { value, unit: 'in', digits: 2 };
    case 'pressure_inhg':
      return metric ? { value: value * 33.8639, unit: 'hPa', digits: 0 } : { value, unit: 'inHg', digits: 2 };
    case 'depth_mm':
      return metric ? { value, unit: 'mm', digits: 1 } : { value: value / 25.4, unit: 'in', digits: 2 };
    case 'volume_gal':
      return metric
        ? { value: value * 3.785411784, unit: 'L', digits: 0 }
        : { value, unit: 'gal', digits: 1 };
    case 'area_sqft':
      return metric
        ? { value: value * 0.09290304, unit: 'm²', digits: 1 }
        : { value, unit: 'sq ft', digits: 0 };
    case 'pct':
      return { value, unit: '%', digits: 0 };
  }
}

/** `12.5 mm` / `0.49 in`, or the unknown mark for null and non-finite values. */
export function formatQuantity(
  quantity: Quantity,
  value: number | null | undefined,
  units: UnitSystem,
): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return UNKNOWN;
  const shown = convert(quantity, value, units);
  return `${shown.value.toFixed(shown.digits)}${shown.unit === '%' || shown.unit.startsWith('°') ? '' : ' '}${shown.unit}`;
}

/** The numeric value in display units (charts), null stays null. */
export function displayValue(
  quantity: Quantity,
  value: number | null | undefined,
  units: UnitSystem,
): number | null {
  if (value === null || value === undefined || !Number.isFinite(value)) return null;
  return convert(quantity, value, units).value;
}

export function unitLabel(quantity: Quantity, units: UnitSystem): string {
  return convert(quantity, 0, units).unit;
}

export type { Quantity };

/**
 * The service's own sentences (skip reasons, plan reasons) carry numbers in
 * the API's units: `0.448 in`, `0.01 in/hr`, `38°F`, `10 mph`, `8.0..24.0 mm`.
 * Shown in a view, they follow the user's units like everything the app
 * formats, so one view never mixes inches and millimetres. Only a number
 * directly followed by its unit is touched ("lie in 8.0" is left alone).
 */
const NUMBER = '(-?\\d+(?:\\.\\d+)?)';
const SERVER_UNITS: { pattern: RegExp; quantity: Quantity; from: UnitSystem }[] = [
  { pattern: new RegExp(`${NUMBER}\\.\\.${NUMBER} mm\\b`, 'g'), quantity: 'depth_mm', from: 'metric' },
  { pattern: new RegExp(`${NUMBER} mm\\b`, 'g'), quantity: 'depth_mm', from: 'metric' },
  { pattern: new RegExp(`${NUMBER} in/hr\\b`, 'g'), quantity: 'rain_in', from: 'imperial' },
  { pattern: new RegExp(`${NUMBER} in(?![A-Za-z/])`, 'g'), quantity: 'rain_in', from: 'imperial' },
  { pattern: new RegExp(`${NUMBER}°F`, 'g'), quantity: 'temp_f', from: 'imperial' },
  { pattern: new RegExp(`${NUMBER} mph\\b`, 'g'), quantity: 'wind_mph', from: 'imperial' },
];

export function localizeUnits(text: string, units: UnitSystem): string {
  let out = text;
  for (const { pattern, quantity, from } of SERVER_UNITS) {
    if (from === units) continue;
    out = out.replace(pattern, (match, a: string, b?: string) => {
      if (b !== undefined && /\.\./.test(match)) {
        const [lo, hi] = [
          formatQuantity(quantity, Number(a), units),
          formatQuantity(quantity, Number(b), units),
        ];
        return `${lo.replace(/\s?[^\d.\s-]+$/, '')}..${hi}`;
      }
      const shown = formatQuantity(quantity, Number(a), units);
      return match.includes('/hr') ? `${shown}/h` : shown;
    });
  }
  return out;
}
