/**
 * The History page's pure logic: the API shapes it reads (spec 2.5, 4.4),
 * filters, what a run's applied water honestly is, and the rain-skip
 * accuracy in words. No preact, no DOM.
 */

import { localizeUnits, type UnitSystem } from '../../lib/unit-format';

export interface RunRecord {
  session_id: string | null;
  zone: string;
  start_epoch: number;
  duration_s: number;
  skip_reason: string | null;
  source: string;
  status: string;
  controller_id: string | null;
  applied_mm: number | null;
  volume_gal: number | null;
  note: string | null;
  cycle_index: number | null;
  cycle_count: number | null;
  /** Extra: how the seconds are known (`observed`, `metered`, `commanded`, `simulated`); absent on old rows. */
  evidence?: string | null;
}

export interface DecisionZone {
  zone: string;
  name: string;
  reason_code: string;
  reason: string;
  water_need: string;
  planned_seconds: number;
}

export interface DailyDecision {
  date_local: string;
  epoch: number;
  kind: string;
  zones: DecisionZone[];
}

export interface HistoryWindow {
  from_epoch: number;
  to_epoch: number;
  runs: RunRecord[];
  daily: DailyDecision[];
}

/** One change of the overall skip-check verdict (GET /irrigation/decisions). */
export interface VerdictChange {
  epoch: number;
  verdict: string;
  previous_verdict: string | null;
  reason: unknown;
}

export interface DecisionsBody {
  from_epoch: number;
  to_epoch: number;
  decisions: VerdictChange[];
}

export type Outcome = 'matched' | 'missed' | 'unneeded_skip' | 'unscored';

export interface AccuracyRow {
  date_local: string;
  complete: boolean;
  morning_epoch: number;
  verdict: string | null;
  reason_code: string | null;
  rain_observed_in: number | null;
  rain_evidence: 'gauge' | 'gauge_partial' | 'none' | string;
  skipped_for_rain: boolean;
  outcome: Outcome | string;
  unscored_reason: string | null;
}

export interface AccuracyTally {
  days: number;
  scored_days: number;
  matched_days: number;
  missed_days: number;
  unneeded_skip_days: number;
  unscored_days: number;
  matched_pct: number | null;
}

export interface AccuracyReport {
  from_epoch: number;
  to_epoch: number;
  timezone: string;
  rain_threshold_in: number;
  rows: AccuracyRow[];
  tally: AccuracyTally;
}

export type ShowMode = 'runs' | 'decisions' | 'both';

export const DAY_OPTIONS: { value: number; label: string }[] = [
  { value: 7, label: 'Last 7 days' },
  { value: 30, label: 'Last 30 days' },
  { value: 90, label: 'Last 90 days' },
  { value: 365, label: 'Last 365 days' },
  { value: 0, label: 'All retained' },
];

/** Run statuses the service writes (store/runs.ts), offered even before a row has them. */
export const KNOWN_STATUSES = ['completed', 'running', 'intended', 'aborted', 'skipped'] as const;

/** The status filter's options: the known statuses plus any other the rows carry. */
export function statusOptions(runs: readonly RunRecord[]): string[] {
  const seen = new Set<string>(KNOWN_STATUSES);
  for (const run of runs) seen.add(run.status);
  return [...seen];
}

export interface RunFilter {
  /** Zone slug, or null for every zone. */
  zone: string | null;
  /** A status, or null for every status. */
  status: string | null;
}

/** Newest first, filtered by zone and status. */
export function filterRuns(runs: readonly RunRecord[], filter: RunFilter): RunRecord[] {
  return runs
    .filter(
      (run) =>
        (filter.zone === null || run.zone === filter.zone) &&
        (filter.status === null || run.status === filter.status),
    )
    .sort((a, b) => b.start_epoch - a.start_epoch);
}

/** Newest first; with a zone, only that zone's entry and only days that have one. */
export function filterDaily(daily: readonly DailyDecision[], zone: string | null): DailyDecision[] {
  return daily
    .map((day) => (zone === null ? day : { ...day, zones: day.zones.filter((z) => z.zone === zone) }))
    .filter((day) => zone === null || day.zones.length > 0)
    .sort((a, b) => (a.date_local < b.date_local ? 1 : a.date_local > b.date_local ? -1 : b.epoch - a.epoch));
}

/**
 * Newest first. The server lists changes oldest first (by epoch, then the
 * order they were recorded); two changes in one second (a pause cleared and a
 * new one set) keep that order reversed, so the later one is shown first.
 */
