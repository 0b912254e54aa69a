/**
 * One day of the FAO-56 root-zone water balance (Allen et al. 1998,
 * chapter 8, eq. 84 and 85), with the order of Example 38: the day's water
 * (credited rain and net irrigation) enters first, anything beyond field
 * capacity leaves as deep percolation, and the crop then uses
 * ETc adj = Ks x Kc x ET0 (x the sun exposure factor) from what is left.
 *
 *   D' = max(0, Dr,i-1 - min(P, cap) - I)          water in
 *   DP = max(0, min(P, cap) + I - Dr,i-1)           deep percolation
 *   Ks = 1 when D' <= RAW, else (TAW - D') / (TAW - RAW)   eq. 84
 *   Dr,i = min(TAW, D' + Ks ETc)                    eq. 85
 *
 * Ks is taken from the depletion after the day's water is in: water that
 * reached the roots before the crop drew on it relieves that day's stress.
 * On a day with no water in this is Dr,i-1, as in eq. 84.
 *
 * Unknown evidence keeps the answer honest: the depletion is carried as an
 * interval [lo, hi] and a null input spans everything it could have been
 * (rain anywhere in [0, cap], irrigation in [0, inf), ET0 in [0, inf), or
 * in its band when one is given). The
 * end interval holds every end state consistent with the evidence; it
 * collapses to a point when water in reaches the upper bound (a known
 * saturating day erases history). Pure: no I/O, no clock.
 */

export interface DepletionBounds {
  lo: number;
  hi: number;
}

export interface RootZone {
  taw_mm: number;
  raw_mm: number;
  /** Per-day rain credit cap, mm. */
  rain_cap_mm: number;
}

export interface RootZoneDayInput {
  /** Reference ET0, mm; null = no evidence. */
  et0_mm: number | null;
  kc: number;
  /** Sun exposure factor (Landscape Coefficient Method); 1 in full sun. */
  sun_factor: number;
  /** Rain, mm; null = no evidence (a measured 0 is 0). */
  rain_mm: number | null;
  /** Net irrigation that reached the root zone, mm; null = unknown amount. */
  net_irrigation_mm: number | null;
  /**
   * Bounds on the day's ET0, mm, when it is estimated from bridged inputs or
   * unknown but bounded by the record (irrigation/soil/et0-bridge.ts): the
   * end range spans them instead of the point (or, unknown, [0, inf)).
   */
  et0_band_mm?: DepletionBounds | null;
}

export type MissingInput = 'et0' | 'rain' | 'irrigation';

export interface RootZoneDay {
  start: DepletionBounds;
  /** min(rain, cap); null when the rain is unknown. */
  rain_credited_mm: number | null;
  /** Depletion after the day's water entered, before the crop used any. */
  after_water: DepletionBounds;
  /** Water beyond field capacity that day; null unless start and water are exact. */
  drainage_mm: number | null;
  /** Water stress coefficient (eq. 84) of the day; null unless the after-water state is exact. */
  ks: number | null;
  /** Potential ETc = Kc x ET0 x sun factor; null when ET0 is unknown. */
  etc_mm: number | null;
  /** ETc adj = Ks x ETc, what the crop drew; null unless both are known. */
  etc_adj_mm: number | null;
  end: DepletionBounds;
  missing: MissingInput[];
}

const EXACT_EPSILON_MM = 1e-9;

export function isExact(b: DepletionBounds): boolean {
  return b.hi - b.lo <= EXACT_EPSILON_MM;
}

/** FAO-56 eq. 84. TAW == RAW (MAD 100 %): no reduction until the bucket is empty. */
export function waterStressCoefficient(
  depletionMm: number,
  zone: Pick<RootZone, 'taw_mm' | 'raw_mm'>,
): number {
  if (depletionMm >= zone.taw_mm) return 0;
  if (depletionMm <= zone.raw_mm) return 1;
  const span = zone.taw_mm - zone.raw_mm;
  if (span <= 0) return 1;
  return Math.max(0, Math.min(1, (zone.taw_mm - depletionMm) / span));
}

