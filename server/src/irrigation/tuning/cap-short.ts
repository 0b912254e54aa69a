import type { SoilLedgerRow } from '../../store/soil-ledger';
import { numberBand } from './fields';
import { capSeconds, ceilToFiveMinutes, type WateredSession } from './watered-sessions';

/**
 * Rule 6 of the decision policy (docs/irrigation.md, "A binding cap is
 * surfaced the same day"): the per-run ceiling (`max_run_minutes`, the one
 * in force now) cut the zone's last CONSECUTIVE_SESSIONS or more watered
 * sessions short in a row, and the soil ledger closed a day since the first
 * of them with the zone past RAW (even the depletion's lower bound). The
 * `cap_binding_past_raw` anomaly and the `max_run_minutes` deriver both read
 * this, so the notice and the recommendation tell the same story. Pure.
 */

export const CONSECUTIVE_SESSIONS = 2;

/** A closed day of the zone's soil ledger, as far as this rule reads it. */
export interface CapLedgerDay {
  date_local: string;
  raw_mm: number;
  /** The day's closing depletion, [lo, hi] (lo = hi when known). */
  closing_range_mm: readonly [number, number];
  irrigation_seconds: number;
  irrigation_net_mm: number;
}

export interface ShortSession {
  date_local: string;
  session_id: string;
  planned_seconds: number;
  needed_seconds: number;
  delivered_seconds: number;
  /** Net mm the ceiling left out: the ledger's net rate of that day x the seconds cut; null when the ledger has no water that day. */
  shortfall_mm: number | null;
}

export interface CapShortfall {
  /** The ceiling in force now, minutes. */
  cap_minutes: number;
  /** The consecutive bound sessions, oldest first. */
  sessions: ShortSession[];
  /** Ledger days since the first of them that closed past RAW, oldest first. */
  past_raw: { date_local: string; depletion_mm: number; raw_mm: number }[];
  /** The largest need of those sessions, seconds. */
  need_seconds: number;
  /** That need rounded up to 5 minutes within 5..360; null when the band's maximum is already the cap. */
  suggested_minutes: number | null;
}

export function capLeftShort(
  sessions: readonly WateredSession[],
  maxRunMinutes: number | null | undefined,
  ledger: readonly CapLedgerDay[],
): CapShortfall | null {
  const cap = capSeconds(maxRunMinutes);
  const bound = trailingBound(sessions, cap);
  if (bound.length < CONSECUTIVE_SESSIONS) return null;
  const first = bound[0]!.plan.date_local;
  const pastRaw = ledger
    .filter((d) => d.date_local >= first && d.closing_range_mm[0] > d.raw_mm)
    .map((d) => ({ date_local: d.date_local, depletion_mm: d.closing_range_mm[0], raw_mm: d.raw_mm }));
  if (pastRaw.length === 0) return null;
  const need = Math.max(...bound.map((s) => s.plan.uncapped_seconds));
  const band = numberBand('max_run_minutes');
  const suggested = Math.min(band.max, Math.max(band.min, ceilToFiveMinutes(need)));
  return {
    cap_minutes: cap / 60,
    sessions: bound.map((s) => shortSession(s, ledger)),
    past_raw: pastRaw,
    need_seconds: need,
    suggested_minutes: suggested * 60 > cap ? suggested : null,
  };
}

/** A ledger row's closing depletion: a known one is its own range. */
export function closingRange(row: SoilLedgerRow): readonly [number, number] {
  if (row.depletion_mm !== null) return [row.depletion_mm, row.depletion_mm];
  return row.depletion_range_mm ?? [0, row.taw_mm];
}

/** The newest watered sessions, oldest first, as long as each needed more than the cap. */
function trailingBound(sessions: readonly WateredSession[], cap: number): WateredSession[] {
  const ordered = [...sessions].sort((a, b) => a.plan.epoch - b.plan.epoch);
  const bound: WateredSession[] = [];
  for (let i = ordered.length - 1; i >= 0; i -= 1) {
    const s = ordered[i]!;
    if (s.plan.uncapped_seconds <= cap) break;
    bound.unshift(s);
  }
  return bound;
}

function shortSession(s: WateredSession, ledger: readonly CapLedgerDay[]): ShortSession {
  const day = ledger.find((d) => d.date_local === s.plan.date_local);
  const netPerSecond =
    day && day.irrigation_seconds > 0 && day.irrigation_net_mm > 0
      ? day.irrigation_net_mm / day.irrigation_seconds
      : null;
  const cut = Math.max(0, s.plan.uncapped_seconds - s.plan.planned_seconds);
  return {
    date_local: s.plan.date_local,
    session_id: s.plan.session_id,
    planned_seconds: s.plan.planned_seconds,
    needed_seconds: s.plan.uncapped_seconds,
    delivered_seconds: s.delivered_seconds,
    shortfall_mm: netPerSecond === null ? null : round1(netPerSecond * cut),
  };
}

/** The sentence of one ledger day past RAW. */
export function pastRawLine(d: CapShortfall['past_raw'][number]): string {
  return `${d.date_local}: the day closed at ${round1(d.depletion_mm)} mm depletion, past RAW ${round1(d.raw_mm)} mm`;
}

/** The sentence of one session the cap cut short. */
export function shortSessionLine(s: ShortSession): string {
  const lost = s.shortfall_mm === null ? '' : `, ${s.shortfall_mm} mm net left out`;
  return (
    `${s.date_local}: planned ${Math.round(s.planned_seconds / 60)} min of ${Math.round(s.needed_seconds / 60)} min needed` +
    `${lost} (session ${s.session_id})`
  );
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}