export function sortChanges(changes: readonly VerdictChange[]): VerdictChange[] {
  return [...changes].reverse().sort((a, b) => b.epoch - a.epoch);
}

export type AppliedWater =
  | { kind: 'amount'; mm: number | null; gal: number | null }
  | { kind: 'not_water'; why: 'dry_run' | 'simulated' | 'skip' }
  | { kind: 'unknown'; why: string };

/**
 * What a run row says about water that reached the zone (spec 2.5): dry-run
 * rows are pretend water and skip rows are markers, so neither is applied
 * water; a missing measurement is unknown, never 0. A demo's dry-run row
 * (evidence `simulated`) is no real water either, but it watered the demo's
 * synthetic yard, and says so.
 */
export function appliedWater(run: RunRecord): AppliedWater {
  if (run.source === 'dry_run' || run.source.startsWith('dry_run:'))
    return { kind: 'not_water', why: run.evidence === 'simulated' ? 'simulated' : 'dry_run' };
  if (run.skip_reason !== null || run.source === 'smart_morning' || run.status === 'skipped')
    return { kind: 'not_water', why: 'skip' };
  if (run.applied_mm === null && run.volume_gal === null) {
    const why =
      run.status === 'running'
        ? 'still running'
        : run.status === 'intended'
          ? 'not started'
          : run.status === 'aborted'
            ? 'stopped early, not measured'
            : 'not measured';
    return { kind: 'unknown', why };
  }
  return { kind: 'amount', mm: run.applied_mm, gal: run.volume_gal };
}

const SOURCE_LABELS: Record<string, string> = {
  ha_refresher: 'Schedule / controller',
  manual: 'Manual',
  dry_run: 'Dry run (schedule)',
  smart_morning: 'Skip marker',
};

/** A run's `source` in words (the code stays visible beside it). */
export function sourceLabel(source: string): string {
  const known = SOURCE_LABELS[source];
  if (known) return known;
  if (source.startsWith('dry_run:')) return `Dry run (${source.slice('dry_run:'.length)})`;
  if (source.startsWith('manual:')) return `Manual (${source.slice('manual:'.length)})`;
  return source;
}

export function statusTone(status: string): 'ok' | 'warn' | 'danger' | '' {
  if (status === 'completed') return 'ok';
  if (status === 'running' || status === 'intended' || status === 'skipped') return 'warn';
  if (status === 'aborted') return 'danger';
  return '';
}

