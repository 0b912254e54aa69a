import type { SeasonLine } from '../season-runner';
import type { WthDay } from '../wth';
import { penmanMonteith, type Site } from './reference';

/**
 * The root zone as the crop would have drawn it without stress: a bucket fed
 * the water the engine applied and the measured rain, drawn down by the
 * zone's unstressed demand Kc x sun factor x ET0 (the scorer's own
 * Penman-Monteith on the measured day). The engine's ledger draws only
 * Ks x Kc x ET0 once past RAW, so its depletion creeps towards TAW and a dry
 * spell looks milder than the crop felt it; this bucket does not slow down.
 *
 * - Start: the engine's start-of-day depletion on the first line given (a
 *   range's lower bound; 0, field capacity, when it knew nothing). The
 *   score gives the lines after the learning days: a deficit from the
 *   replay's first days (an empty install starts at TAW) would otherwise
 *   never heal in a dry climate, where the engine refills exactly what its
 *   ledger says.
 * - Rain: what the engine credited when it knew the day's rain (its per-day
 *   cap applied), else the measured rain (a gap day's truth).
 * - ET0: the measured day's; the engine's own when the file itself lacks it; 0
 *   when neither exists (the file's own holes, not the engine's).
 * - Depletion stays within 0..TAW (water beyond field capacity drains; the
 *   soil holds no less than at the wilting point).
 */

export interface UnstressedDay {
  date: string;
  start_depletion_mm: number;
  demand_mm: number;
}

export function unstressedSeason(
  lines: readonly SeasonLine[],
  truth: ReadonlyMap<string, WthDay>,
  site: Site,
): UnstressedDay[] {
  const first = lines[0];
  let d = first ? (first.start_depletion_mm ?? first.start_depletion_range_mm?.[0] ?? 0) : 0;
  return lines.map((l) => {
    const measured = truth.get(l.date);
    const et0 = (measured ? penmanMonteith(measured, l.date, site) : null) ?? l.et0_mm ?? 0;
    const demand = l.kc * l.sun_factor * et0;
    const start = d;
    const trueRain = measured?.rain_mm ?? null;
    const rain =
      l.rain_mm !== null && l.rain_credited_mm !== null && (trueRain === null || l.rain_mm === trueRain)
        ? l.rain_credited_mm
        : (trueRain ?? 0);
    d = Math.max(0, d - l.irrigation_net_mm - rain);
    d = Math.min(l.taw_mm, d + demand);
    return { date: l.date, start_depletion_mm: start, demand_mm: demand };
  });
}
