import { formatDateTime, formatDuration } from '../../lib/time';
import { localizeUnits, type UnitSystem } from '../../lib/unit-format';
import type { IrrigationSnapshot, WaterPlanDay, WaterPlanZone, ZoneVerdict } from '../zones/irrigation-types';
import { windowSpan } from './own-windows';
import { standingKindOf, type StandingKind } from '../zones/zone-standing';
import type { ForecastSnapshot } from './weather-types';

/**
 * Today's verdict, where each zone stands, the next run and the 7-day strip
 * in words (pure). The engine's own reasons are quoted, in the user's units
 * and the yard's clock; nothing unknown is filled in.
 */

/** How the words are shown: the yard's time zone and the user's units (absent: as the API has them). */
export interface TextView {
  timeZone?: string;
  units?: UnitSystem;
}

function say(text: string, view: TextView): string {
  return view.units ? localizeUnits(text, view.units) : text;
}

export interface TodayVerdict {
  kind: 'water' | 'skip' | 'unknown';
  /** One sentence: "Watering today: ..." or "Skipping today because ...". */
  sentence: string;
  /** Per-zone reasons worth listing under the sentence. */
  details: string[];
}

function trimStop(text: string): string {
  return text.trim().replace(/[.\s]+$/, '');
}

/** "Already wet: 0.5 in" -> "already wet: 0.5 in" (a capitalised ordinary word only, not a name or acronym). */
function lowerFirst(text: string): string {
  return /^[A-Z][a-z]/.test(text) ? text.charAt(0).toLowerCase() + text.slice(1) : text;
}

export function todayVerdict(
  snapshot: IrrigationSnapshot | null,
  nowMs = Date.now(),
  view: TextView = {},
): TodayVerdict {
  if (!snapshot) return { kind: 'unknown', sentence: "Today's verdict is not known yet.", details: [] };
  const trace = snapshot.decision_trace ?? null;
  const verdict = trace?.verdict ?? snapshot.skip_check?.verdict ?? null;
  const rawReason = trace?.reason ?? snapshot.skip_check?.reason ?? null;
  const reason = rawReason === null ? null : say(rawReason, view);
  const rows = (snapshot.zone_verdicts ?? []).map((r) => ({ ...r, reason: say(r.reason, view) }));
  const watering = rows.filter((r) => r.verdict === 'water' && r.planned_seconds > 0);

  if (verdict === 'water' || watering.length > 0) {
    const list = watering.map((r) => `${r.name} ${formatDuration(r.planned_seconds)}`).join(', ');
    const codes = new Set(watering.map((r) => r.reason_code));
    const single = watering.length === 1 || codes.size === 1 ? watering[0] : undefined;
    const why = single ? `, because ${trimStop(stripSeconds(single.reason))}` : '';
    return {
      kind: 'water',
      sentence: `Watering today: ${list || 'zones are due'}${why}.`,
      details: single ? [] : watering.map((r) => `${r.name}: ${trimStop(stripSeconds(r.reason))}`),
    };
  }
  if (verdict === 'paused' || snapshot.skip_check?.is_paused) {
    const until = snapshot.pause_until_epoch ?? 0;
    const when = until > nowMs / 1000 ? ` until ${formatDateTime(until, view.timeZone)}` : '';
    return { kind: 'skip', sentence: `Skipping today because irrigation is paused${when}.`, details: [] };
  }
  if (verdict === 'skip' && reason) {
    const text = trace?.deciding === 'controls' ? trimStop(reason) : lowerFirst(trimStop(reason));
    return { kind: 'skip', sentence: `Skipping today because ${text}.`, details: [] };
  }
  if (verdict === 'hold') {
    return {
      kind: 'skip',
      sentence: `Skipping today because the evidence is incomplete (no water on a guess): ${trimStop(reason ?? 'a rule could not be checked')}.`,
      details: [],
    };
  }
  if (verdict === 'none') {
    // Zones whose soil water is unknown are listed by zoneStandings, with what to do about them.
    const unknown = rows.some((r) => r.water_need === 'unknown');
    return {
      kind: 'skip',
      sentence: unknown
        ? 'Not watering today: no zone is known to need water.'
        : 'Skipping today because no zone needs water.',
      details: [],
    };
  }
  if (verdict === 'skip') return { kind: 'skip', sentence: 'Skipping today (no reason given).', details: [] };
  return { kind: 'unknown', sentence: "Today's verdict is not known yet.", details: [] };
}

/** Zone reasons end in "; 1261 s" for forced runs; the minutes are shown separately. */
function stripSeconds(reason: string): string {
  return reason.replace(/;\s*\d+\s*s$/, '');
}

/** Where one zone stands today, in the engine's words. */
export interface ZoneStanding {
  slug: string;
  name: string;
  /** Why (the engine's reason, trimmed), or what is unknown. */
  reason: string;
  /** Planned seconds today (watering zones). */
  seconds: number;
}

