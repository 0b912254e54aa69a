/** Exact by definition (international yard and pound agreement, 1959): 1 in = 25.4 mm. */
export const MM_PER_INCH = 25.4;

export function inchesToMm(inches: number): number {
  return inches * MM_PER_INCH;
}

/** Exact by definition: 1 US gallon = 231 in³ = 3.785411784 L. */
export const LITRES_PER_US_GALLON = 3.785411784;
/** Exact: 1 ft = 0.3048 m. */
export const SQ_M_PER_SQ_FT = 0.09290304;

/** The depth (mm) of a volume spread evenly over an area: 1 L over 1 m² is 1 mm. */
export function depthMmOfVolume(gallons: number, areaSqft: number): number {
  return (gallons * LITRES_PER_US_GALLON) / (areaSqft * SQ_M_PER_SQ_FT);
}

/** The volume (US gal) of a depth over an area (the inverse of depthMmOfVolume). */
export function volumeGalOfDepth(mm: number, areaSqft: number): number {
  return (mm * areaSqft * SQ_M_PER_SQ_FT) / LITRES_PER_US_GALLON;
}
