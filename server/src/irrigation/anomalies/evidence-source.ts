import type { RaincheckConfig } from '../../config/schema';
import type { SourceHealth } from '../../core/health';
import type { ForecastSnapshot } from '../../forecast/types';
import type { Store } from '../../store/store';
import { MERGED_SOURCE_ID } from '../../weather/weather-service';
import type { IrrigationSnapshot } from '../snapshot-schema';
import type { AnomalyEvidence, ControllerFailure, ZoneLedgerEvidence } from './anomaly';
import { closingRange } from '../tuning/cap-short';
import type { FlowAlarmEvent } from '../../core/bus';
import { CHECKED_FIELDS } from './detectors/plausibility';
import type { Et0Method } from '../../agronomy/et0';
import { addLocalDays, localDateOf } from '../schedule/local-date';
import { et0OfRecord } from '../soil/et0-of-day';
import { CLIMATE_HALF_WINDOW_DAYS, dayOfYearDistance, type RecordEt0Day } from './record-climate';

/**
 * Fills the detectors' evidence from the store and the live services. Without
 * a database the history-backed detectors see nothing (no readings, runs,
 * plans or decisions) and stay quiet; the live ones still judge.
 */

const DAY_S = 86_400;
const FAILURE_DAYS = 7;
/** The judged week (et0-out-of-climate.ts) and how far back the record is read for the climate. */
const JUDGED_DAYS = 7;
const RECORD_DAYS = 400;

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
    recordEt0: store ? recordEt0(store, config, live.timezone, nowEpoch) : [],
    zoneLedgers: store ? zoneLedgers(store, config, live.timezone, nowEpoch) : [],
  };
}

/** Each zone's cap now and its soil ledger's closed days of the last two weeks (rule 6, cap-short.ts). */
function zoneLedgers(
  store: Store,
  config: RaincheckConfig,
  timezone: string,
  nowEpoch: number,
): ZoneLedgerEvidence[] {
  const today = localDateOf(nowEpoch, timezone);
  const from = addLocalDays(today, -14, timezone);
  const to = addLocalDays(today, -1, timezone);
  return Object.entries(config.zones).map(([zone, settings]) => ({
    zone,
    max_run_minutes: settings.max_run_minutes ?? null,
    days: store.soilLedger.range(zone, from, to).map((row) => ({
      date_local: row.date_local,
      raw_mm: row.raw_mm,
      closing_range_mm: closingRange(row),
      irrigation_seconds: row.irrigation_seconds,
      irrigation_net_mm: row.irrigation_net_mm,
    })),
  }));
}

/**
 * The record's days before the judged week near today's day of the year,
 * with the engine's ET0 for each (its method, the site): the climate the
 * `et0_out_of_climate` detector narrows its envelope with.
 */
function recordEt0(
  store: Store,
  config: RaincheckConfig,
  timezone: string,
  nowEpoch: number,
): RecordEt0Day[] {
  const today = localDateOf(nowEpoch, timezone);
  const to = addLocalDays(today, -JUDGED_DAYS - 1, timezone);
  const from = addLocalDays(today, -RECORD_DAYS, timezone);
  const method = config.engine.et0_method as Et0Method;
  const site = {
    lat: config.deployment.location.lat,
    elevation_m: config.deployment.location.elevation_m ?? null,
  };
  return store.weatherDays.range(from, to).flatMap((day) => {
    if (dayOfYearDistance(day.date_local, today) > CLIMATE_HALF_WINDOW_DAYS + JUDGED_DAYS) return [];
    const et0 = et0OfRecord(day, day.date_local, method, site).et0_mm;
    return et0 === null ? [] : [{ date_local: day.date_local, et0_mm: et0 }];
  });
}

/**
 * The flow alarms of the last day as the flow monitor stored them
 * (store/flow-alarms.ts): what the `flow_alarm` detector reads when a
 * database is mounted, so alarms raised before a restart still count.
 */
export function storedFlowAlarms(store: Store, nowEpoch: number): FlowAlarmEvent[] {
  return store.flowAlarms.listSince(nowEpoch - DAY_S).map((a) => ({
    zone: a.zone,
    controller_id: a.controller_id,
    kind: a.kind,
    rate_gpm: a.rate_gpm,
    baseline_gpm: a.baseline_gpm,
    stopped: a.stopped,
    epoch: a.epoch,
  }));
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
