import type { RaincheckConfig } from '../../config/schema';
import type { SourceHealth } from '../../core/health';
import type { ForecastSnapshot } from '../../forecast/types';
import type { Store } from '../../store/store';
import { MERGED_SOURCE_ID } from '../../weather/weather-service';
import type { IrrigationSnapshot } from '../snapshot-schema';
import type { AnomalyEvidence, ControllerFailure } from './anomaly';
import type { FlowAlarmEvent } from '../../core/bus';
import { CHECKED_FIELDS } from './detectors/plausibility';

/**
 * Fills the detectors' evidence from the store and the live services. Without
 * a database the history-backed detectors see nothing (no readings, runs,
 * plans or decisions) and stay quiet; the live ones still judge.
 */

const DAY_S = 86_400;
const FAILURE_DAYS = 7;

export interface LiveInputs {
  store: Store | null;
  config: RaincheckConfig;
  timezone: string;
  sources: readonly SourceHealth[];
  forecast: ForecastSnapshot | null;
  irrigation: IrrigationSnapshot | null;
  modelledKinds: ReadonlySet<string>;
}

/** What the anomaly service heard on the bus since it started. */
export interface HeardEvidence {
  controllerFailures: readonly ControllerFailure[];
  flowAlarms: readonly FlowAlarmEvent[] | null;
  restartPendingSince: number | null;
}

export function gatherAnomalyEvidence(
  live: LiveInputs,
  nowEpoch: number,
  heard: HeardEvidence,
): AnomalyEvidence {
  const { store, config } = live;
  const readings = store
    ? CHECKED_FIELDS.flatMap((field) => store.readings.listRecent(nowEpoch, 24, field)).filter(
        (r) => r.source_id !== MERGED_SOURCE_ID,
      )
    : [];
  const rainReadings = store
    ? store.readings
        .listRecent(nowEpoch, 8 * 24, 'rain_in_today')
        .filter((r) => r.source_id !== MERGED_SOURCE_ID)
    : [];
  const from = nowEpoch - 14 * DAY_S;
  const runs = store?.runs.listWindow(from, nowEpoch) ?? [];
  return {
    nowEpoch,
    timezone: live.timezone,
    lat: config.deployment.location.lat,
    elevationM: config.deployment.location.elevation_m ?? 0,
    readings,
    rainReadings,
    modelledSources: new Set(config.sources.filter((s) => live.modelledKinds.has(s.kind)).map((s) => s.id)),
    sources: live.sources,
    forecast: live.forecast,
    irrigation: live.irrigation,
    runs,
    sessions: store?.sessionPlans.listWindow(from, nowEpoch) ?? [],
    decisions: store?.decisions.listDaily(from, nowEpoch) ?? [],
    controllerFailures: mergeFailures(ledgerFailures(runs, nowEpoch), heard.controllerFailures),
    restartPendingSince: heard.restartPendingSince,
    flowAlarms: heard.flowAlarms,
  };
}

/** Failed dispatches the ledger kept (`dispatch_failed` skip rows). */
function ledgerFailures(runs: AnomalyEvidence['runs'], nowEpoch: number): ControllerFailure[] {
  return runs
    .filter(
      (r) =>
        r.status === 'skipped' &&
        r.skip_reason?.startsWith('dispatch_failed') &&
        r.start_epoch >= nowEpoch - FAILURE_DAYS * DAY_S,
    )
    .map((r) => ({
      controller_id: r.controller_id ?? 'unknown',
      epoch: r.start_epoch,
      message: r.note ?? r.skip_reason ?? 'dispatch failed',
    }));
}

/** The ledger row and the announcement of one failure count once (same controller within a few seconds). */
function mergeFailures(
  a: readonly ControllerFailure[],
  b: readonly ControllerFailure[],
): ControllerFailure[] {
  const out = [...a];
  for (const f of b) {
    if (!out.some((o) => o.controller_id === f.controller_id && Math.abs(o.epoch - f.epoch) <= 5))
      out.push(f);
  }
  return out;
}