/**
 * Every zone in one of five places: watering today; due but waiting for
 * forecast rain it can afford to wait for (the engine's bet, within the
 * zone's stress allowance); due but held (a measured skip rule, the pause, an
 * override, missing forecast evidence); soil water unknown (no water on a
 * guess: the owner can declare the zone's soil state on its page); not due.
 */
export interface ZoneStandings {
  watering: ZoneStanding[];
  waiting: ZoneStanding[];
  held: ZoneStanding[];
  unknown: ZoneStanding[];
  notDue: ZoneStanding[];
}

function standing(row: ZoneVerdict, view: TextView): ZoneStanding {
  return {
    slug: row.zone,
    name: row.name,
    reason: lowerFirst(trimStop(stripSeconds(say(row.reason, view)))),
    seconds: Math.max(0, row.planned_seconds),
  };
}

export function zoneStandings(snapshot: IrrigationSnapshot | null, view: TextView = {}): ZoneStandings {
  const out: ZoneStandings = { watering: [], waiting: [], held: [], unknown: [], notDue: [] };
  const places: Record<StandingKind, ZoneStanding[]> = {
    watering: out.watering,
    waiting: out.waiting,
    held: out.held,
    unknown: out.unknown,
    not_due: out.notDue,
  };
  for (const row of snapshot?.zone_verdicts ?? []) places[standingKindOf(row)].push(standing(row, view));
  return out;
}

function names(zones: ZoneStanding[]): string {
  const list = zones.map((z) => z.name);
  return list.length <= 1 ? (list[0] ?? '') : `${list.slice(0, -1).join(', ')} and ${list.at(-1)}`;
}

/** Why nothing is planned, without contradicting what the zones say. */
function nothingPlanned(snapshot: IrrigationSnapshot, view: TextView): string {
  const { held, waiting, unknown } = zoneStandings(snapshot, view);
  const parts: string[] = [];
  if (waiting.length > 0)
    parts.push(`${names(waiting)} ${waiting.length === 1 ? 'is' : 'are'} due but waiting for forecast rain`);
  if (held.length > 0) parts.push(`${names(held)} ${held.length === 1 ? 'is' : 'are'} due but held today`);
  if (unknown.length > 0)
    parts.push(
      `the soil water of ${names(unknown)} is unknown, so ${unknown.length === 1 ? 'it is' : 'they are'} not watered on a guess`,
    );
  if (parts.length === 0) return `No watering planned: ${NO_RUN_REASON.no_water_planned}.`;
  return `No watering planned in the next 7 days: ${parts.join('; ')}.`;
}

export interface NextRun {
  planned: boolean;
  /** Start, epoch seconds, when planned. */
  epoch: number | null;
  minutes: number | null;
  zones: { name: string; seconds: number }[];
  /** The sentence shown. */
  text: string;
}

const NO_RUN_REASON: Record<string, string> = {
  no_water_planned: 'no zone needs water in the next 7 days',
  no_legal_day: 'water is needed, but the watering restrictions allow no day in the next 7',
  no_sunrise: 'no run window can be placed (no sunrise on the days that need water)',
  no_location: 'the location is not set, so no run window can be placed',
};

export function nextRun(snapshot: IrrigationSnapshot | null, view: TextView = {}): NextRun {
  const state = snapshot?.next_run_state;
  if (!snapshot || !state)
    return { planned: false, epoch: null, minutes: null, zones: [], text: 'The next run is not known yet.' };
  if (state === 'at' && (snapshot.next_run_epoch ?? 0) > 0) {
    const epoch = snapshot.next_run_epoch as number;
    const day = snapshot.water_plan?.find((d) => d.day_offset === (snapshot.next_run_day_offset ?? 0));
    const zones = (day?.zones ?? [])
      .filter((z) => z.planned_seconds > 0)
      .map((z) => ({ name: z.name, seconds: z.planned_seconds }));
    const minutes = snapshot.next_run_total_minutes ?? null;
    const list = zones.map((z) => `${z.name} ${formatDuration(z.seconds)}`).join(', ');
    const total = minutes !== null ? `${minutes} min in all` : 'length unknown';
    return {
      planned: true,
      epoch,
      minutes,
      zones,
      text: `Next run ${formatDateTime(epoch, view.timeZone)}: ${list || 'zones not listed'} (${total}).`,
    };
  }
  return {
    planned: false,
    epoch: null,
    minutes: null,
    zones: [],
    text:
      state === 'no_water_planned'
        ? nothingPlanned(snapshot, view)
        : `No watering planned: ${NO_RUN_REASON[state] ?? state.replace(/_/g, ' ')}.`,
  };
}

export interface DaySummary {
  date: string;
  label: string;
  kind: 'water' | 'skip' | 'none' | 'unknown';
  /** Short word for the badge. */
  verdictText: string;
  reason: string | null;
  /** Total planned seconds over zones; null when the plan has no such day. */
  plannedSeconds: number | null;
  rainIn: number | null;
  rainPct: number | null;
  tempMaxF: number | null;
  tempMinF: number | null;
  et0Mm: number | null;
  et0Source: 'forecast' | 'computed' | null;
  rainEvidenceIncomplete: boolean;
}