export function rootZoneDay(startIn: DepletionBounds, day: RootZoneDayInput, zone: RootZone): RootZoneDay {
  check(zone, day);
  const taw = zone.taw_mm;
  const start = { lo: clamp(startIn.lo, 0, taw), hi: clamp(Math.max(startIn.lo, startIn.hi), 0, taw) };
  const missing: MissingInput[] = [];
  if (day.et0_mm === null) missing.push('et0');
  if (day.rain_mm === null) missing.push('rain');
  if (day.net_irrigation_mm === null) missing.push('irrigation');

  const credit = day.rain_mm === null ? null : Math.min(day.rain_mm, zone.rain_cap_mm);
  const waterMax = (credit ?? zone.rain_cap_mm) + (day.net_irrigation_mm ?? Infinity);
  const waterMin = (credit ?? 0) + (day.net_irrigation_mm ?? 0);
  const afterWater = { lo: Math.max(0, start.lo - waterMax), hi: Math.max(0, start.hi - waterMin) };
  const waterExact = credit !== null && day.net_irrigation_mm !== null;
  const drainage = waterExact && isExact(start) ? Math.max(0, waterMin - start.lo) : null;

  const etc = day.et0_mm === null ? null : day.kc * day.et0_mm * day.sun_factor;
  const band = day.et0_band_mm ?? null;
  const etcOf = (et0: number) => day.kc * et0 * day.sun_factor;
  const end = band
    ? { lo: lowestEnd(afterWater, etcOf(band.lo), zone), hi: highestEnd(afterWater, etcOf(band.hi), zone) }
    : {
        lo: lowestEnd(afterWater, etc ?? 0, zone),
        // Unknown ET0: any state short of wilting point could have been drawn down to TAW.
        hi: etc === null ? taw : highestEnd(afterWater, etc, zone),
      };
  const ks = isExact(afterWater) ? waterStressCoefficient(afterWater.lo, zone) : null;
  return {
    start,
    rain_credited_mm: credit,
    after_water: afterWater,
    drainage_mm: drainage,
    ks,
    etc_mm: etc,
    etc_adj_mm: ks !== null && etc !== null ? ks * etc : null,
    end: isExact(end) ? { lo: end.lo, hi: end.lo } : end,
    missing,
  };
}

/** End depletion from an after-water depletion d: min(TAW, d + Ks(d) ETc). */
function endOf(d: number, etc: number, zone: RootZone): number {
  return Math.min(zone.taw_mm, d + waterStressCoefficient(d, zone) * etc);
}

/**
 * endOf rises with slope 1 up to RAW and then with slope 1 - ETc / (TAW - RAW):
 * a dry range narrows (its drier end draws less). Were that slope negative,
 * the maximum would sit at RAW; it is a candidate, though with the TAW limit
 * it never exceeds the ends.
 */
function lowestEnd(b: DepletionBounds, etc: number, zone: RootZone): number {
  return Math.min(endOf(b.lo, etc, zone), endOf(b.hi, etc, zone));
}

function highestEnd(b: DepletionBounds, etc: number, zone: RootZone): number {
  const candidates = [b.lo, b.hi];
  if (zone.raw_mm > b.lo && zone.raw_mm < b.hi) candidates.push(zone.raw_mm);
  return Math.max(...candidates.map((d) => endOf(d, etc, zone)));
}

function clamp(x: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, x));
}

function check(zone: RootZone, day: RootZoneDayInput): void {
  const nonNegative: [number | null, string][] = [
    [zone.taw_mm, 'TAW mm'],
    [zone.raw_mm, 'RAW mm'],
    [zone.rain_cap_mm, 'rain cap mm'],
    [day.kc, 'Kc'],
    [day.sun_factor, 'sun factor'],
    [day.et0_mm, 'ET0 mm'],
    [day.rain_mm, 'rain mm'],
    [day.net_irrigation_mm, 'net irrigation mm'],
    [day.et0_band_mm?.lo ?? null, 'ET0 band low mm'],
    [day.et0_band_mm?.hi ?? null, 'ET0 band high mm'],
  ];
  for (const [x, what] of nonNegative) {
    if (x !== null && !(Number.isFinite(x) && x >= 0)) {
      throw new RangeError(`${what} ${x} is not a finite number >= 0`);
    }
  }
  if (day.et0_band_mm && day.et0_band_mm.lo > day.et0_band_mm.hi)
    throw new RangeError(`ET0 band ${day.et0_band_mm.lo}..${day.et0_band_mm.hi} is reversed`);
  if (zone.raw_mm > zone.taw_mm) throw new RangeError(`RAW ${zone.raw_mm} exceeds TAW ${zone.taw_mm}`);
}
