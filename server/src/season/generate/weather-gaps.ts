import type { WthDay } from '../wth';
import type { GenerateRange } from './forecasts';
import { seededShuffle } from './seeded-random';

/**
 * Weather-file transforms for season replays. They only ever turn values
 * into null (gaps) or measured rain into 0 (a dry year): a null in the file
 * stays null, and no other number is made up.
 */

export type GapKind = 'rain' | 'temperature' | 'sensors' | 'row';

export interface InjectedGap {
  date: string;
  kind: GapKind;
}

/** The 11 gap days: rain unknown on 6, temperatures missing on 2, the other sensors on 2, one empty row. */
export const DEFAULT_GAPS: Readonly<Record<GapKind, number>> = {
  rain: 6,
  temperature: 2,
  sensors: 2,
  row: 1,
};

/** Days into the range before the first gap (the replay's score skips its first 14 days). */
export const GAP_SKIP_DAYS = 14;

const CLEARED: Record<GapKind, readonly (keyof WthDay)[]> = {
  rain: ['rain_mm'],
  temperature: ['tmax_c', 'tmin_c', 'tdew_c'],
  sensors: ['srad_mj_m2', 'rh_max_pct', 'rh_min_pct', 'vapr_kpa', 'wind_2m_ms'],
  row: [
    'srad_mj_m2',
    'tmax_c',
    'tmin_c',
    'vapr_kpa',
    'tdew_c',
    'rh_max_pct',
    'rh_min_pct',
    'wind_2m_ms',
    'rain_mm',
    'etref_mm',
    'measured',
  ],
};

/** Seeded distinct gap days in the range (after its first GAP_SKIP_DAYS), each with its kind. */
export function injectGaps(
  days: readonly WthDay[],
  range: GenerateRange,
  seed: number,
  counts: Readonly<Record<GapKind, number>> = DEFAULT_GAPS,
): { days: WthDay[]; gaps: InjectedGap[] } {
  const candidates = days.map((d) => d.date).filter((d) => d >= range.from && d <= range.to);
  const eligible = candidates.slice(GAP_SKIP_DAYS);
  const kinds = (Object.entries(counts) as [GapKind, number][]).flatMap(([kind, n]) =>
    Array<GapKind>(n).fill(kind),
  );
  if (kinds.length > eligible.length)
    throw new RangeError(`${kinds.length} gap days do not fit in ${eligible.length} eligible days`);
  const chosen = seededShuffle(eligible, seed, 'gaps').slice(0, kinds.length);
  const gaps = chosen.map((date, i) => ({ date, kind: kinds[i] as GapKind })).sort(byDate);
  const kindOf = new Map(gaps.map((g) => [g.date, g.kind]));
  return {
    days: days.map((d) => {
      const kind = kindOf.get(d.date);
      if (!kind) return d;
      const out = { ...d } as Record<string, unknown>;
      for (const key of CLEARED[kind]) out[key] = null;
      return out as unknown as WthDay;
    }),
    gaps,
  };
}

/** The same year with no rain: measured rain becomes 0, unknown rain stays null. */
export function dryWeather(days: readonly WthDay[]): WthDay[] {
  return days.map((d) => ({ ...d, rain_mm: d.rain_mm === null ? null : 0 }));
}

function byDate(a: InjectedGap, b: InjectedGap): number {
  return a.date < b.date ? -1 : a.date > b.date ? 1 : 0;
}
