import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { UnitSystem } from './unit-format';

/** The user's display units for the whole app (the formatters are in unit-format.ts). */

export * from './unit-format';

export const UnitsContext = createContext<UnitSystem>('imperial');
export const useUnits = (): UnitSystem => useContext(UnitsContext);
