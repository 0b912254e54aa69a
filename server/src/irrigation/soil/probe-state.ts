import type { SoilStateDeclaration } from '../../store/soil-states';
import type { CompleteZone } from '../engine/zone-inputs';

/**
 * A calibrated soil probe as evidence of a zone's start-of-day depletion
 * (pure). Calibrated means the zone says what the probe reads at field
 * capacity (`saturation_pct_soil`) and at the refill point
 * (`target_min_pct_soil`, taken as RAW); between the two, depletion is
 * linear in the reading:
 *
 *   D = RAW x (saturation - reading) / (saturation - target_min), within [0, TAW]
 *
 * The day's first reading in its first two hours is its start state. An
 * uncalibrated probe (either number missing, or saturation not above the
 * refill point) declares nothing: a relative reading is not a depletion.
 * Only channels the service stores as history (`source:<id>:<key>`) can be
 * read; Home Assistant entities (`ha:`) are not stored and give nothing.
 */

export interface ProbeChannel {
  source_id: string;
  field: string;
}

const START_WINDOW_S = 2 * 3600;

export function probeChannel(zone: CompleteZone): ProbeChannel | null {
  const id = zone.config.soil_sensor_id ?? null;
  const match = id ? /^source:([^:]+):(.+)$/.exec(id) : null;
  if (!match || !calibration(zone)) return null;
  return { source_id: match[1] as string, field: match[2] as string };
}

function calibration(zone: CompleteZone): { saturation: number; refill: number } | null {
  const saturation = zone.config.saturation_pct_soil ?? null;
  const refill = zone.config.target_min_pct_soil ?? null;
  if (saturation === null || refill === null || !(saturation > refill)) return null;
  return { saturation, refill };
}

export function probeDepletionMm(zone: CompleteZone, readingPct: number): number | null {
  const cal = calibration(zone);
  if (!cal || !Number.isFinite(readingPct)) return null;
  const d = (zone.capacity.raw_mm * (cal.saturation - readingPct)) / (cal.saturation - cal.refill);
  return Math.min(zone.capacity.taw_mm, Math.max(0, d));
}

/** One declaration per date that has a reading in its first two hours. */
export function probeDeclarations(
  zone: CompleteZone,
  readings: readonly { epoch: number; value: number }[],
  days: readonly { date: string; start: number }[],
): SoilStateDeclaration[] {
  const out: SoilStateDeclaration[] = [];
  for (const { date, start } of days) {
    const first = readings
      .filter((r) => r.epoch >= start && r.epoch < start + START_WINDOW_S)
      .sort((a, b) => a.epoch - b.epoch)[0];
    const depletion = first ? probeDepletionMm(zone, first.value) : null;
    if (first && depletion !== null) {
      out.push({
        zone: zone.slug,
        date_local: date,
        depletion_mm: depletion,
        source: 'probe',
        epoch: first.epoch,
        note: `probe ${first.value} %`,
      });
    }
  }
  return out;
}