/** "Sat 22" for "2026-11-22" (the date's own weekday, whatever the browser's zone). */
export function dayLabel(date: string, offset: number | null): string {
  if (offset === 0) return 'Today';
  if (offset === 1) return 'Tomorrow';
  const [y, m, d] = date.split('-').map(Number);
  if (!y || !m || !d) return date;
  const weekday = new Date(Date.UTC(y, m - 1, d, 12)).toLocaleDateString(undefined, {
    weekday: 'short',
    timeZone: 'UTC',
  });
  return `${weekday} ${d}`;
}

function finite(value: number | null | undefined): number | null {
  return value === null || value === undefined || !Number.isFinite(value) ? null : value;
}

function noWaterReason(day: WaterPlanDay | undefined): string | null {
  if (!day || day.zones.length === 0) return null;
  const unknown = day.zones.filter((z) => z.water_need === 'unknown');
  if (unknown.length > 0)
    return `Soil water unknown for ${unknown.map((z) => z.name).join(', ')}: no water on a guess`;
  const codes = new Set(day.zones.map((z) => z.reason_code));
  if (codes.size === 1 && codes.has('not_due')) return 'No zone is dry enough to need water';
  const first = day.zones[0];
  return codes.size === 1 && first ? trimStop(first.reason) : 'No zone needs water';
}

export function sevenDays(
  snapshot: IrrigationSnapshot | null,
  forecast: ForecastSnapshot | null,
  count = 7,
  view: TextView = {},
): DaySummary[] {
  const verdicts = snapshot?.seven_day_verdicts ?? [];
  const plan = snapshot?.water_plan ?? [];
  const daily = forecast?.daily ?? [];
  const et0 = snapshot?.decision_trace?.et0_days ?? [];
  let dates: { date: string; offset: number | null }[] = verdicts.map((v) => ({
    date: v.date_local,
    offset: v.day_offset,
  }));
  if (dates.length === 0) dates = plan.map((d) => ({ date: d.date_local, offset: d.day_offset }));
  if (dates.length === 0) dates = daily.map((d, i) => ({ date: d.date_local, offset: i }));

  return dates
    .slice(0, count)
    .map(({ date, offset }) => {
      const v = verdicts.find((x) => x.date_local === date);
      const p = plan.find((x) => x.date_local === date);
      const f = daily.find((x) => x.date_local === date);
      const planned = p ? p.zones.reduce((sum, z) => sum + Math.max(0, z.planned_seconds), 0) : null;

      let kind: DaySummary['kind'];
      let reason: string | null;
      if (planned !== null && planned > 0) {
        kind = 'water';
        reason = p
          ? p.zones
              .filter((z) => z.planned_seconds > 0)
              .map((z) => `${z.name} ${formatDuration(z.planned_seconds)}${ownWindowNote(z, view)}`)
              .join(', ')
          : null;
      } else if (v?.verdict === 'skip') {
        kind = 'skip';
        reason = v.reason ? trimStop(v.reason) : null;
      } else if (!v || v.verdict === 'unknown' || v.verdict === 'hold' || planned === null) {
        kind = 'unknown';
        reason = v?.reason ? trimStop(v.reason) : 'No verdict for this day';
      } else {
        kind = 'none';
        reason = noWaterReason(p);
      }

      let et0Mm: number | null = null;
      let et0Source: DaySummary['et0Source'] = null;
      const reported = finite(f?.et0_in);
      if (f && reported !== null && (reported > 0 || f.et0_reported)) {
        et0Mm = reported * 25.4;
        et0Source = 'forecast';
      } else {
        const computed = finite(et0.find((e) => e.date_local === date)?.et0_mm);
        if (computed !== null) {
          et0Mm = computed;
          et0Source = 'computed';
        }
      }

      return {
        date,
        label: dayLabel(date, offset),
        kind,
        verdictText: { water: 'Water', skip: 'Skip', none: 'None planned', unknown: 'Unknown' }[kind],
        reason,
        plannedSeconds: planned,
        rainIn: finite(v?.precip_in) ?? finite(f?.precip_sum_in),
        rainPct: finite(v?.precip_probability_max) ?? finite(f?.precip_probability_max),
        tempMaxF: finite(v?.temp_max_f) ?? finite(f?.temp_max_f),
        tempMinF: finite(v?.temp_min_f) ?? finite(f?.temp_min_f),
        et0Mm,
        et0Source,
        rainEvidenceIncomplete: v?.rain_evidence_incomplete ?? false,
      };
    })
    .map((day) => (day.reason === null ? day : { ...day, reason: say(day.reason, view) }));
}

/** " (own window 21:00 – 21:25)" for a zone that runs in its own window; "" otherwise. */
function ownWindowNote(z: WaterPlanZone, view: TextView): string {
  const w = z.run_window;
  if (!w) return '';
  return ` (own window ${windowSpan({ start: w.start_epoch, finish: w.finish_epoch }, view.timeZone)})`;
}
