import type { FlowAlarmEvent } from '../../core/bus';
import type { SourceHealth } from '../../core/health';
import type { ForecastSnapshot } from '../../forecast/types';
import type { DailyDecision } from '../../store/decisions';
import type { Reading } from '../../store/readings';
import type { RunRecord } from '../../store/runs';
import type { SessionPlan } from '../../store/session-plans';
import type { IrrigationSnapshot } from '../snapshot-schema';
import type { CapLedgerDay } from '../tuning/cap-short';

/**
 * An anomaly (spec 4.4 `{severity, type, description}`): something in the
 * data the owner should look at, with the evidence that shows it and the fix.
 * `subject` (a source id, zone slug, controller id or `site`) makes it one
 * thing while it persists: `type` + `subject` is its identity for the
 * once-per-new-anomaly announcement.
 */
export interface Anomaly {
  severity: 'info' | 'warning' | 'critical';
  type: string;
  /** One sentence or three: what, the evidence, the fix. */
  description: string;
  subject: string;
  evidence: string[];
  fix: string;
}

/** One detector per module; a pure function of the evidence. */
export interface Detector {
  readonly type: string;
  detect(evidence: AnomalyEvidence): Anomaly[];
}

/** A controller command or readback that failed (ledger rows and `controller.failure` events). */
export interface ControllerFailure {
  controller_id: string;
  epoch: number;
  message: string;
}

/**
 * What the detectors read. Readings are the raw per-source history (at most
 * one a minute per field) of the last day, and of `rain_in_today` the last
 * eight days; runs, session plans and decisions the last two weeks.
 */
export interface AnomalyEvidence {
  nowEpoch: number;
  timezone: string;
  lat: number;
  elevationM: number;
  /** Readings of the last 24 h per source (the merged series excluded), oldest first. */
  readings: readonly Reading[];
  /** `rain_in_today` readings of the last 8 days per source. */
  rainReadings: readonly Reading[];
  /** Source ids whose kind is a forecast model rather than a station. */
  modelledSources: ReadonlySet<string>;
  sources: readonly SourceHealth[];
  forecast: ForecastSnapshot | null;
  irrigation: IrrigationSnapshot | null;
  runs: readonly RunRecord[];
  sessions: readonly SessionPlan[];
  decisions: readonly DailyDecision[];
  controllerFailures: readonly ControllerFailure[];
  /** Since when `restart_required` has been true in this process; null when it is not. */
  restartPendingSince: number | null;
  /** Flow alarms of the last 24 h (issue 17 raises them); null when no provider feeds them. */
  flowAlarms: readonly FlowAlarmEvent[] | null;
  /**
   * The site's own climate: the daily weather record's days before the last
   * week, within RECORD_CLIMATE_DAYS of today's day of the year (other years
   * too), with the engine's ET0 for each. Empty without a database.
   */
  recordEt0: readonly { date_local: string; et0_mm: number }[];
  /**
   * Per configured zone: the run cap in force now and the soil ledger's
   * closed days of the last two weeks. Empty without a database.
   */
  zoneLedgers: readonly ZoneLedgerEvidence[];
}

export interface ZoneLedgerEvidence {
  zone: string;
  max_run_minutes: number | null;
  days: readonly CapLedgerDay[];
}

export function anomaly(fields: Omit<Anomaly, 'description'> & { summary: string }): Anomaly {
  const { summary, ...rest } = fields;
  const shown = rest.evidence.slice(0, 3).join('; ');
  return { ...rest, description: `${summary}${shown ? ` (${shown})` : ''}. ${rest.fix}` };
}
