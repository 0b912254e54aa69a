/** Exact by definition (international yard and pound agreement, 1959): 1 in = 25.4 mm. */
export const MM_PER_INCH = 25.4;

export function inchesToMm(inches: number): number {
  return inches * MM_PER_INCH;
}
