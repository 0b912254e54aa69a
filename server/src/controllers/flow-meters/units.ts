/**
 * Flow meter units to the ones the run ledger and snapshot speak: US gallons
 * per minute for a rate, US gallons for a total. Home Assistant writes a
 * volume flow rate as `gal/min`, `L/min`, `L/h`, `m³/h` (its UnitOfVolumeFlowRate);
 * the config's ASCII spellings (`m3/h`) are accepted beside them.
 */

const LITRES_PER_GALLON = 3.785411784;
const GALLONS_PER_M3 = 1000 / LITRES_PER_GALLON;

const RATE_TO_GPM: Record<string, number> = {
  'gal/min': 1,
  'gal/h': 1 / 60,
  'L/min': 1 / LITRES_PER_GALLON,
  'L/h': 1 / (60 * LITRES_PER_GALLON),
  'm3/h': GALLONS_PER_M3 / 60,
  'm³/h': GALLONS_PER_M3 / 60,
  'm3/min': GALLONS_PER_M3,
  'm³/min': GALLONS_PER_M3,
};

const TOTAL_TO_GAL: Record<string, number> = {
  gal: 1,
  L: 1 / LITRES_PER_GALLON,
  m3: GALLONS_PER_M3,
  'm³': GALLONS_PER_M3,
};

/** A rate in US gal/min; null for a unit this build does not know. */
export function toGpm(value: number, unit: string): number | null {
  const factor = RATE_TO_GPM[unit];
  return factor === undefined ? null : value * factor;
}

/** A total in US gallons; null for a unit this build does not know. */
export function toGallons(value: number, unit: string): number | null {
  const factor = TOTAL_TO_GAL[unit];
  return factor === undefined ? null : value * factor;
}
