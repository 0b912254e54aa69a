import type { SoilStateDeclaration } from '../../store/soil-states';
import type { CompleteZone } from '../engine/zone-inputs';
import { calibratedPct, depletionOfPct, isCalibrated, type ProbeCalibration } from './probe-calibration';
import { storedChannel, type ProbeChannelRef } from './probe-evidence';

/**
 * A soil probe as evidence of a zone's start-of-day depletion (pure): the
 * daily reconciliation of the ledger with the probe.
 *
 * - A probe calibrated on its own dry and wet points (probe-calibration.ts)
 *   reads D = TAW x (100 - reading_pct) / 100. Its declaration carries a
 *   step bound (`step_mm` = PROBE_STEP_FRACTION x TAW): the ledger's carried
 *   state moves toward the probe by at most that much a day (ledger-day.ts),
 *   so one odd reading cannot swing the ledger, and a drifted ledger is
 *   pulled back over a few days. The row's anchor records the probe.
 * - Legacy: a probe with no calibration on a zone that sets both thresholds
 *   is read as before this calibration existed (`saturation_pct_soil` as field
 *   capacity, `target_min_pct_soil` as the refill point RAW:
 *   D = RAW x (saturation - reading) / (saturation - target_min)) and replaces
 *   the day's start. Kept so stored ledgers and the tuning loop's probe
 *   evidence do not change under existing installs; calibrate the probe to
 *   leave it.
 *
 * The day's first reading in its first two hours is its start state. A probe
 * with neither declares nothing: a relative reading is not a depletion. Only
 * stored channels (`source:<id>:<key>`) can be read.
 */

export type ProbeChannel = ProbeChannelRef;

const START_WINDOW_S = 2 * 3600;
/** The most a calibrated probe moves the ledger's carried depletion in a day, as a share of TAW. */
export const PROBE_STEP_FRACTION = 0.2;

export function probeChannel(
  zone: CompleteZone,
  calibration: ProbeCalibration | null = null,
): ProbeChannel | null {
  const channel = storedChannel(zone.config.soil_sensor_id);
  if (!channel || (!isCalibrated(calibration) && !legacyThresholds(zone))) return null;
  return channel;
}

function legacyThresholds(zone: CompleteZone): { saturation: number; refill: number } | null {
  const saturation = zone.config.saturation_pct_soil ?? null;
  const refill = zone.config.target_min_pct_soil ?? null;
  if (saturation === null || refill === null || !(saturation > refill)) return null;
  return { saturation, refill };
}

export function probeDepletionMm(
  zone: CompleteZone,
  readingPct: number,
  calibration: ProbeCalibration | null = null,
): number | null {
  if (!Number.isFinite(readingPct)) return null;
  const taw = zone.capacity.taw_mm;
  if (isCalibrated(calibration)) return depletionOfPct(calibratedPct(readingPct, calibration) as number, taw);
  const cal = legacyThresholds(zone);
  if (!cal) return null;
  const d = (zone.capacity.raw_mm * (cal.saturation - readingPct)) / (cal.saturation - cal.refill);
  return Math.min(taw, Math.max(0, d));
}

/** One declaration per date that has a reading in its first two hours. */
export function probeDeclarations(
  zone: CompleteZone,
  readings: readonly { epoch: number; value: number }[],
  days: readonly { date: string; start: number }[],
  calibration: ProbeCalibration | null = null,
): SoilStateDeclaration[] {
  const calibrated = isCalibrated(calibration);
  const out: SoilStateDeclaration[] = [];
  for (const { date, start } of days) {
    const first = readings
      .filter((r) => r.epoch >= start && r.epoch < start + START_WINDOW_S)
      .sort((a, b) => a.epoch - b.epoch)[0];
    const depletion = first ? probeDepletionMm(zone, first.value, calibration) : null;
    if (first && depletion !== null) {
      out.push({
        zone: zone.slug,
        date_local: date,
        depletion_mm: depletion,
        source: 'probe',
        epoch: first.epoch,
        note: calibrated
          ? `probe ${zone.config.soil_sensor_id} ${first.value} % (calibrated ${round1(calibratedPct(first.value, calibration) as number)} %)`
          : `probe ${first.value} %`,
        ...(calibrated
          ? {
              step_mm: PROBE_STEP_FRACTION * zone.capacity.taw_mm,
              sensor_id: zone.config.soil_sensor_id ?? '',
            }
          : {}),
      });
    }
  }
  return out;
}

function round1(x: number): number {
  return Math.round(x * 10) / 10;
}
