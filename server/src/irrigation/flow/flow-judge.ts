import type { FlowMeterConfig } from '../../config/schema';
import type { FlowAlarmKind } from '../../store/flow-alarms';

/**
 * Whether a zone's flow is normal, from its learnt baseline (the median mean
 * flow of its last metered runs) and its meter's settings. Pure.
 *
 * - `none`: at or below `no_flow_gpm` with the valve open: it did not open
 *   (needs no baseline).
 * - `high`: above baseline x `high_factor` (a leak, a broken head); above
 *   baseline x `leak_stop_factor` the zone is stopped.
 * - `low`: below baseline x `low_factor` (a clog, low pressure).
 * A baseline needs MIN_BASELINE_RUNS metered runs; until then only `none`.
 */

export const MIN_BASELINE_RUNS = 3;

export interface FlowVerdict {
  kind: FlowAlarmKind;
  stop: boolean;
}

export type FlowThresholds = Pick<
  FlowMeterConfig,
  'high_factor' | 'low_factor' | 'leak_stop_factor' | 'no_flow_gpm'
>;

export function baselineOf(meanFlows: readonly number[]): number | null {
  if (meanFlows.length < MIN_BASELINE_RUNS) return null;
  const sorted = [...meanFlows].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export function judgeFlow(
  rate: number,
  baseline: number | null,
  thresholds: FlowThresholds,
): FlowVerdict | null {
  if (rate <= thresholds.no_flow_gpm) return { kind: 'none', stop: false };
  if (baseline === null || baseline <= 0) return null;
  if (rate > baseline * thresholds.high_factor) {
    const stop = thresholds.leak_stop_factor !== null && rate > baseline * thresholds.leak_stop_factor;
    return { kind: 'high', stop };
  }
  if (rate < baseline * thresholds.low_factor) return { kind: 'low', stop: false };
  return null;
}
