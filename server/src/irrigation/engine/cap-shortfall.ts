import { round } from './soil-model';
import type { PlanZoneDay, ZonePlan } from './water-plan';

/**
 * What the per-run ceiling (`max_run_minutes`) leaves out of a planned
 * session, in mm: the seconds the ceiling cut x the zone's rate, through the
 * capture efficiency for a soil zone (net water into the root zone, as its
 * run was sized) and as gross depth for a weekly zone (its budget is gross).
 * 0 when the ceiling does not bind (nothing is left out); null when there is
 * no rate to convert with. Rule 6 of docs/irrigation.md.
 */
export function capShortfallMm(
  plan: ZonePlan,
  day: PlanZoneDay | undefined,
  captureEfficiency: number,
): number | null {
  if (!day || !day.session_capped) return 0;
  const rate = plan.zone.precip_rate_mm_hr;
  if (rate === null) return null;
  const cut = Math.max(0, day.uncapped_seconds - day.planned_seconds);
  const efficiency = plan.zone.model === 'soil' ? captureEfficiency : 1;
  return round((cut / 3600) * rate * efficiency);
}
