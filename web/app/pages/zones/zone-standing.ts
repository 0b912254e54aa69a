import type { IrrigationSnapshot, ZoneVerdict } from './irrigation-types';

/**
 * Where a zone stands today, from the engine's verdict (pure): the one answer
 * the dashboard, the zones page, the zone page and the snapshot share. A zone
 * whose depletion passed its trigger (RAW) is not "due" on its own say: the
 * engine decides (it may be waiting for forecast rain within its stress
 * allowance, held by a measured rule, or watering).
 */

export type StandingKind = 'watering' | 'waiting' | 'held' | 'unknown' | 'not_due';

/**
 * Reason codes of a due soil zone that waits for forecast rain (the engine's
 * policy, docs/irrigation.md "Deciding under uncertainty").
 */
export const WAITING_FOR_RAIN: ReadonlySet<string> = new Set([
  'forecast_rain_expected',
  'rain_today_forecast',
  'rain_next_4h',
  'tomorrow_rain',
  'rain_3day',
]);

/** The dashboard's group titles, also the zone badges' words. */
export const STANDING_LABELS: Record<StandingKind, string> = {
  watering: 'Watering today',
  waiting: 'Waiting for rain',
  held: 'Due, but held today',
  unknown: 'Soil water unknown',
  not_due: 'Not due',
};

export function standingKindOf(row: ZoneVerdict): StandingKind {
  if (row.verdict === 'water' && row.planned_seconds > 0) return 'watering';
  if (row.water_need === 'unknown') return 'unknown';
  if (row.water_need === 'due') return WAITING_FOR_RAIN.has(row.reason_code) ? 'waiting' : 'held';
  return 'not_due';
}

/** The zone's standing in the snapshot; null when the snapshot has no verdict for it (not known). */
export function zoneStandingOf(snapshot: IrrigationSnapshot, slug: string): StandingKind | null {
  const row = snapshot.zone_verdicts?.find((v) => v.zone === slug);
  return row ? standingKindOf(row) : null;
}
