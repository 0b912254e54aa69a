import type { HistoryWindow, RunRecord, TraceZone } from '../zones/irrigation-types';

/**
 * The zone page's last-30-days series (pure): daily depletion and rain from
 * the soil model's look-back (the decision trace's steps, where it has them),
 * and irrigation applied from the run history. Applied water follows spec
 * 2.5 / 3: the union of valve-open intervals of `completed` runs with source
 * `ha_refresher`, `manual` or `manual:<id>`; dry-run, skipped and aborted
 * rows are not applied water, and overlapping rows (a manual request and its
 * observed hardware row) count once. A day inside the history window with no
 * watering on record is 0 (the ledger says nothing ran); days before the window
 * or without history, and days the model has no step for, are null.
 */

export const DAY = 86_400;

/** "2026-11-21" in `timeZone` (the service's zone) for an epoch. */
export function localDate(epoch: number, timeZone?: string): string {
  const format = (tz: string | undefined) =>
    new Intl.DateTimeFormat('en-CA', {
      timeZone: tz,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    }).format(new Date(epoch * 1000));
  try {
    return format(timeZone);
  } catch {
    return format(undefined);
  }
}

/** The `count` dates ending with `last` (inclusive), oldest first. */
export function dateRange(last: string, count: number): string[] {
  const [y, m, d] = last.split('-').map(Number);
  if (!y || !m || !d) return [];
  const end = Date.UTC(y, m - 1, d, 12);
  const out: string[] = [];
  for (let i = count - 1; i >= 0; i -= 1) out.push(new Date(end - i * DAY * 1000).toISOString().slice(0, 10));
  return out;
}

/** Noon UTC of a date, as epoch seconds: a chart x value that shows that date in UTC. */
export function dateEpoch(date: string): number {
  const [y, m, d] = date.split('-').map(Number);
  return Date.UTC(y ?? 1970, (m ?? 1) - 1, d ?? 1, 12) / 1000;
}

export function isWateringEvidence(run: RunRecord): boolean {
  const source = run.source ?? '';
  return (
    run.status === 'completed' &&
    run.skip_reason === null &&
    run.duration_s > 0 &&
    (source === 'ha_refresher' || source === 'manual' || source.startsWith('manual:'))
  );
}

/**
 * Applied mm per local date for one zone. Each merged interval takes the
 * zone's depth rate (applied_mm / open seconds) from a member row that has
 * one; when none has, that interval's water is unknown and its day is null.
 */
export function appliedByDate(
  runs: readonly RunRecord[],
  zone: string,
  timeZone?: string,
): Map<string, number | null> {
  const rows = runs
    .filter((r) => r.zone === zone && isWateringEvidence(r))
    .sort((a, b) => a.start_epoch - b.start_epoch);
  const merged: { start: number; end: number; rate: number | null }[] = [];
  for (const row of rows) {
    const end = row.start_epoch + row.duration_s;
    const rate =
      row.applied_mm !== null && row.applied_mm !== undefined ? row.applied_mm / row.duration_s : null;
    const last = merged[merged.length - 1];
    if (last && row.start_epoch <= last.end) {
      last.end = Math.max(last.end, end);
      if (last.rate === null) last.rate = rate;
    } else merged.push({ start: row.start_epoch, end, rate });
  }
  const out = new Map<string, number | null>();
  for (const interval of merged) {
    const date = localDate(interval.start, timeZone);
    const before = out.has(date) ? (out.get(date) as number | null) : 0;
    const mm = interval.rate === null ? null : (interval.end - interval.start) * interval.rate;
    out.set(date, before === null || mm === null ? null : before + mm);
  }
  return out;
}

export interface ZoneDays {
  dates: string[];
  x: number[];
  depletionMm: (number | null)[];
  depletionLowMm: (number | null)[];
  depletionHighMm: (number | null)[];
  rainMm: (number | null)[];
  appliedMm: (number | null)[];
  /** Dry-run rows in the window (pretend water, not counted). */
  dryRuns: number;
  /** The demo's completed dry-run rows (evidence `simulated`): they water its synthetic yard, no real one. */
  simulatedRuns: number;
  /** Days with a known depletion or range, with known rain. */
  depletionDays: number;
  rainDays: number;
}

