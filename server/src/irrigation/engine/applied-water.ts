import type { RunRecord } from '../snapshot-schema';

/** The run-record fields the ledger reads. */
export type LedgerRow = Pick<
  RunRecord,
  'zone' | 'start_epoch' | 'duration_s' | 'skip_reason' | 'source' | 'status'
> & { evidence?: string | null; volume_gal?: number | null };
import type { LocalCalendar } from '../skip/local-days';
import {
  dailyIrrigation,
  runContribution,
  unionIntervals,
  type DayIrrigation,
  type Interval,
} from '../soil/irrigation-evidence';

/**
 * Applied water from the run ledger (spec 2.5 "Run record", spec 3 run
 * evidence rules). Pure. What each row contributes is decided in one place,
 * `soil/irrigation-evidence.ts` (`runContribution`); here the intervals are
 * unioned per zone (a manual run appears twice: request row and observed
 * hardware row) and split at local midnights so each day gets its own
 * seconds. Depth: gross mm = valve-open hours x the zone's precipitation rate,
 * or a meter's volume over the zone's area where a metered row covers the
 * stretch (`grossDepthMm`; a row's own `applied_mm` is not summed: it cannot
 * be unioned).
 */

export function isWateringEvidence(run: LedgerRow): boolean {
  return runContribution(run) !== null;
}

export { unionIntervals, type Interval };

export interface ZoneLedger {
  /** Valve-open seconds per local date (union, watering evidence only). */
  seconds_by_date: Map<string, number>;
  /** Per local date: seconds and the weakest evidence kind (what the soil ledger reads). */
  irrigation_by_date: Map<string, DayIrrigation>;
  /** The unioned valve-open intervals. */
  intervals: Interval[];
  /** Start of the newest watering-evidence interval; 0 when none. */
  last_run_epoch: number;
  /** A row of this zone has status `running` (the ledger believes the valve is open). */
  ledger_running: boolean;
  /** Rows counted / rows ignored, for the trace. */
  counted_rows: number;
  ignored_rows: { dry_run: number; skip_marker: number; not_completed: number; other: number };
}

/**
 * `areaSqft` (the zone's `area_sqft`) lets a meter's volume set the depth; `syntheticYard` (demo mode)
 * lets the demo's simulated rows water its yard (irrigation-evidence.ts).
 */
export function zoneLedger(
  zone: string,
  runs: readonly LedgerRow[],
  cal: LocalCalendar,
  areaSqft: number | null = null,
  syntheticYard = false,
): ZoneLedger {
  const mine = runs.filter((r) => r.zone === zone);
  const ignored = { dry_run: 0, skip_marker: 0, not_completed: 0, other: 0 };
  const raw: Interval[] = [];
  for (const r of mine) {
    const part = runContribution(r, syntheticYard);
    if (part) raw.push([part.start, part.end]);
    else if (r.source.startsWith('dry_run')) ignored.dry_run += 1;
    else if (r.source === 'smart_morning' || r.skip_reason !== null) ignored.skip_marker += 1;
    else if (r.status !== 'completed') ignored.not_completed += 1;
    else ignored.other += 1;
  }
  const intervals = unionIntervals(raw);
  const irrigation = dailyIrrigation(zone, mine, cal, areaSqft, syntheticYard);
  const seconds = new Map([...irrigation].map(([date, day]) => [date, day.seconds]));
  return {
    seconds_by_date: seconds,
    irrigation_by_date: irrigation,
    intervals,
    last_run_epoch: intervals.length > 0 ? Math.floor((intervals[intervals.length - 1] as Interval)[0]) : 0,
    ledger_running: mine.some((r) => r.status === 'running'),
    counted_rows: raw.length,
    ignored_rows: ignored,
  };
}
