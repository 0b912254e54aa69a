import type { EventBus } from '../../core/bus';
import type { Logger } from '../../core/logger';
import type { ZoneConfig } from '../../config/schema';
import type { StoredRun } from '../../store/runs';
import type { LoggedInterval, ValveDriver } from './driver';
import type { RunLedger } from './run-ledger';
import { recordedWater } from './water-amount';

/**
 * Applied water never exceeds what the controller logged. Readback credits a
 * valve up to the first reading that saw it closed, so a run closed between
 * two polls is credited up to one poll interval too long. Controllers that
 * keep their own run log (OpenSprinkler `/jl`) wrote down how long each
 * station really ran when it closed; once a row of such a controller
 * finishes, its log is read and the row is cut to the logged seconds when it
 * credits more. Only ever shorter: the log never adds water the readings did
 * not see. docs/controllers.md says which kinds keep a log.
 *
 * Matching: the logged runs of the row's station whose open stretch
 * [end - seconds, end] overlaps the row's, widened by CLOCK_SLACK_S each side
 * for the device's clock (whole seconds, its own NTP). Nothing matching
 * (logging off, a run a reboot cut, which the firmware does not log, or a
 * device clock far off) leaves the row as the readings made it. Metered rows
 * keep the meter's volume; dry-run rows have no water to trim.
 */

/** How far the device's clock and ours may disagree and a log row still belong to a run. */
export const CLOCK_SLACK_S = 30;

export interface RunLogReconcilerDeps {
  driver: Pick<ValveDriver, 'route' | 'runLog'>;
  ledger: RunLedger;
  zoneConfig: (zone: string) => ZoneConfig | undefined;
  logger: Logger;
  bus?: EventBus;
}

export class RunLogReconciler {
  private pending = new Set<Promise<void>>();

  constructor(private readonly deps: RunLogReconcilerDeps) {}

  /** Registers with the ledger: every finished row is checked. */
  start(): void {
    this.deps.ledger.onFinished((row) => this.check(row));
  }

  /** Resolves once every check started so far has settled (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  check(row: StoredRun): void {
    if (!worthChecking(row)) return;
    const work = this.reconcile(row).catch((err: unknown) => {
      this.deps.logger
        .child({ module: 'run-log' })
        .warn(
          { err, run: row.id, zone: row.zone },
          'could not read the controller log; the run keeps its observed time',
        );
    });
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
  }

  private async reconcile(row: StoredRun): Promise<void> {
    const routed = this.deps.driver.route(row.zone);
    if (!routed.ok || routed.route.controller_id !== row.controller_id || !this.deps.driver.runLog) return;
    const from = row.start_epoch - CLOCK_SLACK_S;
    const to = row.start_epoch + row.duration_s + CLOCK_SLACK_S;
    // Rows end inside [from, to + a run's length]: ask for their end up to a day later.
    const logged = await this.deps.driver.runLog(routed.route, from, to + MAX_LOGGED_RUN_S);
    if (!logged) return;
    const seconds = loggedSecondsWithin(logged, from, to);
    if (seconds === null || seconds >= row.duration_s) return;
    const evidence = row.evidence === 'commanded' ? 'commanded' : 'observed';
    const water = recordedWater(this.deps.zoneConfig(row.zone), seconds, evidence, null);
    const note =
      `${row.note ?? ''}; the controller's log says ${seconds} s open: ` +
      `credited that instead of the ${row.duration_s} s the readings allowed`;
    this.deps.ledger.trimmedToLog(row.id, seconds, water, note.replace(/^; /, ''));
    this.deps.bus?.emit('runs.changed', { zone: row.zone });
  }
}

/** A controller times a station for at most 18 h (OpenSprinkler 64,800 s). */
const MAX_LOGGED_RUN_S = 64_800;

function worthChecking(row: StoredRun): boolean {
  if (row.status !== 'completed' && row.status !== 'aborted') return false;
  if (row.duration_s <= 0 || row.controller_id === null) return false;
  return !row.source.startsWith('dry_run') && row.evidence !== 'metered';
}

/** Sum of the logged runs overlapping [from, to]; null when none does. */
export function loggedSecondsWithin(
  logged: readonly LoggedInterval[],
  from: number,
  to: number,
): number | null {
  const matching = logged.filter((run) => run.end_epoch - run.seconds <= to && run.end_epoch >= from);
  return matching.length === 0 ? null : matching.reduce((sum, run) => sum + run.seconds, 0);
}