export function buildZoneDays(
  history: HistoryWindow | null,
  trace: TraceZone | null,
  zone: string,
  today: string,
  timeZone?: string,
  count = 30,
  /** Today's depletion as the zone reports it now (the trace's step for today is a projection to the day's end). */
  now: { exact: number | null; range: [number, number] | null } | null = null,
): ZoneDays {
  const dates = dateRange(today, count);
  const steps = new Map<string, NonNullable<TraceZone['steps']>[number]>();
  for (const step of trace?.steps ?? []) {
    // Looked-back days only: projected days (today included) are forecasts, not history.
    if (step.kind === 'past' && step.date_local <= today) steps.set(step.date_local, step);
  }
  const applied = history ? appliedByDate(history.runs, zone, timeZone) : null;
  const firstDate = history ? localDate(history.from_epoch, timeZone) : null;
  const out: ZoneDays = {
    dates,
    x: dates.map(dateEpoch),
    depletionMm: [],
    depletionLowMm: [],
    depletionHighMm: [],
    rainMm: [],
    appliedMm: [],
    dryRuns: pretendRows(history, zone).filter((r) => !isSimulated(r)).length,
    simulatedRuns: pretendRows(history, zone).filter(isSimulated).length,
    depletionDays: 0,
    rainDays: 0,
  };
  for (const date of dates) {
    const step = steps.get(date);
    const current = date === today && !step ? now : null;
    const exact = current ? current.exact : (step?.depletion_mm ?? null);
    const range = exact === null ? (current ? current.range : (step?.depletion_range_mm ?? null)) : null;
    out.depletionMm.push(exact);
    out.depletionLowMm.push(range ? range[0] : null);
    out.depletionHighMm.push(range ? range[1] : null);
    if (exact !== null || range) out.depletionDays += 1;
    const rain = step?.rain_mm ?? null;
    out.rainMm.push(rain);
    if (rain !== null) out.rainDays += 1;
    if (!applied || (firstDate !== null && date < firstDate)) out.appliedMm.push(null);
    else out.appliedMm.push(applied.has(date) ? (applied.get(date) as number | null) : 0);
  }
  return out;
}

function pretendRows(history: HistoryWindow | null, zone: string): RunRecord[] {
  return (history?.runs ?? []).filter(
    (r) => r.zone === zone && (r.source ?? '').startsWith('dry_run') && r.skip_reason === null,
  );
}

/** A demo's completed pretend run: simulated water of its synthetic yard. */
function isSimulated(run: RunRecord): boolean {
  return run.evidence === 'simulated' && run.status === 'completed';
}

const SOURCE_LABELS: Record<string, string> = {
  manual: 'Manual',
  ha_refresher: 'Schedule / observed',
  dry_run: 'Dry run',
  smart_morning: 'Skip marker',
};

/** A run record's source in words (`dry_run:manual` -> "Dry run (manual)"). */
export function runSourceLabel(source: string | undefined): string {
  if (!source) return 'unknown';
  const [kind = '', id] = source.split(':', 2);
  const base = SOURCE_LABELS[kind] ?? kind.replace(/_/g, ' ');
  return id ? `${base} (${id.replace(/_/g, ' ')})` : base;
}

/** What a run record says about applied water: a depth, or why there is none. */
export function appliedLabel(run: RunRecord, depth: (mm: number) => string): string | null {
  if (run.skip_reason !== null || run.status === 'skipped') return 'none (skipped)';
  if ((run.source ?? '').startsWith('dry_run'))
    return run.evidence === 'simulated' ? 'none: simulated (demo yard)' : 'none (dry run)';
  if (run.status === 'intended') return 'none (not started)';
  if (run.applied_mm === null || run.applied_mm === undefined) return null;
  return depth(run.applied_mm);
}
