import { compareText } from '../../core/compare';
import type { SeasonLine } from '../season-runner';
import type { WthDay } from '../wth';
import { referenceSeason, type Site } from './reference';
import { unstressedSeason } from './unstressed';

/**
 * A season's figures per zone, against the independent reference
 * (reference.ts), over the days after the first `skipDays` (the service may
 * spend them learning the root zone's state):
 * - applied / ideal: the engine's net irrigation over the reference's;
 * - stress days: days that start with depletion beyond RAW + 0.5 mm in the
 *   unstressed bucket (unstressed.ts: the water the engine applied against
 *   the zone's unstressed demand Kc x ET0), so a zone held past RAW keeps
 *   counting; `ledger_stress_days` counts the same on the engine's own
 *   ledger (a range counts when even its lower bound is), which slows down
 *   with Ks past RAW and so sees less stress;
 * - `weather` is the truth: a replay of a year with injected gaps is scored
 *   against the year without them;
 * - wasted runs: a run on a day whose rain (after the cap) alone reached the
 *   depletion the day started with: the rain would have refilled the root
 *   zone within 24 hours of the morning run.
 */

export interface ZoneScore {
  zone: string;
  days: number;
  applied_net_mm: number;
  ideal_net_mm: number;
  ratio: number | null;
  stress_days: number;
  ledger_stress_days: number;
  wasted_runs: number;
  runs: number;
}

export const SCORE_SKIP_DAYS = 14;
export const STRESS_MARGIN_MM = 0.5;

export function scoreSeason(
  lines: readonly SeasonLine[],
  weather: readonly WthDay[],
  site: Site,
  skipDays = SCORE_SKIP_DAYS,
): ZoneScore[] {
  const byDate = new Map(weather.map((w) => [w.date, w]));
  const zones = [...new Set(lines.map((l) => l.zone))].sort();
  return zones.map((zone) => {
    const mine = lines.filter((l) => l.zone === zone).sort((a, b) => compareText(a.date, b.date));
    const ref = referenceSeason(
      byDate,
      mine.map((l) => ({
        date: l.date,
        taw_mm: l.taw_mm,
        raw_mm: l.raw_mm,
        kc: l.kc,
        sun_factor: l.sun_factor,
      })),
      site,
    );
    const scored = mine.slice(skipDays);
    const unstressed = unstressedSeason(scored, byDate, site);
    const ideal = ref.slice(skipDays).reduce((s, r) => s + r.irrigation_net_mm, 0);
    const applied = scored.reduce((s, l) => s + l.irrigation_net_mm, 0);
    const startLo = (l: SeasonLine) => l.start_depletion_mm ?? l.start_depletion_range_mm?.[0] ?? 0;
    const ledgerStress = scored.filter((l) => startLo(l) > l.raw_mm + STRESS_MARGIN_MM).length;
    const stress = unstressed.filter(
      (u, i) => u.start_depletion_mm > (scored[i] as SeasonLine).raw_mm + STRESS_MARGIN_MM,
    ).length;
    const watered = scored.filter((l) => l.irrigation_net_mm > 0);
    const wasted = watered.filter(
      (l) => (l.rain_credited_mm ?? 0) > 0 && (l.rain_credited_mm ?? 0) >= startLo(l),
    ).length;
    return {
      zone,
      days: scored.length,
      applied_net_mm: round(applied),
      ideal_net_mm: round(ideal),
      ratio: ideal > 0 ? Math.round((applied / ideal) * 1000) / 1000 : null,
      stress_days: stress,
      ledger_stress_days: ledgerStress,
      wasted_runs: wasted,
      runs: watered.length,
    };
  });
}

function round(x: number): number {
  return Math.round(x * 10) / 10;
}
