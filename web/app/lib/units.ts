import { createContext } from 'preact';
import { useContext } from 'preact/hooks';

/**
 * Display units (config `deployment.units`; display only, the API keeps its
 * units of spec 1.6). Every formatter shows null as "unknown", never as 0.
 */

export type UnitSystem = 'imperial' | 'metric';

export const UnitsContext = createContext<UnitSystem>('imperial');
export const useUnits = (): UnitSystem => useContext(UnitsContext);

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
