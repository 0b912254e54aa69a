import {
  storedDaily,
  type DailyDecision,
  type DecisionsRepository,
  type StoredDailyDecision,
} from '../store/decisions';

/**
 * Writes the daily decision row only when what it records changed. The
 * engine recomputes every 10 s to a minute and its decision carries the
 * compute time as `epoch`; rewriting an unchanged row each time cost a disk
 * sync (the database runs `synchronous = FULL`) on a Pi's SD card for
 * nothing. So a row's `epoch` is when the engine reached the decision as
 * recorded, not its latest recompute.
 *
 * Compared: the row as it would be stored (the zones' JSON text, built for
 * the write anyway, so every field a reader sees counts, new ones included),
 * against the day's latest stored row. The epoch alone is left out: it
 * changes on every compute and says nothing the row does not. Against the
 * day's latest row, not the same kind's: the engine reads "the day's
 * decision" as its latest row (engine.ts recordedPromises), so a verdict
 * flip back to an earlier kind rewrites that kind's row with a new epoch
 * even when its zones are unchanged. No heartbeat: no reader needs a fresh
 * epoch. The engine's skill lookback selects by local date (listDailyDates);
 * the history, anomaly and tuning windows select by epoch, which moves only
 * which rows sit at their oldest edge.
 *
 * The day's latest row is read back from the store on the first record of
 * each local day, so the first write after a restart compares with what the
 * previous process stored: a restart leaves an unchanged decision untouched.
 */
export class DailyDecisionWriter {
  /** The latest stored row of the day last recorded; null before the first read back or write. */
  private latest: StoredDailyDecision | null = null;

  constructor(private readonly decisions: Pick<DecisionsRepository, 'writeDaily' | 'latestOfDay'>) {}

  /** Stores the decision unless the day's latest row already records it; true when it wrote. */
  record(decision: DailyDecision): boolean {
    const row = storedDaily(decision);
    if (this.latest?.date_local !== row.date_local) this.latest = this.decisions.latestOfDay(row.date_local);
    if (this.latest && this.latest.kind === row.kind && this.latest.zones === row.zones) return false;
    this.decisions.writeDaily(row);
    this.latest = row;
    return true;
  }
}
