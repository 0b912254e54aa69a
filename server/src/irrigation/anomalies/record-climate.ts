/**
 * The site's own ET0 climate from its daily weather record (pure): the
 * recorded days within CLIMATE_HALF_WINDOW_DAYS of a date's day of the year,
 * any year the record holds (400 days), before the week being judged. With
 * at least MIN_CLIMATE_DAYS of them, a day's ET0 above CLIMATE_FACTOR x the
 * highest of them is outside the site's climate: a weather that warm, dry,
 * windy and clear would have shown in a month of its neighbours, and a
 * sensor or unit slip does not need the physical limit to be caught.
 */

export const CLIMATE_HALF_WINDOW_DAYS = 30;
export const MIN_CLIMATE_DAYS = 20;
export const CLIMATE_FACTOR = 2;

export interface RecordEt0Day {
  date_local: string;
  et0_mm: number;
}

export interface ClimateBound {
  high_mm: number;
  /** The highest recorded ET0 behind it, and how many days were weighed. */
  highest_mm: number;
  days: number;
}

/** The climate's upper bound for `date`, from days dated before `before`; null with too few days. */
export function climateBound(
  date: string,
  record: readonly RecordEt0Day[],
  before: string,
): ClimateBound | null {
  const near = record.filter(
    (d) => d.date_local < before && dayOfYearDistance(d.date_local, date) <= CLIMATE_HALF_WINDOW_DAYS,
  );
  if (near.length < MIN_CLIMATE_DAYS) return null;
  const highest = Math.max(...near.map((d) => d.et0_mm));
  return { high_mm: CLIMATE_FACTOR * highest, highest_mm: highest, days: near.length };
}

/** Days between two dates' days of the year, around the year's end (Dec 30 and Jan 2 are 3 apart). */
export function dayOfYearDistance(a: string, b: string): number {
  const diff = Math.abs(dayOfYear(a) - dayOfYear(b));
  return Math.min(diff, 365 - diff);
}

function dayOfYear(date: string): number {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return Math.round((Date.UTC(y, m - 1, d) - Date.UTC(y, 0, 0)) / 86_400_000);
}
