import { formatTime } from '../../lib/time';
import type { IrrigationSnapshot, WaterPlanDay, WaterPlanZone } from '../zones/irrigation-types';

/**
 * Zones that run in a window of their own (`water_plan[].zones[].run_window`,
 * a zone's `[zones.<slug>.run_window]`) rather than the deployment's
 * `today_window`, in words (pure). Only zones with water planned carry one.
 */

export interface OwnWindow {
  zone: string;
  name: string;
  start: number;
  finish: number;
  /** Day 0: whether the window is over; null on later days (not said). */
  closed: boolean | null;
}

function ownWindowOf(z: WaterPlanZone): OwnWindow | null {
  const w = z.run_window;
  if (!w || !Number.isFinite(w.start_epoch) || !Number.isFinite(w.finish_epoch)) return null;
  return {
    zone: z.zone,
    name: z.name,
    start: w.start_epoch,
    finish: w.finish_epoch,
    closed: typeof w.closed === 'boolean' ? w.closed : null,
  };
}

/** The own windows of one plan day, earliest first. */
export function ownWindowsOf(day: WaterPlanDay | undefined): OwnWindow[] {
  return (day?.zones ?? [])
    .filter((z) => z.planned_seconds > 0)
    .map(ownWindowOf)
    .filter((w): w is OwnWindow => w !== null)
    .sort((a, b) => a.start - b.start || a.name.localeCompare(b.name));
}

/** Today's own windows (plan day 0). */
export function ownWindowsToday(snapshot: IrrigationSnapshot | null): OwnWindow[] {
  return ownWindowsOf(snapshot?.water_plan?.find((d) => d.day_offset === 0));
}

/** "21:00 – 21:25" on the yard's clock. */
export function windowSpan(w: Pick<OwnWindow, 'start' | 'finish'>, timeZone?: string): string {
  return `${formatTime(w.start, timeZone)} – ${formatTime(w.finish, timeZone)}`;
}