/** "skip" -> "Skip", "no_water_needed" -> "No water needed". */
export function words(code: string | null | undefined): string {
  if (!code) return '';
  const text = code.replace(/_/g, ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function verdictTone(verdict: string | null): 'ok' | 'warn' | 'danger' | '' {
  if (verdict === 'water') return 'ok';
  if (verdict === 'skip' || verdict === 'hold' || verdict === 'paused') return 'warn';
  return '';
}

/** What caused a verdict, in words: the engine's reason codes (skip rules, controls, the soil model). */
const REASON_LABELS: Record<string, string> = {
  paused: 'Paused',
  global_override_run: 'Override: always water',
  global_override_skip: 'Override: always skip',
  zone_override_run: 'Zone override: always water',
  zone_override_skip: 'Zone override: always skip',
  override_tomorrow_run: 'Tomorrow override: water',
  override_tomorrow_skip: 'Tomorrow override: skip',
  rain_now: 'Raining now',
  freeze: 'Freeze risk',
  soil_frost: 'Frozen soil',
  wind_now: 'Too windy now',
  wind_forecast: 'Windy forecast',
  already_wet: 'Already wet',
  rain_today_forecast: 'Rain forecast today',
  rain_next_4h: 'Rain within 4 hours',
  tomorrow_rain: 'Rain tomorrow',
  rain_3day: 'Heavy rain in the next 3 days',
  heat_advisory: 'Heat advisory',
  water: 'Due: water',
  not_due: 'Not due',
  no_water_needed: 'No zone needs water',
  depletion_unknown: 'Soil water unknown',
  zone_incomplete: 'Zone settings incomplete',
  forecast_unavailable: 'Forecast incomplete',
  forecast_rain_covers: 'Forecast rain covers it',
  session_rain_deferred: 'Waits for forecast rain',
  restricted_day: 'Restricted day',
  dormant: 'Dormant',
  budget_met: 'Weekly budget met',
  not_session_day: 'Not a session day',
};

export function reasonLabel(code: string | null | undefined): string {
  if (!code) return '';
  return REASON_LABELS[code] ?? words(code);
}

export interface ChangeReason {
  /** The machine code (`paused`, `rain_3day`, ...); '' when none was stored. */
  code: string;
  /** The sentence stored with it, when there is one. */
  text: string;
}

/** The reason stored with a verdict change: `{reason_code, reason?, deciding?}`, a bare string, or older shapes. */
export function changeReason(reason: unknown): ChangeReason {
  if (typeof reason === 'string') return { code: reason, text: '' };
  if (reason && typeof reason === 'object' && !Array.isArray(reason)) {
    const { reason_code: code, reason: text } = reason as { reason_code?: unknown; reason?: unknown };
    if (typeof code === 'string') return { code, text: typeof text === 'string' ? text : '' };
    if (Object.values(reason).every((v) => v === null)) return { code: '', text: '' };
  }
  return reason === null || reason === undefined
    ? { code: '', text: '' }
    : { code: '', text: JSON.stringify(reason) };
}

/** GET /irrigation/export takes 1..3650 days: "all" exports the most it can. */
export function exportDays(days: number): number {
  if (days <= 0) return 3650;
  return Math.min(3650, Math.max(1, Math.round(days)));
}

/** GET /irrigation/accuracy takes 1..365 days. */
export function accuracyDays(days: number): number {
  if (days <= 0) return 365;
  return Math.min(365, Math.max(1, Math.round(days)));
}

export function percent(value: number | null): string {
  return value === null ? '—' : `${value.toFixed(1).replace(/\.0$/, '')}%`;
}

/** The matched/scored tally as one sentence. */
export function accuracySentence(tally: AccuracyTally): string {
  if (tally.scored_days === 0) {
    return `No day of the last ${tally.days} could be scored yet: a day is scored once it has ended with a rain verdict and a gauge total.`;
  }
  const day = (n: number) => `${n} day${n === 1 ? '' : 's'}`;
  return (
    `Of ${day(tally.scored_days)} that could be scored, ${tally.matched_days} matched the rain that fell ` +
    `(${percent(tally.matched_pct)}): ${day(tally.missed_days)} watered before rain, ` +
    `${day(tally.unneeded_skip_days)} skipped for rain that did not come.`
  );
}

const UNSCORED: Record<string, string> = {
  day_in_progress: 'day in progress',
  no_verdict: 'no verdict recorded',
  reactive_skip: 'skipped for rain already falling',
  not_a_rain_decision: 'not a rain decision',
  rain_unknown: 'rain unknown',
};

export function outcomeLabel(row: AccuracyRow): string {
  switch (row.outcome) {
    case 'matched':
      return 'Matched';
    case 'missed':
      return 'Missed: watered, then it rained';
    case 'unneeded_skip':
      return 'Unneeded skip: no rain came';
    default:
      return `Not scored: ${row.unscored_reason ? (UNSCORED[row.unscored_reason] ?? words(row.unscored_reason).toLowerCase()) : 'unknown'}`;
  }
}

export function outcomeTone(outcome: string): 'ok' | 'warn' | 'danger' | '' {
  if (outcome === 'matched') return 'ok';
  if (outcome === 'missed') return 'danger';
  if (outcome === 'unneeded_skip') return 'warn';
  return '';
}

/** Zones to offer in the filter: the configured ones, then any slug only the history names. */
export function zoneOptions(
  configured: readonly { slug: string; name: string }[],
  runs: readonly RunRecord[],
  daily: readonly DailyDecision[],
): { slug: string; name: string }[] {
  const out = [...configured];
  const known = new Set(out.map((z) => z.slug));
  const add = (slug: string, name: string) => {
    if (known.has(slug)) return;
    known.add(slug);
    out.push({ slug, name });
  };
  for (const day of daily) for (const z of day.zones) add(z.zone, z.name || z.zone);
  for (const run of runs) add(run.zone, run.zone);
  return out;
}

/**
 * A run row's skip reason and note in the viewer's unit system: both were
 * written in the units of their day (a skip marker's "0.449 in/hr" stays in
 * the database after the owner switches to metric).
 */
export function runTexts(run: RunRecord, units: UnitSystem): { skipped: string | null; note: string | null } {
  return {
    skipped: run.skip_reason === null ? null : localizeUnits(run.skip_reason, units),
    note: run.note ? localizeUnits(run.note, units) : null,
  };
}
