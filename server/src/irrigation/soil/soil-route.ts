import type { SoilLedgerRow } from '../../store/soil-ledger';
import type { IrrigationSnapshot } from '../snapshot-schema';
import type { LocalCalendar } from '../skip/local-days';

/**
 * The body of GET /irrigation/soil?zone=<slug>&days=N (pure): the zone's
 * ledger rows of the last N closed local days, oldest first, and today's
 * start state and decision as the engine's latest snapshot has them, so the
 * day's decision and the ledger read side by side.
 */

export interface SoilRouteBody {
  zone: string;
  timezone: string;
  from_date: string;
  to_date: string;
  days: number;
  rows: SoilLedgerRow[];
  today: {
    date_local: string;
    depletion_mm: number | null;
    depletion_range_mm: [number, number] | null;
    reason_code: string | null;
    planned_seconds: number;
    reason: string | null;
  } | null;
}

export function soilRouteBody(
  zone: string,
  days: number,
  cal: LocalCalendar,
  rows: SoilLedgerRow[],
  snapshot: IrrigationSnapshot | null,
): SoilRouteBody {
  const plan = snapshot?.water_plan[0];
  const today = plan?.zones.find((z) => z.zone === zone) ?? null;
  return {
    zone,
    timezone: cal.timezone,
    from_date: cal.addDays(cal.today, -days),
    to_date: cal.addDays(cal.today, -1),
    days,
    rows,
    today:
      today && plan
        ? {
            date_local: plan.date_local,
            depletion_mm: today.depletion_mm,
            depletion_range_mm: today.depletion_range_mm,
            reason_code: today.reason_code,
            planned_seconds: today.planned_seconds,
            reason: today.reason,
          }
        : null,
  };
}
